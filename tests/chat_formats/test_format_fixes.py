"""Outputs written from upstream tests and format descriptions that the formats once got wrong: gpt-oss
recipients in the role header and calls closed by ``<|end|>``, Qwen3-Coder ``null`` for nullable parameters,
LFM2 text after the call block, MiMo-V2-Flash's several calls in one ``<tool_call>``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chat_formats import ChatMessage, get_format
from gbnf_backend import Grammar
from tests.chat_formats.support import trigger_start


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}


def _calls(m: ChatMessage) -> list[tuple[str, Any]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in m.tool_calls]


def _streamed(fmt_name: str, tools: list[dict[str, Any]], text: str) -> tuple[str, str]:
    """(content, last call's arguments) as a stream fed one character at a time shows them."""
    stream = get_format(fmt_name, tools=tools).stream()
    deltas = [d for ch in text for d in stream.feed(ch)] + stream.finish()
    content = "".join(d.content or "" for d in deltas)
    args = "".join(tc.function.arguments or "" for d in deltas for tc in d.tool_calls or [] if tc.function)
    return content, args


def _forced_accepts(fmt_name: str, tools: list[dict[str, Any]], text: str) -> bool:
    """Whether the forced grammar (content allowed before the calls) accepts ``text``."""
    fmt = get_format(fmt_name, tools=tools, tool_choice="required", content_before_forced_calls=True)
    return Grammar.from_gbnf(fmt.grammar().gbnf).matches(text)


def _lazy_accepts(fmt_name: str, tools: list[dict[str, Any]], text: str) -> bool:
    """Whether the lazy grammar accepts ``text`` from where its trigger fires."""
    lazy = get_format(fmt_name, tools=tools).grammar()
    start = trigger_start(lazy, text)
    return lazy.lazy and start >= 0 and Grammar.from_gbnf(lazy.gbnf).matches(text[start:])


# --- gpt-oss -----------------------------------------------------------------------------------------------------
WEATHER = [_tool("get_weather", {"city": {"type": "string"}})]
HARMONY = [
    # The recipient in the role header and the content type as a bare word, as the chat template renders a call.
    '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>',
    "<|channel|>analysis<|message|>Look it up.<|end|><|start|>assistant to=functions.get_weather<|channel|>"
    'commentary json<|message|>{"city": "Paris"}<|call|>',
    # A call closed by <|end|> instead of <|call|> (openai-harmony parses it as a call).
    '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|end|>',
    "<|channel|>analysis<|message|>Look it up.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather"
    ' json<|message|>{"city": "Paris"}<|end|><|start|>assistant<|channel|>final<|message|>Done.<|return|>',
]


@pytest.mark.parametrize("text", HARMONY)
def test_gpt_oss_reads_role_header_recipients_and_calls_closed_by_end(text: str) -> None:
    message = get_format("gpt-oss", tools=WEATHER).parse(text)
    assert message.warnings == []
    assert _calls(message) == [("get_weather", {"city": "Paris"})]
    assert message.reasoning_content in (None, "Look it up.")
    assert message.content in (None, "Done.")
    if message.content is None:  # the grammars end at the calls: a final message after them is not constrained
        assert _lazy_accepts("gpt-oss", WEATHER, text)
        assert _forced_accepts("gpt-oss", WEATHER, text)


def test_gpt_oss_bare_content_type_needs_a_space() -> None:
    text = '<|channel|>commentary to=functions.get_weather json<|message|>{"city": "Paris"}<|call|>'
    assert _calls(get_format("gpt-oss", tools=WEATHER).parse(text)) == [("get_weather", {"city": "Paris"})]
    glued = '<|start|>assistant to=functions.get_weather<|channel|>commentaryjson<|message|>{"city": "Paris"}<|call|>'
    assert get_format("gpt-oss", tools=WEATHER).parse(glued).warnings != []


# --- qwen3-coder -------------------------------------------------------------------------------------------------
NULLABLE = [
    _tool(
        "save",
        {
            "note": {"type": ["string", "null"]},
            "tag": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "kind": {"enum": ["a", "b", None]},
            "title": {"type": "string"},
            "count": {"type": ["integer", "null"]},
        },
    )
]


def _xml(**params: str) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params.items())
    return f"<tool_call>\n<function=save>\n{body}</function>\n</tool_call>"


