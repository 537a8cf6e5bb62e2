"""peg's share of a chat stream's ordinary feeds: CPU time of ``peg.Stream.feed`` + ``growth()`` per ordinary feed.

A chat stream (``ChatFormat.stream()``) fed an output 4 characters at a time sends most feeds down the fast lane
(``peg.Stream.extend``: no parse) and the others — those that complete or enter a marker — through an ordinary
``peg.Stream.feed`` followed by ``growth()``. This script runs the chat stream once to learn which feeds are
ordinary (the text of the lane feeds before one joins it: the machine parses exactly that), then replays only those
feeds through a bare ``peg.Stream`` ``--repeat`` times and prints the median CPU time per ordinary feed, and the
number of ordinary feeds. Cases: the many-calls outputs of ``chat_stream_bench`` (glm-4.5, hermes, qwen3-coder).

Run: ``python benchmarks/peg_feed_bench.py`` (defaults: ``--calls 8 128 512 --repeat 7``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import chat_stream_bench as bench

from chat_formats import get_format

CASES = {"glm-4.5": bench.glm, "hermes": bench.hermes, "qwen3-coder": bench.qwen3_coder}


def ordinary_feeds(name: str, calls: int) -> tuple[list[str], int]:
    """The text of each ordinary feed of a chat stream of ``calls`` calls (lane text joined into the next one),
    and the number of fed pieces. Cost: one chat stream."""
    text = CASES[name](calls)
    fmt = get_format(name, tools=bench.TOOLS)
    stream = fmt.stream()
    peg_stream = fmt.assembler.definition.parser.stream()
    feeds: list[str] = []
    pending = ""
    pieces = [text[i : i + bench.STEP] for i in range(0, len(text), bench.STEP)]
    for piece in pieces:
        armed = stream._fast is not None  # (the chat stream's lane: what it hands to extend)
        stream.feed(piece)
        if armed and peg_stream.extend(piece) is not None:
            pending += piece
            continue
        peg_stream.feed(piece)
        feeds.append(pending + piece)
        pending = ""
    return feeds, len(pieces)


def measure(name: str, calls: int, repeat: int) -> tuple[float, int, int]:
    """(median CPU seconds per ordinary feed, ordinary feeds, fed pieces)."""
    feeds, pieces = ordinary_feeds(name, calls)
    parser = get_format(name, tools=bench.TOOLS).assembler.definition.parser
    runs: list[float] = []
    for _ in range(repeat):
        stream = parser.stream()
        t = time.thread_time()
        for piece in feeds:
            stream.feed(piece)
            stream.growth()
        runs.append((time.thread_time() - t) / len(feeds))
    return statistics.median(runs), len(feeds), pieces


def main() -> None:
    """Print one line per case."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, nargs="+", default=[8, 128, 512], help="numbers of calls")
    ap.add_argument("--repeat", type=int, default=7, help="runs per case (the median is printed)")
    args = ap.parse_args()
    compiled = [m for m in ("peg._packrat", "peg._growth", "peg.parser") if sys.modules[m].__file__.endswith(".so")]
    print(f"modules: {'compiled (Cython): ' + ', '.join(compiled) if compiled else 'pure Python'}")
    print(f"{'case':<14} {'calls':>6} {'pieces':>7} {'ordinary':>9} {'us/ordinary feed':>17}")
    for name in CASES:
        for calls in args.calls:
            per_feed, ordinary, pieces = measure(name, calls, args.repeat)
            print(f"{name:<14} {calls:>6} {pieces:>7} {ordinary:>9} {per_feed * 1e6:>17.2f}")


if __name__ == "__main__":
    main()
