#!/usr/bin/env python3
"""A dice-chess engine for `dicechess bridge` (docs/BRIDGE.md): plays a random legal turn."""
import json, random, sys


def paths(tree, prefix=()):
    """Every root-to-leaf path of the legal-move tree: the complete legal turns."""
    return [list(prefix)] if not tree else [p for m, t in tree.items() for p in paths(t, prefix + (m,))]


# One process can play every game at once: each answer names its game.
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "random", "concurrent": True}), flush=True)
    elif msg["type"] == "turn":
        moves = random.choice(paths(msg["legalMoves"]))
        print(json.dumps({"gameId": msg["gameId"], "moves": moves}), flush=True)
    # gameStarted and gameEnded need no answer
