"""What a server sends: blank content is null, forced calls mean the output is the call, bounded JSON whitespace,
and ``fmt.accepts`` checks an output against a format's (lazy) grammar."""

from __future__ import annotations

from typing import Any

import pytest

from chat_formats import ChatDelta, get_format
from chat_formats.formats import WITHOUT_CALLS
from tests.chat_formats.samples import SAMPLES, TOOLS

PING = '<tool_call>{"name": "ping", "arguments": {}}</tool_call>'
CALL_CASES = [(fmt, c) for fmt, cases in SAMPLES.items() for c in cases if c.calls]


def _stream(name: str, text: str, **options: Any) -> tuple[list[ChatDelta], Any]:
    fmt = get_format(name, tools=TOOLS, **options)
    stream = fmt.stream()
    deltas: list[ChatDelta] = []
    for ch in text:
        deltas += stream.feed(ch)
    deltas += stream.finish()
    return deltas, stream.message


@pytest.mark.parametrize(
    "text",
    ["\n" + PING, "<think>hm</think>\n\n" + PING, PING + "\n", "<think>hm</think>\n \n", "<think>hm</think>\n"],
)
def test_blank_content_next_to_calls_or_reasoning_is_null_in_parse_and_stream(text: str) -> None:
    assert get_format("hermes", tools=TOOLS).parse(text).content is None
    deltas, message = _stream("hermes", text)
    assert message.content is None
    assert all(d.content is None for d in deltas), "no blank content chunk"


def test_blank_content_is_kept_raw_on_request_and_alone() -> None:
    text = "<think>hm</think>\n\n" + PING
    kept = get_format("hermes", tools=TOOLS, keep_blank_content=True)
    assert kept.parse(text).content == "\n\n"
    assert _stream("hermes", text, keep_blank_content=True)[1].content == "\n\n"
    # Nothing but whitespace (no call, no reasoning): the content is what the model wrote.
    assert get_format("hermes", tools=TOOLS).parse(" \n").content == " \n"
    assert _stream("hermes", " \n")[1].content == " \n"


def test_whitespace_before_real_content_is_sent_with_it() -> None:
    deltas, message = _stream("hermes", "<think>hm</think>\n\nThe answer.")
    assert message.content == "\n\nThe answer."
    assert next(d.content for d in deltas if d.content).startswith("\n\nT")  # held, then sent with the text


@pytest.mark.parametrize("name", ["hermes", "qwen3-coder", "glm-4.5", "mistral-nemo", "llama3", "gpt-oss"])
def test_required_tool_choice_means_the_output_is_the_call(name: str) -> None:
    case = next(c for c in SAMPLES[name] if c.calls and not (c.content or "").strip() and not c.options)
    required = get_format(name, tools=TOOLS, tool_choice="required", **case.options)
    assert required.accepts(case.output)
    assert not required.accepts("Let me check that. " + case.output)
    message = required.parse("Let me check that. " + case.output)
    assert not message.tool_calls and message.warnings  # returned as content, never lost
    assert message.content == "Let me check that. " + case.output
    lenient = get_format(name, tools=TOOLS, tool_choice="required", content_before_forced_calls=True, **case.options)
    if name not in ("llama3", "gpt-oss"):  # their text comes only before a tagged call / as a message block
        assert lenient.accepts("Let me check that. " + case.output)


def test_required_allows_reasoning_before_the_call() -> None:
    fmt = get_format("qwen3", tools=TOOLS, tool_choice="required")
    assert fmt.accepts("<think>Which tool?</think>\n" + PING)
    assert [c.function.name for c in fmt.parse("<think>Which tool?</think>\n" + PING).tool_calls] == ["ping"]


def test_json_wrappers_have_bounded_whitespace_without_vertical_tab_or_form_feed() -> None:
    fmt = get_format("hermes", tools=TOOLS)
    gbnf = fmt.grammar().gbnf
    ping = next(line for line in gbnf.splitlines() if line.startswith("tool-ping ::="))
    assert "{0,24}" in ping and "peg--space " not in ping and "\\x0B" not in ping
    assert fmt.accepts('<tool_call>{"name": "ping",\n  "arguments": {}}</tool_call>')
    assert not fmt.accepts('<tool_call>{"name"\x0b: "ping", "arguments": {}}</tool_call>')
    assert not fmt.accepts('<tool_call>{"name": ' + " " * 30 + '"ping", "arguments": {}}</tool_call>')


@pytest.mark.parametrize(("fmt", "case"), CALL_CASES, ids=lambda x: x if isinstance(x, str) else "")
def test_accepts_the_sample_outputs_lazily(fmt: str, case: Any) -> None:
    assert get_format(fmt, tools=TOOLS, **case.options).accepts(case.output)


@pytest.mark.parametrize("name", ["hermes", "qwen3-coder", "kimi-k2", "deepseek-r1", "gpt-oss"])
def test_accepts_refuses_a_bad_call_but_not_text_without_a_trigger(name: str) -> None:
    fmt = get_format(name, tools=TOOLS)
    assert fmt.accepts("Plain text, no call.")
    if name not in WITHOUT_CALLS:
        bad = {
            "hermes": '<tool_call>{"name": "rm", "arguments": {}}</tool_call>',
            "qwen3-coder": "<tool_call>\n<function=rm>\n</function>\n</tool_call>",
            "kimi-k2": "<|tool_call_begin|>functions.rm:0<|tool_call_argument_begin|>{}<|tool_call_end|>",
            "deepseek-r1": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>rm\n```json\n{}\n```",
            "gpt-oss": "<|start|>assistant<|channel|>commentary to=functions.rm <|constrain|>json<|message|>{}<|call|>",
        }[name]
        assert not fmt.accepts("Sure. " + bad)
