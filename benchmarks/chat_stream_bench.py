"""Chat-format streaming with many tool calls: is the cost per token flat in the number of calls?

For each format and call count, an output of N calls is fed ~4 characters at a time through
``ChatFormat.stream()``; we print the CPU time of one ``parse`` of the whole output, of the whole stream, the
mean time per fed token and the ratio stream / parse. Before complete calls were cached by the stream, every
feed re-mapped every call so far (quadratic in the number of calls).

Run: ``python benchmarks/chat_stream_bench.py`` (``--calls 8 32 64 128``).
"""

from __future__ import annotations

import argparse
import time

from chat_formats import get_format

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
        },
    }
]


def glm(n: int) -> str:
    """``n`` GLM 4.5 calls with a string and an integer argument."""
    return "".join(
        f"<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>hello {i}</arg_value>\n"
        f"<arg_key>b</arg_key>\n<arg_value>{i}</arg_value>\n</tool_call>\n"
        for i in range(n)
    )


def hermes(n: int) -> str:
    """``n`` Hermes calls."""
    return "".join(
        f'<tool_call>\n{{"name": "f", "arguments": {{"a": "hello {i}", "b": {i}}}}}\n</tool_call>\n' for i in range(n)
    )


def qwen3_coder(n: int) -> str:
    """``n`` Qwen3-Coder XML calls."""
    return "".join(
        f"<tool_call>\n<function=f>\n<parameter=a>\nhello {i}\n</parameter>\n<parameter=b>\n{i}\n</parameter>\n"
        "</function>\n</tool_call>\n"
        for i in range(n)
    )


def measure(name: str, text: str, step: int = 4) -> tuple[float, float, float]:
    """(parse seconds, stream seconds, seconds per fed token) in CPU time."""
    fmt = get_format(name, tools=TOOLS)
    t = time.thread_time()
    fmt.parse(text)
    parse = time.thread_time() - t
    t = time.thread_time()
    stream = fmt.stream()
    for i in range(0, len(text), step):
        stream.feed(text[i : i + step])
    stream.finish()
    streamed = time.thread_time() - t
    return parse, streamed, streamed / max(1, len(text) // step)


def main() -> None:
    """Print one line per format and call count."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, nargs="+", default=[8, 32, 64, 128], help="numbers of calls")
    args = ap.parse_args()
    print(f"{'format':12} {'calls':>5} {'bytes':>6} {'parse ms':>9} {'stream ms':>10} {'us/token':>9} {'ratio':>6}")
    for name, make in (("glm-4.5", glm), ("hermes", hermes), ("qwen3-coder", qwen3_coder)):
        for n in args.calls:
            text = make(n)
            parse, streamed, per_token = measure(name, text)
            print(
                f"{name:12} {n:5} {len(text):6} {parse * 1e3:9.1f} {streamed * 1e3:10.0f} "
                f"{per_token * 1e6:9.0f} {streamed / parse:6.0f}"
            )


if __name__ == "__main__":
    main()
