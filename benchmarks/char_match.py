"""Code points per second through the NPDA on the corpus grammars (JSON, C, chess).

Run: ``python benchmarks/char_match.py`` (from the repository, with ``../shared`` beside it).

For each grammar it builds a valid document, then times ``Grammar.matches`` on it: a *cold* run on a fresh
grammar (every state and transition computed for the first time) and *warm* runs (transitions cached), and
prints medians. The baseline in the same run is a plain Python loop that only iterates over the code points
(``for ch in text: ord(ch)``), so the ratio says how many times slower than doing nothing per character we are.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gbnf_backend import Grammar  # noqa: E402

GRAMMARS = ROOT.parent / "shared" / "corpora" / "grammars"


def json_document(rng: random.Random) -> str:
    items = [
        {
            "id": i,
            "name": f"item-{i}",
            "price": round(rng.uniform(0, 1000), 2),
            "tags": [rng.choice(["red", "green", "blue"]) for _ in range(rng.randint(0, 4))],
            "note": "caf\u00e9 \u4e2d\u6587 " * rng.randint(0, 3),
            "ok": rng.random() < 0.5,
            "parent": None,
        }
        for i in range(400)
    ]
    return json.dumps({"items": items}, indent=2, ensure_ascii=False)


def c_document(rng: random.Random) -> str:
    functions = []
    for i in range(150):
        body = "".join(f"int v{j} = {j}*{rng.randint(1, 99)}+a;" for j in range(rng.randint(1, 6)))
        functions.append(f"int f{i}(int a){{{body}return a;}}")
    return "".join(functions)


def chess_document(rng: random.Random) -> str:
    moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "c3"]
    lines = [f"1. {moves[0]} {moves[1]}\n"]
    for n in range(2, 1200):
        lines.append(f"{(n % 99) + 1}. {rng.choice(moves)} {rng.choice(moves)}\n")
    return "".join(lines)


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    rng = random.Random(7)
    cases = [
        ("json.gbnf", json_document(rng)),
        ("c.gbnf", c_document(rng)),
        ("chess.gbnf", chess_document(rng)),
    ]
    header = f"{'grammar':<11} {'chars':>8} {'cold Mcp/s':>11} {'warm Mcp/s':>11}"
    print(f"{header} {'baseline Mcp/s':>15} {'warm/baseline':>14}")
    for name, text in cases:
        source = (GRAMMARS / name).read_text()
        assert Grammar.from_gbnf(source).matches(text), f"{name}: benchmark document is not valid"

        def cold(source: str = source, text: str = text) -> bool:
            return Grammar.from_gbnf(source).matches(text)

        warm_grammar = Grammar.from_gbnf(source)
        warm_grammar.matches(text)

        def baseline(text: str = text) -> int:
            total = 0
            for ch in text:
                total += ord(ch)
            return total

        cold_s = median_seconds(cold, 3)
        warm_s = median_seconds(lambda g=warm_grammar, t=text: g.matches(t), 5)
        base_s = median_seconds(baseline, 5)
        n = len(text)
        print(
            f"{name:<11} {n:>8} {n / cold_s / 1e6:>11.2f} {n / warm_s / 1e6:>11.2f} {n / base_s / 1e6:>15.2f}"
            f" {warm_s / base_s:>13.1f}x"
        )


if __name__ == "__main__":
    main()
