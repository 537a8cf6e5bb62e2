"""How long shipping a built parser costs: ``to_json`` / ``from_json`` of a chat format with many tools.

Run: ``python benchmarks/peg_serialize_bench.py [--tools 50] [--repeat 20]``. Prints the median milliseconds of
each direction (``time.process_time``: CPU time, so other processes on a shared machine do not inflate it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from peg import (
    Parser,
    atomic,
    choice,
    end,
    json,
    json_member,
    literal,
    tag,
    trigger_rule,
    until,
    zero_or_more,
)
from peg.serialize import from_json, to_json


def tool_format(names: list[str]) -> Parser:
    """A Hermes-style format: content, then ``<tool_call>{"name": …, "arguments": …}</tool_call>`` calls."""
    name = choice(*('"' + atomic(tag("tool-name", literal(n))) + '"' for n in names))
    call = "{" << json_member("name", name) << "," << json_member("arguments", tag("tool-args", json())) << "}"
    section = trigger_rule("tool-call", "<tool_call>" << call << "</tool_call>")
    return tag("content", until("<tool_call>")) + zero_or_more(section) + end()


def median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        action()
        times.append((time.process_time() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", type=int, default=50, help="number of tools in the format (default 50)")
    ap.add_argument("--repeat", type=int, default=20, help="runs per measurement; the median is printed")
    args = ap.parse_args()
    fmt = tool_format([f"tool_{i}" for i in range(args.tools)])
    text = to_json(fmt)
    print(f"{args.tools} tools, {len(text):,} bytes of JSON")
    print(f"to_json   {median_ms(lambda: to_json(fmt), args.repeat):8.2f} ms")
    print(f"from_json {median_ms(lambda: from_json(text), args.repeat):8.2f} ms")


if __name__ == "__main__":
    main()
