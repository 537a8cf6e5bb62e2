"""peg's share of a chat stream, per kind of call: the fast lane (``peg.Stream.extend``), ordinary feeds
(``feed``: peg's machine) and arming the lane after them (``growth``).

``chat_stream_bench.py --peg`` times peg alone with ordinary feeds only; a chat stream sends most chunks
through the fast lane instead. This script records the calls a chat stream makes on its peg stream (by wrapping
them on the instance; it reads the chat stream's private ``_peg``), then replays exactly those calls on a fresh
peg stream: the total is peg's share of the chat stream's time. Per-kind times are measured with a CPU timer
around each call, minus the timer's own cost (so they are approximate; the total is not). CPU time
(``thread_time``), median of ``--repeat`` runs, 4-character chunks as in chat_stream_bench.

    PYTHONPATH=. python3 benchmarks/peg_share_bench.py [--calls 128] [--kb 5] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import chat_stream_bench as b

from chat_formats import get_format

Call = tuple[str, str]  # ("x" extend | "f" feed | "g" growth, the text fed or "")


def record(name: str, text: str) -> tuple[Any, list[Call]]:
    """The format and the calls its chat stream makes on its peg stream while fed ``text`` in chunks."""
    fmt = get_format(name, tools=b.TOOLS)
    chat = fmt.stream()
    peg = chat._peg
    log: list[Call] = []
    extend, feed, growth = peg.extend, peg.feed, peg.growth

    def logged(kind: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            log.append((kind, args[0] if args else ""))
            return call(*args)

        return run

    peg.extend, peg.feed, peg.growth = logged("x", extend), logged("f", feed), logged("g", growth)
    for i in range(0, len(text), b.STEP):
        chat.feed(text[i : i + b.STEP])
    return fmt, log


def replay(fmt: Any, log: list[Call]) -> float:
    """CPU seconds to replay ``log`` on a fresh peg stream."""
    s = fmt.definition.parser.stream()
    t = time.thread_time()
    for kind, more in log:
        if kind == "x":
            s.extend(more)
        elif kind == "f":
            s.feed(more)
        else:
            s.growth()
    return time.thread_time() - t


def per_kind(fmt: Any, log: list[Call], overhead: float) -> dict[str, float]:
    """Approximate CPU seconds per call of each kind (each call timed, minus the timer's cost)."""
    s = fmt.definition.parser.stream()
    spent = {"x": 0.0, "f": 0.0, "g": 0.0}
    clock = time.thread_time
    for kind, more in log:
        t = clock()
        if kind == "x":
            s.extend(more)
        elif kind == "f":
            s.feed(more)
        else:
            s.growth()
        spent[kind] += clock() - t - overhead
    counts = {k: sum(1 for kind, _ in log if kind == k) for k in spent}
    return {k: spent[k] / counts[k] if counts[k] else 0.0 for k in spent}


def main() -> None:
    """Print one line per case."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, default=128, help="calls in the many-calls cases")
    ap.add_argument("--kb", type=int, default=5, help="size of the gpt-oss output, kB")
    ap.add_argument("--repeat", type=int, default=5, help="runs per case (the median is printed)")
    args = ap.parse_args()
    clock = time.thread_time
    t = clock()
    for _ in range(100_000):
        clock()
    overhead = (clock() - t) / 100_000
    print(f"modules: {b.compiled_modules()}")
    print(
        f"{'case':12} {'tokens':>6} {'lane':>5} {'feed':>5} {'lane us':>8} {'feed us':>8} {'arm us':>7} {'us/token':>9}"
    )
    cases = [("glm-4.5", b.glm, args.calls), ("hermes", b.hermes, args.calls)]
    cases += [("qwen3-coder", b.qwen3_coder, args.calls), ("gpt-oss", b.gpt_oss, args.kb)]
    for name, make, n in cases:
        text = make(n)
        fmt, log = record(name, text)
        tokens = -(-len(text) // b.STEP)
        total = statistics.median(replay(fmt, log) for _ in range(args.repeat))
        kinds = [per_kind(fmt, log, overhead) for _ in range(args.repeat)]
        x, f, g = (statistics.median(k[c] for k in kinds) * 1e6 for c in "xfg")
        lanes = sum(1 for kind, _ in log if kind == "x")
        feeds = sum(1 for kind, _ in log if kind == "f")
        print(f"{name:12} {tokens:6} {lanes:5} {feeds:5} {x:8.2f} {f:8.2f} {g:7.2f} {total / tokens * 1e6:9.2f}")


if __name__ == "__main__":
    main()
