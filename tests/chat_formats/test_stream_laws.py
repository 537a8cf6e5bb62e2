"""Streaming laws, for every format and test sample (ours and the corpus'):

* any chunking gives the same final message as one parse of the whole output;
* the deltas concatenate to that message (dense indices, first fragment = index + id + type + name, later
  fragments only arguments, role first, reasoning before content within a step, finish_reason last);
* the chunks replay through the ``openai`` package's stream accumulator to the same message.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chat_formats import get_format
from tests.chat_formats.corpus import JUDGED, load_samples
from tests.chat_formats.samples import SAMPLES, TOOLS
from tests.chat_formats.support import EDITS, as_message_dict, check_stream, chunks

CASES: list[tuple[str, str, dict[str, Any]]] = [
    (fmt, case.output, {"tools": TOOLS, **case.options}) for fmt, cases in SAMPLES.items() for case in cases
]
CASES += [(s.format, s.output, s.options) for s in load_samples() if s.id not in JUDGED]


@pytest.mark.parametrize(
    ("name", "text", "options"), CASES, ids=lambda x: x if isinstance(x, str) and len(x) < 15 else ""
)
def test_char_by_char_stream_equals_parse(name: str, text: str, options: dict[str, Any]) -> None:
    check_stream(get_format(name, **options), text, list(text))


@pytest.mark.parametrize(
    ("name", "text", "options"), CASES, ids=lambda x: x if isinstance(x, str) and len(x) < 15 else ""
)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_any_chunking_gives_the_same_message(name: str, text: str, options: dict[str, Any], cuts: list[int]) -> None:
    check_stream(get_format(name, **options), text, chunks(text, cuts))


def test_finish_length_and_named_choice() -> None:
    out = '<tool_call>{"name": "ping", "arguments": {}}</tool_call>'
    stream = get_format("hermes", tools=TOOLS).stream()
    stream.feed(out[:20])
    assert stream.finish(length=True)[-1].finish_reason == "length"
    named = get_format("hermes", tools=TOOLS, tool_choice="ping").stream()
    named.feed(out)
    assert named.finish()[-1].finish_reason == "stop"
    assert [c.function.name for c in named.message.tool_calls] == ["ping"]


def test_marker_prefix_is_held_back_not_retracted() -> None:
    stream = get_format("hermes", tools=TOOLS).stream()
    sent = [d.content for piece in ("Hi <tool", "_c") for d in stream.feed(piece) if d.content]
    assert sent == ["Hi "]
    sent += [d.content for d in stream.feed("ar") if d.content]  # "<tool_car" is no marker: released as content
    assert "".join(sent) == "Hi <tool_car"


@pytest.mark.parametrize(
    ("out", "content", "calls"),
    [
        ("Hi<tool_call>\n<oops>\n</tool_call> and more", "Hi<tool_call>\n<oops>\n</tool_call> and more", []),
        # The call was published (its name was complete) before the output went wrong: it stays, incomplete.
        # Everything after its name is returned as content (nothing of the output is dropped).
        ("Hi<tool_call>\n<function=get_weather>\n<oops>\n</tool_call>!", "Hi\n<oops>\n</tool_call>!", ["get_weather"]),
    ],
)
def test_malformed_output_streams_as_content_without_raising(out: str, content: str, calls: list[str]) -> None:
    fmt = get_format("qwen3-coder", tools=TOOLS)
    stream = fmt.stream()
    for ch in out:
        stream.feed(ch)
    stream.finish()
    parsed = fmt.parse(out, salt=stream.salt)
    assert as_message_dict(stream.message) == as_message_dict(parsed)
    assert parsed.content == content and [c.function.name for c in parsed.tool_calls] == calls
    assert any("does not fit" in w for w in parsed.warnings)
    assert not calls or any("incomplete" in w for w in parsed.warnings)


def test_reasoning_field_name_is_configurable() -> None:
    stream = get_format("qwen3").stream(reasoning_field="reasoning")
    deltas = stream.feed("<think>a</think>b") + stream.finish()
    chunks = stream.chunks(deltas)
    assert any("reasoning" in c["choices"][0]["delta"] for c in chunks)  # type: ignore[index]
    assert not any("reasoning_content" in c["choices"][0]["delta"] for c in chunks)  # type: ignore[index]


MALFORMED = [
    ("hermes", '<tool_call>{"name": "ping", "arguments": nope}</tool_call>'),
    ("hermes", '<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2, "exact": tru}}</tool_call>'),
    ("hermes", '<tool_call>{"name": "add", "arguments": {"a": 1x, "b": 2}}</tool_call>'),
    ("hermes", '<tool_call>{"name": "ping_all", "arguments": {"n": [1, 2,]}}</tool_call>'),
    ("mistral-nemo", '[TOOL_CALLS][{"name": "ping", "arguments": nul}]'),
    (
        "kimi-k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.ping:0<|tool_call_argument_begin|>fals"
        "<|tool_call_end|><|tool_calls_section_end|>",
    ),
    ("firefunction-v2", ' functools[{"name": "ping", "arguments": nah}]'),
    ("granite", '<|tool_call|>[{"name": "add", "arguments": {"a": -, "b": 1}}]'),
]


@pytest.mark.parametrize(("name", "text"), MALFORMED)
def test_malformed_outputs_stream_to_their_final_parse(name: str, text: str) -> None:
    """A value that breaks later (``nope`` after ``n``) is never shown early: the stream equals the parse."""
    fmt = get_format(name, tools=TOOLS)
    assert fmt.parse(text).warnings  # really malformed
    check_stream(fmt, text, list(text))


@pytest.mark.parametrize("name", sorted(SAMPLES))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_outputs_stream_to_their_final_parse(name: str, data: st.DataObject) -> None:
    """Any text, not only well-formed output: a sample damaged by a few edits streams to its own final parse."""
    case = data.draw(st.sampled_from(SAMPLES[name]))
    text = case.output
    for where, how, junk in data.draw(st.lists(EDITS, min_size=1, max_size=3)):
        k = where % (len(text) + 1)
        text = (
            text[:k] + junk + text[k:] if how == "insert" else text[:k] + text[k + 1 :] if how == "delete" else text[:k]
        )
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=10_000), max_size=8))
    check_stream(get_format(name, tools=TOOLS, **case.options), text, chunks(text, cuts) if cuts else list(text))
