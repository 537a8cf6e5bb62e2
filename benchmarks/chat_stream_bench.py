"""Chat-format streaming: is the cost per fed token flat in the number of calls, the length and the nesting?

Every case feeds an output ~4 characters at a time through ``ChatFormat.stream()`` and prints the CPU time of one
``parse`` of the whole output, of the whole stream, the mean time per fed token, the ratio stream / parse, and —
per group — whether the per-token cost is flat: the ratio of µs/token of the largest case to the smallest (1.0
is perfectly flat; a cost linear in the output size per feed shows as ~the size ratio).

Groups: the common 20 kB shapes (content only; reasoning + content; one Hermes call with a 13 kB JSON string
argument; one Qwen3-Coder and one GLM-4.5 XML call with a 19 kB parameter value; gpt-oss), many calls (glm-4.5,
hermes, qwen3-coder; ``--calls``), long outputs (content only, and gpt-oss with reasoning, content and calls;
``--kb``), deep nesting (hermes and kimi-k2 calls whose argument is ``[[[…]]]``; ``--nest-kb``). ``--peg`` also
prints the time of peg's incremental parse alone (what the chat layer adds is the difference). Every stream time
is the median of ``--repeat`` runs (default 3).

Run: ``python benchmarks/chat_stream_bench.py`` (defaults: ``--calls 8 64 128 512 --kb 5 50 --nest-kb 5 50``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

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
NEST_TOOLS = [
    {
        "type": "function",
        "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {}}}},
    }
]
WRITE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]
STEP = 4
REPEAT = 3


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


def _words(size: int) -> str:
    """About ``size`` characters of prose."""
    line = "The quick brown fox jumps over the lazy dog, then writes a line of text.\n"
    return (line * (size // len(line) + 1))[:size]


def content(kb: int) -> str:
    """``kb`` kB of plain content (hermes format: no call ever starts)."""
    return _words(kb * 1000)


def gpt_oss(kb: int) -> str:
    """``kb`` kB of gpt-oss messages: reasoning, then alternating calls and content, then a final answer."""
    parts = [f"<|channel|>analysis<|message|>{_words(300)}<|end|>"]
    i = 0
    while sum(map(len, parts)) < kb * 1000:
        parts.append(
            "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>"
            f'{{"a": "x{i}", "b": {i}}}'
            f"<|call|><|start|>assistant<|channel|>analysis<|message|>{_words(200)}<|end|>"
        )
        i += 1
    parts.append(f"<|start|>assistant<|channel|>final<|message|>{_words(200)}<|return|>")
    return "".join(parts)


def _nested(kb: int) -> str:
    depth = kb * 1000 // 2
    return "[" * depth + "]" * depth


def hermes_nested(kb: int) -> str:
    """One Hermes call whose argument ``a`` is ``kb`` kB of ``[[[…]]]``."""
    return f'<tool_call>\n{{"name": "f", "arguments": {{"a": {_nested(kb)}}}}}\n</tool_call>'


def kimi_nested(kb: int) -> str:
    """One Kimi-K2 call whose argument ``a`` is ``kb`` kB of ``[[[…]]]``."""
    return (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
        f'{{"a": {_nested(kb)}}}<|tool_call_end|><|tool_calls_section_end|>'
    )


def _code(size: int, seed: int = 7) -> str:
    """About ``size`` characters of Python-like code (quotes, backslashes, tabs, newlines)."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < size:
        i = len(lines)
        line = rng.choice(
            [
                f'    value_{i} = parse("{{\\"k\\": {i}}}")  # tab\there',
                f"def handler_{i}(event, ctx):",
                f"    if event.kind == 'item_{i}' and ctx.count > {i}:",
                f"        return [x * {i} for x in ctx.values if x]",
                "",
            ]
        )
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def shape_content(kb: int) -> str:
    """Content only (hermes)."""
    return _words(kb * 1000)


def shape_reasoning(kb: int) -> str:
    """Half reasoning, half content (hermes, ``<think>``)."""
    return f"<think>{_words(kb * 500)}</think>\n\n{_words(kb * 500)}"


def shape_hermes_call(kb: int) -> str:
    """Reasoning, content and one Hermes call whose JSON ``content`` argument is ~65% of the text."""
    import json

    args = {"path": "src/handlers.py", "content": _code(kb * 650)}
    call = json.dumps({"name": "write_file", "arguments": args})
    return f"<think>{_words(kb * 250)}</think>\n\n{_words(kb * 100)}<tool_call>\n{call}\n</tool_call>"


def shape_qwen3_coder(kb: int) -> str:
    """One Qwen3-Coder call whose ``content`` parameter is nearly all of the text."""
    return (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/handlers.py\n</parameter>\n"
        f"<parameter=content>\n{_code(kb * 1000 - 150)}\n</parameter>\n</function>\n</tool_call>"
    )


def shape_glm(kb: int) -> str:
    """One GLM-4.5 call whose ``content`` value is nearly all of the text."""
    return (
        "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>src/handlers.py</arg_value>\n"
        f"<arg_key>content</arg_key>\n<arg_value>{_code(kb * 1000 - 150)}</arg_value>\n</tool_call>"
    )


