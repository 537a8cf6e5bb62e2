"""Streaming-parse benchmark: a 20 kB model output fed one ~4-character token at a time.

The output has a reasoning block, some content, and one tool call whose JSON arguments carry a long code
string (with the escapes real code produces). We time, in one run on one machine:

* one full parse of the whole text (the baseline),
* streaming it token by token through ``parser.stream()`` (incremental: work proportional to what is new),
* the same with the fast lane a chat stream uses: ``Stream.extend`` takes a token that only lengthens the node
  being written (no parse now, see ``peg._growth``), ``feed`` the others,
* re-parsing every prefix from scratch (what a parser without incremental state must do per token).

Targets (ARCHITECTURE.md): streaming total <= 3x one full parse and <= 25 us per token on average.
Run: ``python benchmarks/stream_bench.py`` (``--quick`` for fewer repetitions). Prints medians of CPU time
(``time.thread_time``: on shared cores other processes do not inflate it) and ratios to the baseline.
"""

from __future__ import annotations

import argparse
import json as _json
import random
import statistics
import time

from peg import (
    Parser,
    atomic,
    end,
    json,
    json_member,
    literal,
    optional,
    rule,
    space,
    tag,
    trigger_rule,
    until,
    zero_or_more,
)


def chat_parser() -> Parser:
    """A Hermes/Qwen-style format: optional <think> block, content, JSON tool calls."""
    name = '"' + atomic(tag("tool-name", literal("write_file"))) + '"'
    call = rule(
        "tool-write-file",
        "{" << json_member("name", name) << "," << json_member("arguments", tag("tool-args", json())) << "}",
    )
    tool_call = trigger_rule("tool-call", "<tool_call>" << call << "</tool_call>")
    return (
        optional("<think>" + tag("reasoning", until("</think>")) + "</think>" + space())
        + tag("content", until("<tool_call>"))
        + zero_or_more(tool_call + space())
        + end()
    )


def sample_output(seed: int = 7) -> str:
    """About 20 kB: ~5 kB reasoning, ~2 kB content, a tool call with ~13 kB of code in a JSON string."""
    rng = random.Random(seed)
    words = [
        "the",
        "file",
        "should",
        "handle",
        "parse",
        "error",
        "value",
        "stream",
        "token",
        "grammar",
        "state",
        "when",
        "then",
        "we",
        "need",
        "to",
    ]

    def prose(n_chars: int) -> str:
        out: list[str] = []
        size = 0
        while size < n_chars:
            w = rng.choice(words)
            out.append(w)
            size += len(w) + 1
            if rng.random() < 0.08:
                out.append(".\n")
        return " ".join(out)

    code_lines: list[str] = []
    while sum(len(x) + 1 for x in code_lines) < 13_000:
        i = len(code_lines)
        code_lines.append(
            rng.choice(
                [
                    f'    value_{i} = parse("{{\\"k\\": {i}}}")  # tab\there',
                    f"def handler_{i}(event, ctx):",
                    f"    if event.kind == 'item_{i}' and ctx.count > {i}:",
                    f"        return [x * {i} for x in ctx.values if x]",
                    "",
                ]
            )
        )
    args = {"path": "src/handlers.py", "content": "\n".join(code_lines)}
    call = _json.dumps({"name": "write_file", "arguments": args})
    return f"<think>{prose(5000)}</think>\n\n{prose(2000)}<tool_call>\n{call}\n</tool_call>"


def tokens_of(text: str, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        k = rng.choice((3, 4, 4, 5))
        out.append(text[i : i + k])
        i += k
    return out


def median_time(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.thread_time()
        fn()  # type: ignore[operator]
        times.append(time.thread_time() - t0)
    return statistics.median(times)


def per_token_medians(parser: Parser, tokens: list[str]) -> tuple[float, float]:
    """Median wall time of one feed among the first and the last 1,000 tokens (medians shrug off preemption)."""
    s = parser.stream()
    times = []
    for piece in tokens:
        t0 = time.perf_counter()
        s.feed(piece)
        times.append(time.perf_counter() - t0)
    return statistics.median(times[:1000]), statistics.median(times[-1000:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args()
    parser = chat_parser()
    text = sample_output()
    tokens = tokens_of(text)
    full = parser.parse(text)
    assert full.success and full.end == len(text), full.error
    assert _json.loads(full.find("tool-args")[0].text)["path"] == "src/handlers.py"

    def stream_all() -> None:
        s = parser.stream()
        for piece in tokens:
            r = s.feed(piece)
            r.nodes  # noqa: B018 - the chat layer reads the nodes after every feed
        assert s.finish() == full

    def stream_with_lane() -> None:
        s = parser.stream()
        for piece in tokens:
            if s.extend(piece) is None:
                s.feed(piece).nodes  # noqa: B018
        assert s.finish() == full

    def reparse_all() -> None:
        acc = ""
        for piece in tokens:
            acc += piece
            parser.parse(acc, partial=True)

    reps = 3 if args.quick else 9
    parser.parse("")  # compile once, outside the timings
    t_full = median_time(lambda: parser.parse(text), reps * 5)
    t_stream = median_time(stream_all, reps)
    t_lane = median_time(stream_with_lane, reps)
    t_reparse = median_time(reparse_all, 1)
    n = len(tokens)
    print(f"output: {len(text):,} chars, {n:,} tokens (3-5 chars each)")
    print(f"{'one full parse':<42} {t_full * 1e3:9.2f} ms")
    print(
        f"{'streaming, all tokens (feed + finish)':<42} {t_stream * 1e3:9.2f} ms"
        f"   = {t_stream / t_full:5.1f}x full parse, {t_stream / n * 1e6:6.2f} us/token"
    )
    print(
        f"{'streaming, extend() where it takes a token':<42} {t_lane * 1e3:9.2f} ms"
        f"   = {t_lane / t_full:5.1f}x full parse, {t_lane / n * 1e6:6.2f} us/token"
    )
    print(
        f"{'re-parse every prefix from scratch':<42} {t_reparse * 1e3:9.2f} ms"
        f"   = {t_reparse / t_full:5.1f}x full parse, {t_reparse / n * 1e6:6.2f} us/token"
    )
    print(f"streaming is {t_reparse / t_stream:.0f}x cheaper than re-parsing every prefix")
    early, late = per_token_medians(parser, tokens)
    print(
        f"median cost of one feed: first 1,000 tokens {early * 1e6:.2f} us, last 1,000 tokens {late * 1e6:.2f} us"
        " (flat: a feed costs what is new, not the output so far)"
    )
    print(
        f"targets: <= 3x full parse: {'met' if t_stream <= 3 * t_full else 'NOT met'}; "
        f"<= 25 us/token: {'met' if t_stream / n <= 25e-6 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
