"""Streaming laws, for every format and test sample (ours and the corpus'):

* any chunking gives the same final message as one parse of the whole output;
* the deltas concatenate to that message (dense indices, first fragment = index + id + type + name, later
  fragments only arguments, role first, reasoning before content within a step, finish_reason last);
* the chunks replay through the ``openai`` package's stream accumulator to the same message.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from chat_formats import ChatDelta, ChatFormat, ChatMessage, get_format
from tests.chat_formats.corpus import JUDGED, load_samples
from tests.chat_formats.samples import SAMPLES, TOOLS

CASES: list[tuple[str, str, dict[str, Any]]] = [
    (fmt, case.output, {"tools": TOOLS, **case.options}) for fmt, cases in SAMPLES.items() for case in cases
]
CASES += [(s.format, s.output, s.options) for s in load_samples() if s.id not in JUDGED]


def _chunks(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def _replay(deltas: list[ChatDelta]) -> dict[str, Any]:
    """Concatenate deltas as a client would, checking the chunk rules on the way."""
    assert deltas[0].role == "assistant" and all(d.role is None for d in deltas[1:])
    assert deltas[-1].finish_reason is not None and all(d.finish_reason is None for d in deltas[:-1])
    content, reasoning = "", ""
    calls: list[dict[str, str]] = []
    for d in deltas:
        content += d.content or ""
        reasoning += d.reasoning_content or ""
        for tc in d.tool_calls:
            if tc.index == len(calls):  # a new call: its first fragment carries everything but the arguments
                assert tc.id and tc.type == "function" and tc.function.name
                calls.append({"id": tc.id, "name": tc.function.name, "arguments": tc.function.arguments or ""})
            else:
                assert tc.index == len(calls) - 1, "calls are streamed one after another, indices dense"
                assert tc.id is None and tc.type is None and tc.function.name is None
                calls[tc.index]["arguments"] += tc.function.arguments or ""
    return {"content": content or None, "reasoning": reasoning or None, "calls": calls}


def _as_dict(m: ChatMessage) -> dict[str, Any]:
    calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments} for c in m.tool_calls]
    return {"content": m.content, "reasoning": m.reasoning_content, "calls": calls}


def _check(fmt: ChatFormat, text: str, pieces: list[str]) -> None:
    stream = fmt.stream()
    expected = fmt.parse(text, salt=stream.salt)
    deltas: list[ChatDelta] = []
    for piece in pieces:
        deltas += stream.feed(piece)
    deltas += stream.finish()
    assert _as_dict(stream.message) == _as_dict(expected)
    assert not [w for w in stream.message.warnings if w.startswith("stream:")]
    assert _replay(deltas) == _as_dict(expected)
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in stream.chunks(deltas):
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    final = state.get_final_completion().choices[0]
    got = final.message
    assert (got.content or None) == expected.content
    assert (got.model_extra or {}).get("reasoning_content") == expected.reasoning_content
    assert [(c.id, c.function.name, c.function.arguments) for c in got.tool_calls or []] == [
        (c.id, c.function.name, c.function.arguments) for c in expected.tool_calls
    ]
    assert final.finish_reason == ("tool_calls" if expected.tool_calls else "stop")


@pytest.mark.parametrize(
    ("name", "text", "options"), CASES, ids=lambda x: x if isinstance(x, str) and len(x) < 15 else ""
)
def test_char_by_char_stream_equals_parse(name: str, text: str, options: dict[str, Any]) -> None:
    _check(get_format(name, **options), text, list(text))


@pytest.mark.parametrize(
    ("name", "text", "options"), CASES, ids=lambda x: x if isinstance(x, str) and len(x) < 15 else ""
)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_any_chunking_gives_the_same_message(name: str, text: str, options: dict[str, Any], cuts: list[int]) -> None:
    _check(get_format(name, **options), text, _chunks(text, cuts))


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
    assert _as_dict(stream.message) == _as_dict(parsed)
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
    _check(fmt, text, list(text))


_JUNK = st.sampled_from(["x", "}", '"', "{", "]", "[", ",", " ", "\n", "<", ">", "n", "t", "1", "-", ".", "\\", "é"])
_EDIT = st.tuples(st.integers(min_value=0, max_value=10_000), st.sampled_from(["insert", "delete", "cut"]), _JUNK)


@pytest.mark.parametrize("name", sorted(SAMPLES))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_outputs_stream_to_their_final_parse(name: str, data: st.DataObject) -> None:
    """Any text, not only well-formed output: a sample damaged by a few edits streams to its own final parse."""
    case = data.draw(st.sampled_from(SAMPLES[name]))
    text = case.output
    for where, how, junk in data.draw(st.lists(_EDIT, min_size=1, max_size=3)):
        k = where % (len(text) + 1)
        text = (
            text[:k] + junk + text[k:] if how == "insert" else text[:k] + text[k + 1 :] if how == "delete" else text[:k]
        )
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=10_000), max_size=8))
    _check(get_format(name, tools=TOOLS, **case.options), text, _chunks(text, cuts) if cuts else list(text))
