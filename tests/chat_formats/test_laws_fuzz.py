"""The two output laws under damage, for every format, over its samples (ours and the corpus'):

(a) nothing is lost: a unique marker string (``QZ1X``) inserted anywhere in an output — inside a value, a name,
    an id, a format marker, whitespace — reappears in the message: in the content, the reasoning, a tool name,
    an id or the arguments (a malformed call is returned as content, with a warning);
(b) any chunking of a stream (one character at a time, random cuts) gives the final parse.

Damage besides the inserted markers: a format marker duplicated, a format marker cut short, the output cut off.
``PEGCHAT_FUZZ_EXAMPLES`` raises the number of examples per format (the suite runs a modest number; a fuzz
campaign runs thousands: ``PEGCHAT_FUZZ_EXAMPLES=5000 pytest tests/chat_formats/test_laws_fuzz.py``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chat_formats import ChatFormat, ChatMessage, available_formats, get_format
from tests.chat_formats.corpus import load_samples
from tests.chat_formats.samples import SAMPLES, TOOLS

EXAMPLES = int(os.environ.get("PEGCHAT_FUZZ_EXAMPLES", "15"))
MARKERS = ("QZ1X", "QZ2X", "QZ3X")

_OUTPUTS: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
for _fmt, _cases in SAMPLES.items():
    _OUTPUTS[_fmt] += [(c.output, {"tools": TOOLS, **c.options}) for c in _cases]
for _s in load_samples():
    _OUTPUTS[_s.format].append((_s.output, _s.options))


def _fields(m: ChatMessage) -> str:
    """Every text of the message a character of the output may end up in (arguments also JSON-decoded)."""
    parts = [m.content or "", m.reasoning_content or ""]
    for c in m.tool_calls:
        parts += [c.id, c.function.name, c.function.arguments]
        with contextlib.suppress(ValueError):
            parts.append(json.dumps(json.loads(c.function.arguments), ensure_ascii=False))
    return "\x00".join(parts)


def _as_tuple(m: ChatMessage) -> tuple[Any, ...]:
    return (
        m.content,
        m.reasoning_content,
        [(c.id, c.function.name, c.function.arguments) for c in m.tool_calls],
    )


def _streamed(fmt: ChatFormat, pieces: list[str]) -> tuple[ChatMessage, ChatMessage]:
    """The stream's message over ``pieces`` and the one-shot parse of their text (same id salt)."""
    stream = fmt.stream()
    for piece in pieces:
        stream.feed(piece)
    stream.finish()
    return stream.message, fmt.parse("".join(pieces), salt=stream.salt)


@st.composite
def damaged(draw: st.DrawFn, name: str) -> tuple[str, dict[str, Any], list[str]]:
    """A sample of ``name`` with markers inserted and maybe a format marker duplicated or cut, or the end cut."""
    text, options = draw(st.sampled_from(_OUTPUTS[name]))
    fmt = get_format(name, **options)
    tokens = [t for t in fmt.definition.preserved_tokens if t in text]
    if tokens and draw(st.booleans()):
        token = draw(st.sampled_from(tokens))
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()):  # duplicate a format marker somewhere
            text = text[:at] + token + text[at:]
        else:  # cut one occurrence of a marker short
            start = text.find(token)
            keep = draw(st.integers(1, max(1, len(token) - 1)))
            text = text[: start + keep] + text[start + len(token) :]
    inserted: list[str] = []
    for marker in MARKERS[: draw(st.integers(1, len(MARKERS)))]:
        at = draw(st.integers(0, len(text)))
        pad = draw(st.sampled_from(["", " ", "\n"]))
        text = text[:at] + pad + marker + pad + text[at:]
        inserted.append(marker)
    if draw(st.integers(0, 3)) == 0:  # the output cut off
        text = text[: draw(st.integers(0, len(text)))]
    return text, options, [m for m in inserted if m in text]


@pytest.mark.parametrize("name", sorted(available_formats()))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_damaged_outputs_lose_nothing_and_stream_to_their_parse(name: str, data: st.DataObject) -> None:
    text, options, markers = data.draw(damaged(name))
    fmt = get_format(name, **options)
    message = fmt.parse(text)
    fields = _fields(message)
    lost = [m for m in markers if m not in fields]
    assert not lost, (text, message)
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=6))) | {0, len(text)})
    pieces = [text[a:b] for a, b in itertools.pairwise(cuts)]
    for chunks in (list(text), pieces):
        streamed, parsed = _streamed(fmt, chunks)
        assert _as_tuple(streamed) == _as_tuple(parsed), (text, chunks)


TYPED = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}},
    },
]

KNOWN = [
    # Positional and comma-less pythonic arguments.
    ("pythonic", "[get_weather(city)]", ["city"]),
    ("pythonic", '[get_weather(city="Paris" unit="c")]', ["Paris", "unit"]),
    ("lfm2", '<|tool_call_start|>[get_weather(city="Paris" unit="c")]<|tool_call_end|>', ["Paris", "unit"]),
    # A truncated XML call keeps its unfinished value.
    ("qwen3-coder", "<tool_call>\n<function=f>\n<parameter=a>\n12345 hello world", ["12345 hello world"]),
    ("seed-oss", "<seed:tool_call>\n<function=f>\n<parameter=a>\n12345 hello world", ["12345 hello world"]),
    ("glm-4.5", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>12345 hello world", ["12345 hello world"]),
    ("minimax-m2", '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">12345 hello', ["12345 hello"]),
    # A GLM closer cut by a marker.
    ("glm-4.5", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_valu QZ1X e>\n</tool_call>", ["QZ1X"]),
    # Mistral ids that are not 9 alphanumerics.
    ("mistral-nemo", '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "id": "abcdefghij"}]', ["abcdefghij"]),
    ("mistral-nemo", '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "id": "abQZ1Xcdefghi"}]', ["QZ1X"]),
    # Whitespace before JSON arguments: the stream must not take what the parse refuses.
    ("deepseek-v3.1", '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>\n{"a": 1}<｜tool▁call▁end｜>', []),
    ("ministral-3", '[TOOL_CALLS]f[ARGS]\n{"a": 1}', []),
    ("kimi-k2", '<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>\n{"a": 1}<|tool_call_end|>', []),
    ("gpt-oss", '<|channel|>commentary to=functions.f <|constrain|>json<|message|>\n{"a": 1}\n<|call|>', []),
]


@pytest.mark.parametrize(("name", "text", "kept"), KNOWN)
def test_known_damage_loses_nothing_and_streams_to_its_parse(name: str, text: str, kept: list[str]) -> None:
    fmt = get_format(name, tools=TYPED)
    message = fmt.parse(text)
    assert all(k in _fields(message) for k in kept), message
    if kept:
        assert message.warnings  # damage is reported
    for chunks in (list(text), [text]):
        streamed, parsed = _streamed(fmt, chunks)
        assert _as_tuple(streamed) == _as_tuple(parsed)
