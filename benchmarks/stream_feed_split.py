"""Where a chat stream's feed goes: peg, the mapper, and the stream's own work (diff, lane arming, delta objects).

Four measurements, compiled if the hot modules are built in place (``scripts/cython_inplace.sh``):

* ``split``: the many-calls outputs of ``chat_stream_bench.py`` (glm-4.5, hermes, qwen3-coder; ``--calls``) fed
  4 characters at a time. Per feed, the chat stream's time, and, in a second pass over the same text, a peg
  stream and a mapper alone: ``peg.feed`` + ``mapper.update`` for an ordinary feed, ``peg.extend`` for a lane
  feed; each feed's minimum over ``--repeat`` runs (a preempted run does not count). The stream's own share is
  the difference: for an ordinary feed it includes arming the lane (peg's ``growth()``) and the delta objects.
  (Two passes: timed interleaved, feed by feed, the second of the two finds the caches warm — ~3 µs per
  ordinary feed either way.)
* ``lane``: one lane state fed the same 4 characters 20,000 times (a JSON argument, an XML string value, content):
  the steady-state cost of a lane feed, and of ``peg.extend`` alone (CPU time, median of 5).
* ``blank``: the many-calls outputs after ``"\n\n"`` (blank content, held back while the calls stream): µs per
  token (CPU time, median of 5).
* ``deltas``: the delta builders of ``chat_formats._deltas`` (timeit, best of 9).

Run: ``PYTHONPATH=. python3 benchmarks/stream_feed_split.py [--calls 128] [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import timeit

from chat_stream_bench import TOOLS, glm, hermes, qwen3_coder

from chat_formats import get_format
from chat_formats._deltas import arguments_delta, call_start_delta, text_delta
from chat_formats._incremental import IncrementalMapper

CALLS = {"glm-4.5": glm, "hermes": hermes, "qwen3-coder": qwen3_coder}
LANES = {
    "hermes JSON argument": ("hermes", '<tool_call>\n{"name": "f", "arguments": {"a": "'),
    "glm-4.5 XML value": ("glm-4.5", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>"),
    "qwen3-coder XML value": ("qwen3-coder", "<tool_call>\n<function=f>\n<parameter=a>\n"),
    "hermes content": ("hermes", "Hello there "),
}
INF = 1 << 62


def split(name: str, calls: int, repeat: int) -> str:
    """One line: µs per token, the ordinary feeds' split and the lane feeds' split (see the module docstring)."""
    fmt = get_format(name, tools=TOOLS)
    text = CALLS[name](calls)
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    asm = fmt.assembler
    chat, other = [INF] * len(chunks), [INF] * len(chunks)
    lane, args = [False] * len(chunks), [False] * len(chunks)
    clock = time.perf_counter_ns
    for _ in range(repeat):
        # Two passes, not interleaved (the second of two interleaved runs finds the caches warm): the chat
        # stream, then peg and the mapper alone, taking the lane where the chat stream took it.
        stream = fmt.stream()
        for k, chunk in enumerate(chunks):
            armed = stream._fast
            t0 = clock()
            deltas = stream.feed(chunk)
            t1 = clock()
            lane[k] = armed is not None and stream._fast is armed  # (an ordinary feed arms the lane anew)
            args[k] = bool(deltas and deltas[0].tool_calls)
            chat[k] = min(chat[k], t1 - t0)
        peg = asm.definition.parser.stream()
        mapper = IncrementalMapper(asm.tools, stream.salt, asm.definition.id_position)
        size = 0
        for k, chunk in enumerate(chunks):
            size += len(chunk)
            t0 = clock()
            grown = peg.extend(chunk) if lane[k] else None
            if grown is None:
                mapper.update(peg.feed(chunk).nodes, size)
            t1 = clock()
            other[k] = min(other[k], t1 - t0)

    def mean(ks: list[int], times: list[int]) -> float:
        return sum(times[k] for k in ks) / max(1, len(ks)) / 1e3

    ordinary = [k for k in range(len(chunks)) if not lane[k]]
    lanes = [k for k in range(len(chunks)) if lane[k]]
    with_args = [k for k in lanes if args[k]]
    o, op = mean(ordinary, chat), mean(ordinary, other)
    la, lp = mean(lanes, chat), mean(lanes, other)
    aa, ap = mean(with_args, chat), mean(with_args, other)
    return (
        f"{name:12} {calls:4} calls: {sum(chat) / len(chunks) / 1e3:5.2f} us/token"
        f" | ordinary {len(ordinary) / len(chunks):4.0%} {o:5.1f} = peg+mapper {op:5.1f} + stream {o - op:4.1f}"
        f" | lane {la:4.2f} = extend {lp:4.2f} + stream"
        f" {la - lp:4.2f} (with an arguments delta: {aa:4.2f} = {ap:4.2f} + {aa - ap:4.2f})"
    )


def lane_state(label: str, name: str, head: str, feeds: int = 20_000) -> str:
    """One line: the steady-state cost of a lane feed in one state (see the module docstring)."""
    fmt = get_format(name, tools=TOOLS)
    whole, alone = [], []
    for _ in range(5):
        stream = fmt.stream()
        stream.feed(head)
        peg = fmt.assembler.definition.parser.stream()
        peg.feed(head)
        peg.growth()
        if stream._fast is None:
            return f"{label:24} not a lane"
        t0 = time.thread_time_ns()
        for _ in range(feeds):
            stream.feed("abcd")
        t1 = time.thread_time_ns()
        for _ in range(feeds):
            peg.extend("abcd")
        t2 = time.thread_time_ns()
        whole.append((t1 - t0) / feeds / 1e3)
        alone.append((t2 - t1) / feeds / 1e3)
    w, a = statistics.median(whole), statistics.median(alone)
    return f"{label:24} lane feed {w:4.2f} us = extend {a:4.2f} + stream {w - a:4.2f}"


def after_blank(name: str, head: str, calls: int) -> str:
    """One line: µs per token of the many-calls output preceded by blank content (held back, never sent)."""
    fmt = get_format(name, tools=TOOLS)
    text = head + CALLS[name](calls)
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    runs = []
    for _ in range(5):
        stream = fmt.stream()
        t0 = time.thread_time_ns()
        for chunk in chunks:
            stream.feed(chunk)
        runs.append((time.thread_time_ns() - t0) / len(chunks) / 1e3)
    return f"{name:12} {head!r:6} + {calls} calls: {statistics.median(runs):5.2f} us/token"


def delta_builders() -> list[str]:
    """Lines: the cost of each delta builder."""
    out = []
    for label, build in (
        ("text_delta", lambda: text_delta("content", "abcd")),
        ("arguments_delta", lambda: arguments_delta(3, "abcd")),
        ("call_start_delta", lambda: call_start_delta(3, "call_1", "f", "")),
    ):
        best = min(timeit.Timer(build).repeat(9, 20_000)) / 20_000 * 1e6
        out.append(f"{label:24} {best:4.2f} us")
    return out


def main() -> None:
    """Print the four measurements."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, nargs="+", default=[128], help="numbers of calls")
    ap.add_argument("--repeat", type=int, default=7, help="runs per case (each feed's minimum counts)")
    args = ap.parse_args()
    for calls in args.calls:
        for name in CALLS:
            print(split(name, calls, args.repeat))
    for calls in args.calls:
        for name in CALLS:
            print(after_blank(name, "\n\n", calls))
    for label, (name, head) in LANES.items():
        print(lane_state(label, name, head))
    for line in delta_builders():
        print(line)


if __name__ == "__main__":
    main()