def test_qwen3_coder_null_for_a_nullable_parameter_is_json_null() -> None:
    text = _xml(note="null", tag="null", kind="null", title="null", count="null")
    message = get_format("qwen3-coder", tools=NULLABLE).parse(text)
    assert message.warnings == []
    assert _calls(message) == [("save", {"note": None, "tag": None, "kind": None, "title": "null", "count": None})]
    assert _forced_accepts("qwen3-coder", NULLABLE, text)


def test_qwen3_coder_text_starting_with_null_stays_a_string() -> None:
    text = _xml(note="nullable", tag="null and void")
    assert _calls(get_format("qwen3-coder", tools=NULLABLE).parse(text)) == [
        ("save", {"note": "nullable", "tag": "null and void"})
    ]


def test_qwen3_coder_null_streams_as_the_final_parse() -> None:
    text = _xml(note="null", title="x")
    _, args = _streamed("qwen3-coder", NULLABLE, text)
    assert json.loads(args) == {"note": None, "title": "x"}


# --- lfm2 --------------------------------------------------------------------------------------------------------
STATUS = [_tool("get_candidate_status", {"candidate_id": {"type": "string"}})]
LFM2_CALL = "<|tool_call_start|>[get_candidate_status(candidate_id='12345')]<|tool_call_end|>"


@pytest.mark.parametrize("before", ["", "Let me check. "])
def test_lfm2_text_after_the_call_block_is_content_and_the_grammar_accepts_it(before: str) -> None:
    text = before + LFM2_CALL + "\nDone."
    fmt = get_format("lfm2", tools=STATUS)
    message = fmt.parse(text)
    assert message.warnings == []
    assert _calls(message) == [("get_candidate_status", {"candidate_id": "12345"})]
    assert message.content == before + "\nDone."
    assert _streamed("lfm2", STATUS, text)[0] == message.content
    assert _lazy_accepts("lfm2", STATUS, text)
    assert _forced_accepts("lfm2", STATUS, text)


def test_lfm2_text_after_an_unclosed_call_list_still_does_not_fit() -> None:
    text = "<|tool_call_start|>[get_candidate_status(candidate_id='1')] and more"
    assert get_format("lfm2", tools=STATUS).parse(text).warnings != []


# --- MiMo-V2-Flash -----------------------------------------------------------------------------------------------
TWO = [_tool("get_weather", {"city": {"type": "string"}}), _tool("get_time", {"city": {"type": "string"}})]
F1 = "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>"
F2 = "<function=get_time>\n<parameter=city>\nLyon\n</parameter>\n</function>"


@pytest.mark.parametrize(
    "text",
    [
        f"<tool_call>\n{F1}\n{F2}\n</tool_call>",
        f"<tool_call>\n{F1}\n</tool_call>\n<tool_call>\n{F2}\n</tool_call>",
        f"<think>Two lookups. <tool_call></think>\n<tool_call>\n{F1}\n{F2}\n</tool_call>",
    ],
)
def test_mimo_v2_two_functions_give_two_calls(text: str) -> None:
    message = get_format("mimo-v2", tools=TWO).parse(text)
    assert message.warnings == []
    assert _calls(message) == [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Lyon"})]
    if text.startswith("<think>"):
        assert message.reasoning_content == "Two lookups. <tool_call>"  # a quoted opener stays reasoning
    assert _forced_accepts("mimo-v2", TWO, text)


def test_mimo_v2_without_parallel_calls_reads_one() -> None:
    fmt = get_format("mimo-v2", tools=TWO, parallel_tool_calls=False)
    message = fmt.parse(f"<tool_call>\n{F1}\n{F2}\n</tool_call>")
    assert [c.function.name for c in message.tool_calls] == ["get_weather"] and message.warnings != []