def measure(name: str, tools: list[dict[str, object]], text: str, *, peg: bool) -> tuple[float, float, float, float]:
    """(parse s, stream s, stream s per fed token, peg-only s per fed token or 0) in CPU time."""
    fmt = get_format(name, tools=tools)
    tokens = max(1, -(-len(text) // STEP))
    t = time.thread_time()
    fmt.parse(text)
    parse = time.thread_time() - t
    pieces = [text[i : i + STEP] for i in range(0, len(text), STEP)]
    runs: list[float] = []
    for _ in range(REPEAT):
        t = time.thread_time()
        stream = fmt.stream()
        for piece in pieces:
            stream.feed(piece)
        stream.finish()
        runs.append(time.thread_time() - t)
    streamed = statistics.median(runs)
    peg_only = 0.0
    if peg:
        peg_runs: list[float] = []
        for _ in range(REPEAT):
            raw = fmt.definition.parser.stream()
            t = time.thread_time()
            for piece in pieces:
                raw.feed(piece)
            raw.finish()
            peg_runs.append(time.thread_time() - t)
        peg_only = statistics.median(peg_runs) / tokens
    return parse, streamed, streamed / tokens, peg_only


Case = tuple[str, list[dict[str, object]], Callable[[int], str]]


def label(name: str, make: Callable[[int], str]) -> str:
    """``format/case`` for a row (the case is the generator's name without its ``shape_`` prefix)."""
    return f"{name}/{make.__name__.removeprefix('shape_')}"


def run_group(title: str, cases: list[Case], sizes: list[int], unit: str, *, peg: bool) -> None:
    """Print one line per case and size, then the flatness ratio per case."""
    print(f"\n## {title}")
    head = f"{'case':24} {unit:>6} {'bytes':>7} {'parse ms':>9} {'stream ms':>10} {'us/token':>9} {'ratio':>6}"
    print(head + (f" {'peg us/tok':>10}" if peg else ""))
    for name, tools, make in cases:
        per: list[float] = []
        for n in sizes:
            text = make(n)
            parse, streamed, per_token, peg_only = measure(name, tools, text, peg=peg)
            per.append(per_token)
            line = (
                f"{label(name, make):24} {n:6} {len(text):7} {parse * 1e3:9.1f} {streamed * 1e3:10.0f} "
                f"{per_token * 1e6:9.1f} {streamed / max(parse, 1e-9):6.0f}"
            )
            print(line + (f" {peg_only * 1e6:10.1f}" if peg else ""))
        if len(per) > 1:
            flat = per[-1] / per[0]
            print(f"{label(name, make):24} flat? us/token at {unit} {sizes[-1]} / at {sizes[0]} = {flat:.2f}")


def compiled_modules() -> str:
    """Which of the modules Cython can compile run compiled here: "compiled (n)", "pure Python" or a mix."""
    import importlib
    import importlib.machinery

    names = ["peg._packrat", "peg._growth", "peg.parser", "chat_formats.stream", "chat_formats.mapper"]
    built = [
        n
        for n in names
        if str(importlib.import_module(n).__file__).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    ]
    if not built:
        return "pure Python (no Cython build: pip install . or scripts/cython_inplace.sh)"
    return f"compiled ({len(built)} of {len(names)} checked)" if len(built) < len(names) else "compiled (Cython)"


def main() -> None:
    """Print the three groups."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, nargs="+", default=[8, 64, 128, 512], help="numbers of calls")
    ap.add_argument("--kb", type=int, nargs="+", default=[5, 50], help="sizes of the long outputs, kB")
    ap.add_argument("--nest-kb", type=int, nargs="+", default=[5, 50], help="sizes of the nested arguments, kB")
    ap.add_argument("--peg", action="store_true", help="also time peg's incremental parse alone")
    ap.add_argument("--shape-kb", type=int, nargs="+", default=[20], help="sizes of the common shapes, kB")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case (the median is printed)")
    ap.add_argument("--only", choices=["shapes", "calls", "long", "nested"], nargs="+", help="run only these groups")
    args = ap.parse_args()
    global REPEAT
    REPEAT = max(1, args.repeat)
    groups = set(args.only or ["shapes", "calls", "long", "nested"])
    print(f"modules: {compiled_modules()}")
    if "shapes" in groups:
        shapes: list[Case] = [
            ("hermes", TOOLS, shape_content),
            ("hermes", TOOLS, shape_reasoning),
            ("hermes", WRITE_TOOLS, shape_hermes_call),
            ("qwen3-coder", WRITE_TOOLS, shape_qwen3_coder),
            ("glm-4.5", WRITE_TOOLS, shape_glm),
            ("gpt-oss", TOOLS, gpt_oss),
        ]
        run_group("common shapes", shapes, args.shape_kb, "kB", peg=args.peg)
    if "calls" in groups:
        calls: list[Case] = [("glm-4.5", TOOLS, glm), ("hermes", TOOLS, hermes), ("qwen3-coder", TOOLS, qwen3_coder)]
        run_group("many calls", calls, args.calls, "calls", peg=args.peg)
    if "long" in groups:
        run_group(
            "long outputs", [("hermes", TOOLS, content), ("gpt-oss", TOOLS, gpt_oss)], args.kb, "kB", peg=args.peg
        )
    if "nested" in groups:
        nested: list[Case] = [("hermes", NEST_TOOLS, hermes_nested), ("kimi-k2", NEST_TOOLS, kimi_nested)]
        run_group("deep nesting", nested, args.nest_kb, "kB", peg=args.peg)


if __name__ == "__main__":
    main()
