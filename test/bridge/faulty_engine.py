#!/usr/bin/env python3
"""A misbehaving engine for the bridge tests: faulty_engine.py MODE MARKER_FILE.
crash-once: exits on its first turn; illegal-once: answers its first turn with a move not in the
tree; hang: never answers a turn; any other mode (well) always answers the first legal turn. "Once"
means once per MARKER_FILE (the restarted process behaves). One process per game (not concurrent)."""
import json, os, sys

mode, marker = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "faulty-" + mode}), flush=True)
    elif msg["type"] == "turn":
        first = not os.path.exists(marker)
        open(marker, "a").close()
        if mode == "hang" or (mode == "crash-once" and first):
            if mode == "crash-once":
                sys.stderr.write("faulty engine: crashing on purpose\n")
                sys.exit(3)
            continue
        moves, tree = [], msg["legalMoves"]
        while tree:
            move = next(iter(tree))
            moves, tree = moves + [move], tree[move]
        print(json.dumps({"moves": ["a1a1"] if mode == "illegal-once" and first else moves}), flush=True)
