"""A stream's incremental mapping alone: CPU µs of ``IncrementalMapper.update`` per ordinary feed.

For the many-calls outputs of ``chat_stream_bench.py`` (glm-4.5, hermes, qwen3-coder; 4-character feeds), a chat
stream is run once to learn which feeds are *ordinary* (those the fast lane does not take: a marker completes or
starts); peg's partial parse after each of them is recorded (a second peg stream fed alongside, taking the same
lane feeds), then a fresh mapper maps the recorded parses again and again: the median CPU time (thread time) per
``update``, over ``--repeat`` runs. peg's parse, the deltas and the diffing are not in the number.

Replayed parses are cold in the CPU's caches (thousands of them were recorded before), whereas in a stream peg
has just built the nodes of the parse it hands over: ``--warm`` also prints the time per update when the nodes
peg built for that feed (the partial ones and their children) were read just before it (the reading not
timed: per update, the timer's own cost subtracted).

Run: ``PYTHONPATH=. python3 benchmarks/incremental_map_bench.py --calls 8 128 512`` (after
``scripts/cython_inplace.sh`` for the compiled modules; ``--clean`` for the pure-Python ones).
"""

from __future__ import annotations

import argparse
import statistics
import time

from chat_formats import get_format
from chat_formats._incremental import IncrementalMapper
from peg import AstNode

try:
    from benchmarks.chat_stream_bench import STEP, TOOLS, glm, hermes, qwen3_coder
except ImportError:  # run as a script from benchmarks/
    from chat_stream_bench import STEP, TOOLS, glm, hermes, qwen3_coder  # type: ignore[no-redef]

WRITERS = {"glm-4.5": glm, "hermes": hermes, "qwen3-coder": qwen3_coder}


def ordinary_parses(name: str, calls: int) -> tuple[list[tuple[tuple[AstNode, ...], int]], IncrementalMapper]:
    """The partial parses after the ordinary feeds of the ``calls``-call output of format ``name``, with the
    size of the text then, and a fresh mapper for them."""
    fmt = get_format(name, tools=TOOLS)
    text = WRITERS[name](calls)
    chat, peg = fmt.stream(), fmt.definition.parser.stream()
    parses: list[tuple[tuple[AstNode, ...], int]] = []
    for i in range(0, len(text), STEP):
        piece = text[i : i + STEP]
        armed = chat._fast is not None  # the lane the chat stream takes for this feed
        chat.feed(piece)
        if armed and peg.extend(piece) is not None:
            continue
        parses.append((peg.feed(piece).nodes, i + len(piece)))
    asm = fmt.assembler
    return parses, IncrementalMapper(asm.tools, chat.salt, asm.definition.id_position)


def _warm(nodes: tuple[AstNode, ...]) -> int:
    """Read what peg builds for a feed: the partial nodes, their children tuples and children (returns a count,
    so that nothing is optimised away)."""
    seen = 0
    todo = list(nodes)
    while todo:
        node = todo.pop()
        seen += node.end
        if node.partial:
            todo.extend(node.children)
    return seen


def _warm_time(parses: list[tuple[tuple[AstNode, ...], int]], mapper: IncrementalMapper) -> float:
    """CPU µs per update, each update timed alone right after :func:`_warm` of its parse (timer cost removed)."""
    clock = time.thread_time_ns
    fresh = IncrementalMapper(mapper.tools, mapper.salt, mapper.id_position)
    total = idle = 0
    for nodes, size in parses:
        _warm(nodes)
        t0 = clock()
        t1 = clock()
        fresh.update(nodes, size)
        t2 = clock()
        idle += t1 - t0
        total += t2 - t1
    return (total - idle) / len(parses) / 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, nargs="+", default=[8, 128, 512])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--warm", action="store_true", help="also time updates of parses just read (see above)")
    args = ap.parse_args()
    print("format        calls  ordinary feeds  µs per update (median, min)" + ("  warm (median)" if args.warm else ""))
    for name in WRITERS:
        for calls in args.calls:
            parses, mapper = ordinary_parses(name, calls)
            times = []
            for _ in range(args.repeat):
                fresh = IncrementalMapper(mapper.tools, mapper.salt, mapper.id_position)
                t0 = time.thread_time_ns()
                for nodes, size in parses:
                    fresh.update(nodes, size)
                times.append((time.thread_time_ns() - t0) / len(parses) / 1e3)
            warm = (
                f"  {statistics.median(_warm_time(parses, mapper) for _ in range(args.repeat)):13.2f}"
                if args.warm
                else ""
            )
            print(f"{name:12} {calls:6} {len(parses):15}  {statistics.median(times):6.2f} {min(times):6.2f}{warm}")


if __name__ == "__main__":
    main()
