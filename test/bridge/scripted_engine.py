#!/usr/bin/env python3
"""A scripted engine for the bridge tests: scripted_engine.py MODE RECORD_FILE.
Every line it reads is appended to RECORD_FILE as {"at": ms since the epoch, "msg": the message}.
It writes a line to stderr at its hello. well: answers each turn with the first legal path of the
tree, naming its game. think-until-ended: on its first turn says {"type":"log","message":"thinking"},
reads on until that game's gameEnded, then answers the turn anyway (without a gameId, as a per-game
engine may) and says "late answer sent". One process per game (not concurrent)."""
import json, sys, time

mode, record = sys.argv[1], sys.argv[2]


def note(msg):
    with open(record, "a") as f:
        f.write(json.dumps({"at": int(time.time() * 1000), "msg": msg}) + "\n")


def first_path(tree):
    moves = []
    while tree:
        move = next(iter(tree))
        moves, tree = moves + [move], tree[move]
    return moves


def say(obj):
    print(json.dumps(obj), flush=True)


thought = False
for line in sys.stdin:
    msg = json.loads(line)
    note(msg)
    if msg["type"] == "hello":
        sys.stderr.write("scripted engine: hello, protocol %s\n" % msg.get("protocol"))
        sys.stderr.flush()
        say({"type": "hello", "name": "scripted-" + mode})
    elif msg["type"] == "turn":
        if mode == "think-until-ended" and not thought:
            thought = True
            say({"type": "log", "message": "thinking"})
            for later in sys.stdin:
                ended = json.loads(later)
                note(ended)
                if ended["type"] == "gameEnded" and ended["gameId"] == msg["gameId"]:
                    break
            say({"moves": first_path(msg["legalMoves"])})
            say({"type": "log", "message": "late answer sent"})
            continue
        say({"gameId": msg["gameId"], "moves": first_path(msg["legalMoves"])})
