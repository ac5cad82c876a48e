#!/usr/bin/env python3
"""A dice-chess engine for `dicechess bridge` (docs/BRIDGE.md): captures the most material it can."""
import json, random, sys

VALUE = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 1000}


def board(dfen):
    """Square name ("e4") to piece letter, read from the placement field of the DFEN."""
    squares = {}
    for r, row in enumerate(dfen.split()[0].split("/")):
        row = "".join("." * int(c) if c.isdigit() else c for c in row)
        squares.update({"abcdefgh"[f] + str(8 - r): c for f, c in enumerate(row) if c != "."})
    return squares


def gain(squares, path):
    """Material a turn takes (a piece that moves twice is followed)."""
    squares, total = dict(squares), 0
    for m in path:
        total += VALUE.get(squares.get(m[2:4], " ").lower(), 0)
        squares[m[2:4]] = squares.pop(m[0:2], None)
    return total


def paths(tree, prefix=()):
    """Every root-to-leaf path of the legal-move tree: the complete legal turns."""
    return [list(prefix)] if not tree else [p for m, t in tree.items() for p in paths(t, prefix + (m,))]


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "greedy"}), flush=True)
    elif msg["type"] == "turn":
        squares, turns = board(msg["dfen"]), paths(msg["legalMoves"])
        best = max(gain(squares, p) for p in turns)
        print(json.dumps({"moves": random.choice([p for p in turns if gain(squares, p) == best])}), flush=True)
