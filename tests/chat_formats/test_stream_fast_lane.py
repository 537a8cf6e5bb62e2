"""The stream's fast lane (text that only extends the node being written skips the parse) sends exactly the
deltas of the ordinary path, for every format's samples (ours and the corpus'), damaged outputs and random
chunkings; and it does take most feeds of the long texts it is for."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chat_formats.stream as stream_module
from chat_formats import ChatDelta, ChatFormat, get_format
from tests.chat_formats.corpus import JUDGED, load_samples
from tests.chat_formats.samples import SAMPLES, TOOLS
from tests.chat_formats.support import as_message_dict, check_stream, chunks, stream_deltas

CASES: list[tuple[str, str, dict[str, Any]]] = [
    (fmt, case.output, {"tools": TOOLS, **case.options}) for fmt, cases in SAMPLES.items() for case in cases
]
CASES += [(s.format, s.output, s.options) for s in load_samples() if s.id not in JUDGED]
SALT = "0123456789abcdef"
WRITE_TOOLS = [t for t in TOOLS if t["function"]["name"] == "write_file"]


def _same_deltas(fmt: ChatFormat, pieces: list[str]) -> None:
    fast = stream_deltas(fmt, pieces, fast=True)
    slow = stream_deltas(fmt, pieces, fast=False)
    assert fast == slow
    assert fast[1] == as_message_dict(fmt.parse("".join(pieces), salt=SALT))


@pytest.fixture(autouse=True)
def _fixed_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    """One salt for every stream, so the generated call ids of the two paths agree."""
    monkeypatch.setattr(stream_module, "new_salt", lambda: SALT)


@pytest.mark.parametrize(
    ("name", "text", "options"), CASES, ids=lambda x: x if isinstance(x, str) and len(x) < 15 else ""
)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40),
    insert=st.one_of(st.none(), st.tuples(st.integers(min_value=0), st.integers(min_value=0), st.integers(1, 12))),
)
def test_fast_lane_sends_the_deltas_of_the_ordinary_path(
    name: str, text: str, options: dict[str, Any], cuts: list[int], insert: tuple[int, int, int] | None
) -> None:
    if insert is not None:  # a piece of the output copied elsewhere: duplicated or cut markers
        where, src, size = insert
        at, frm = where % (len(text) + 1), src % (len(text) + 1)
        text = text[:at] + text[frm : frm + size] + text[at:]
    _same_deltas(get_format(name, **options), chunks(text, cuts))


@pytest.mark.parametrize(
    ("name", "text", "options"), CASES, ids=lambda x: x if isinstance(x, str) and len(x) < 15 else ""
)
def test_fast_lane_one_character_at_a_time(name: str, text: str, options: dict[str, Any]) -> None:
    _same_deltas(get_format(name, **options), list(text))


LONG = "The quick brown fox jumps over the lazy dog, then writes a line of text.\n" * 40
NESTED = "[" * 400 + '["x", {"k": [1, 2]}], ' * 3 + "[]" + "]" * 400  # deep nesting: runs of brackets
CODE = 'def f(x):\n    return "a\\b" + x  # tab\there\n' * 60
LONG_CASES = [
    ("hermes", [], LONG),
    ("hermes", [], f"<think>{LONG}</think>\n\n{LONG}"),
    (
        "hermes",
        WRITE_TOOLS,
        '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.py", "content": "'
        + LONG.replace("\n", "\\n")
        + '"}}\n</tool_call>',
    ),
    (
        "qwen3-coder",
        WRITE_TOOLS,
        f"<tool_call>\n<function=write_file>\n<parameter=content>\n{CODE}\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        "glm-4.5",
        WRITE_TOOLS,
        f"<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>{CODE}</arg_value>\n</tool_call>",
    ),
    ("gpt-oss", [], f"<|channel|>analysis<|message|>{LONG}<|end|><|start|>assistant<|channel|>final<|message|>{LONG}"),
    (
        "hermes",
        WRITE_TOOLS,
        '<tool_call>\n{"name": "write_file", "arguments": {"path": ' + NESTED + "}}\n</tool_call>",
    ),
    (
        "kimi-k2",
        WRITE_TOOLS,
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>"
        + '{"path": '
        + NESTED
        + "}<|tool_call_end|><|tool_calls_section_end|>",
    ),
    # Whitespace before a call is held back (the content is out of sync with what was sent): the lane still
    # takes the call's string value.
    (
        "qwen3-coder",
        WRITE_TOOLS,
        f"\n\n<tool_call>\n<function=write_file>\n<parameter=content>\n{CODE}\n</parameter>\n</function>\n</tool_call>",
    ),
    # A content of which nothing was sent: held whitespace, then text.
    ("hermes", [], "\n \n\n" + " " * 40 + LONG),
    # The arguments of a call whose id comes after them (not published until then): nothing to send, no parse.
    (
        "mistral-nemo",
        WRITE_TOOLS,
        '[TOOL_CALLS][{"name": "write_file", "arguments": {"path": "a.py", "content": "'
        + LONG.replace("\n", "\\n")
        + '"}, "id": "abc123XYZ"}]',
    ),
]


class _CountingParser:
    """A stream's peg parser, counting its parses (``feed``): wraps it (a compiled parser has no settable
    methods)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.parsed = 0

    def feed(self, more: str) -> Any:
        self.parsed += 1
        return self.inner.feed(more)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize(("name", "tools", "text"), LONG_CASES, ids=lambda x: x if isinstance(x, str) else "")
def test_fast_lane_takes_most_feeds_of_a_long_text(name: str, tools: list[dict[str, Any]], text: str) -> None:
    fmt = get_format(name, tools=tools)
    stream = fmt.stream()
    counted = stream._peg = _CountingParser(stream._peg)
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    for piece in pieces:
        stream.feed(piece)
    stream.finish()
    assert counted.parsed < len(pieces) // 4  # the ordinary path parses every feed
    assert as_message_dict(stream.message) == as_message_dict(fmt.parse(text, salt=SALT))
    _same_deltas(fmt, pieces)


def test_deltas_built_without_validation_equal_validated_ones() -> None:
    """The stream's hot path builds deltas without pydantic validation: they equal the validated ones, with the
    same fields set (what ``model_dump(exclude_unset=True)`` and the chunks show)."""
    from chat_formats._deltas import arguments_delta, call_start_delta, text_delta
    from chat_formats.messages import DeltaFunction, DeltaToolCall

    pairs = [
        (text_delta("content", "hé"), ChatDelta(content="hé")),
        (text_delta("reasoning_content", "r"), ChatDelta(reasoning_content="r")),
        (
            arguments_delta(2, '{"a'),
            ChatDelta(tool_calls=[DeltaToolCall(index=2, function=DeltaFunction(arguments='{"a'))]),
        ),
        (
            call_start_delta(1, "call_x", "f", ""),
            ChatDelta(
                tool_calls=[
                    DeltaToolCall(index=1, id="call_x", type="function", function=DeltaFunction(name="f", arguments=""))
                ]
            ),
        ),
    ]
    for built, validated in pairs:
        assert type(built) is ChatDelta
        assert built == validated
        assert built.model_fields_set == validated.model_fields_set
        assert built.model_dump() == validated.model_dump()
        assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
        assert built.delta_dict(reasoning_field="reasoning") == validated.delta_dict(reasoning_field="reasoning")
        assert built.to_chunk() == validated.to_chunk()
        assert built.model_dump_json() == validated.model_dump_json()
        assert pickle.loads(pickle.dumps(built)) == validated
        assert copy.deepcopy(built) == validated and built.model_copy() == validated
        assert built.__pydantic_extra__ is None and built.__pydantic_private__ is None
        for new, old in zip(built.tool_calls, validated.tool_calls, strict=True):
            assert type(new) is DeltaToolCall and type(new.function) is DeltaFunction
            assert new.model_fields_set == old.model_fields_set
            assert new.function.model_fields_set == old.function.model_fields_set


def _parses(fmt: ChatFormat, pieces: list[str]) -> list[int]:
    """For each piece fed, whether the stream parsed it (1) or the fast lane took it (0)."""
    stream = fmt.stream()
    counted = stream._peg = _CountingParser(stream._peg)
    out = []
    for piece in pieces:
        before = counted.parsed
        stream.feed(piece)
        out.append(counted.parsed - before)
    return out


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("hermes", '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'),
        ("kimi-k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}"),
        ("hermes", "\n\n  \n<tool_call>"),
    ],
)
def test_fast_lane_takes_a_marker_written_before_any_content(name: str, text: str) -> None:
    """Nothing sent of the content yet (a marker at the start of the output, held back while it may still be
    one, or whitespace held back): after the first feed the lane takes most of the marker's characters."""
    fmt = get_format(name, tools=TOOLS)
    marker = text.index("<")
    pieces = list(text[: marker + 9])
    assert sum(_parses(fmt, pieces)[marker + 1 :]) <= 2  # (peg parses where its live path changes)
    _same_deltas(fmt, list(text))


@pytest.mark.parametrize("prefix", ["", "\n", " \n "])
@pytest.mark.parametrize("keep", [False, True])
def test_fast_lane_sends_a_first_content_as_the_ordinary_path(prefix: str, keep: bool) -> None:
    """The content's first growth on the lane: whitespace is held back (or sent, ``keep_blank_content``), the
    first text is sent with all the whitespace before it; the same deltas as the ordinary path."""
    fmt = get_format("hermes", tools=TOOLS, keep_blank_content=keep)
    for text in (prefix + "  \n hello there, a long line", prefix + "  \n", prefix + " <tool_call>"):
        _same_deltas(fmt, list(text))
        _same_deltas(fmt, chunks(text, [1, 3, 4, 9]))


@pytest.mark.parametrize("name", ["qwen3", "glm-4.5", "seed-oss"])
@pytest.mark.parametrize(
    "text", ["<b>bold</b> and </think>done", "  \n plan</think>\n\nThe answer.", "\n\n", "x", " <tool_call>"]
)
def test_fast_lane_sends_the_content_prefix_with_the_first_content(name: str, text: str) -> None:
    """Reasoning kept in the content of a prompt that opened it: the prompt's opener is sent in front of the
    first content, on the lane as on the ordinary path (``<b``: the lane's first growth of a content held while
    it may be a marker)."""
    fmt = get_format(name, tools=TOOLS, reasoning_format="none", thinking_forced_open=True)
    assert fmt.assembler.definition.content_prefix
    _same_deltas(fmt, list(text))
    _same_deltas(fmt, chunks(text, [2, 5]))


def test_deltas_are_independent_under_mutation() -> None:
    """Each built delta owns its lists, sets and nested models: changing one leaves the next one as built."""
    from chat_formats._deltas import arguments_delta, call_start_delta, text_delta

    for build in (
        lambda: text_delta("content", "a"),
        lambda: text_delta("reasoning_content", "a"),
        lambda: arguments_delta(0, "a"),
        lambda: call_start_delta(0, "id", "f", "a"),
    ):
        first, second = build(), build()
        pristine = second.model_dump()
        first.model_fields_set.add("role")
        first.tool_calls.append(arguments_delta(9, "x").tool_calls[0])
        for call in first.tool_calls[:1]:
            call.function.arguments = "changed"
            call.model_fields_set.add("id")
            call.function.model_fields_set.add("name")
        first.content = "changed"
        assert second.model_dump() == pristine
        assert build() == second
        assert build().model_fields_set == second.model_fields_set
        for new, old in zip(build().tool_calls, second.tool_calls, strict=True):
            assert new.model_fields_set == old.model_fields_set
            assert new.function.model_fields_set == old.function.model_fields_set


@given(st.text())
def test_string_value_pieces_are_escaped_as_json_dumps_escapes_them(text: str) -> None:
    """An XML-style string value is sent as the inside of a JSON string literal, piece by piece (non-ASCII kept):
    a piece that needs no escape is sent as it is."""
    import json

    assert stream_module._json_body(text) == json.dumps(text, ensure_ascii=False)[1:-1]


_CALLS = {
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "x\\ty"}}\n</tool_call>\n',
    "qwen3-coder": (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nx\ty\n</parameter>\n</function>\n</tool_call>\n"
    ),
    "glm-4.5": "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>x\ty</arg_value>\n</tool_call>\n",
}


@pytest.mark.parametrize("name", sorted(_CALLS))
@pytest.mark.parametrize("prefix", ["\n\n", " \n", "Sure.\n\n"])
@pytest.mark.parametrize("step", [1, 4, 7])
@pytest.mark.parametrize("suffix", ["", "\nDone."])
def test_calls_after_held_blank_content_stream_as_parsed(name: str, prefix: str, step: int, suffix: str) -> None:
    """Blank content before calls is held back (out of sync with what was sent) while the calls stream, on the
    lane and on the ordinary path: the same deltas either way, adding up to the parse (text after the calls does
    not fit these formats: the fallback's content)."""
    fmt = get_format(name, tools=TOOLS)
    text = prefix + _CALLS[name] * 3 + suffix
    pieces = [text[i : i + step] for i in range(0, len(text), step)]
    check_stream(fmt, text, pieces)
    _same_deltas(fmt, pieces)


MANY_CALLS = {
    "glm-4.5": lambda i: (
        f"<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>hello {i}</arg_value>\n"
        f"<arg_key>b</arg_key>\n<arg_value>{i}</arg_value>\n</tool_call>\n"
    ),
    "hermes": lambda i: f'<tool_call>\n{{"name": "f", "arguments": {{"a": "hello {i}", "b": {i}}}}}\n</tool_call>\n',
    "qwen3-coder": lambda i: (
        f"<tool_call>\n<function=f>\n<parameter=a>\nhello {i}\n</parameter>\n<parameter=b>\n{i}\n</parameter>\n"
        "</function>\n</tool_call>\n"
    ),
}
F_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
        },
    }
]


@pytest.mark.parametrize("name", sorted(MANY_CALLS))
@pytest.mark.parametrize("size", [3, 4, 5])
def test_markers_between_and_inside_calls_that_send_nothing_are_taken_on_the_lane(name: str, size: int) -> None:
    """Text that only closes a call's block, opens the next call, or completes an argument's name before a JSON
    value changes nothing the message shows (quiet nodes): it is not parsed. Only the first call's opening, right
    after the content, is (the content's lane does not cross into a call)."""
    text = "".join(MANY_CALLS[name](i) for i in range(24))
    fmt = get_format(name, tools=F_TOOLS)
    stream = fmt.stream()
    counted = stream._peg = _CountingParser(stream._peg)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    silent = 0
    for piece in pieces:
        before = counted.parsed
        if not stream.feed(piece) and counted.parsed > before:
            silent += 1  # an ordinary feed that sent nothing
    assert silent <= 1
    stream.finish()
    assert as_message_dict(stream.message) == as_message_dict(fmt.parse(text, salt=SALT))
    _same_deltas(fmt, pieces)


@pytest.mark.parametrize("name", ["glm-4.5", "qwen3-coder"])
@pytest.mark.parametrize("size", [1, 3, 4, 7])
def test_closings_after_a_string_value_are_sent_from_the_lane(name: str, size: int) -> None:
    """What closing a string value (its quote), an argument with a JSON value after it (its name and value) or the
    call (its brace) adds is read from peg's events: the lane sends it, as the ordinary path would. A call is
    parsed only where its first argument shows (after a string value, the next call's name is published from the
    lane too)."""
    calls = 24
    text = "".join(MANY_CALLS[name](i) for i in range(calls))
    fmt = get_format(name, tools=F_TOOLS)
    stream = fmt.stream()
    counted = stream._peg = _CountingParser(stream._peg)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    for piece in pieces:
        stream.feed(piece)
    # (+4: the first call, after the content, at its opening and name; qwen3-coder: a piece that ends right after
    # a parameter's name leaves the optional newline before its value untried, and that newline is parsed)
    untried = sum(1 for i in range(size, len(text), size) if text[:i].endswith("<parameter=a>"))
    assert counted.parsed <= calls + 4 + untried
    stream.finish()
    assert as_message_dict(stream.message) == as_message_dict(fmt.parse(text, salt=SALT))
    _same_deltas(fmt, pieces)


_CLOSINGS = {  # (a string value last; a required argument missing; an argument given twice)
    "glm-4.5": (
        "<tool_call>f\n<arg_key>b</arg_key>\n<arg_value>1</arg_value>\n<arg_key>a</arg_key>\n"
        '<arg_value>x"y</arg_value>\n</tool_call>\n',
        "<tool_call>g\n<arg_key>b</arg_key>\n<arg_value>7</arg_value>\n</tool_call>\n",
        "<tool_call>g\n<arg_key>b</arg_key>\n<arg_value>1</arg_value>\n<arg_key>a</arg_key>\n"
        "<arg_value>one</arg_value>\n<arg_key>a</arg_key>\n<arg_value>two</arg_value>\n</tool_call>\n",
    ),
    "qwen3-coder": (
        '<tool_call>\n<function=f>\n<parameter=b>\n1\n</parameter>\n<parameter=a>\nx"y\n</parameter>\n</function>\n'
        "</tool_call>\n",
        "<tool_call>\n<function=g>\n<parameter=b>\n7\n</parameter>\n</function>\n</tool_call>\n",
        "<tool_call>\n<function=g>\n<parameter=b>\n1\n</parameter>\n<parameter=a>\none\n</parameter>\n"
        "<parameter=a>\ntwo\n</parameter>\n</function>\n</tool_call>\n",
    ),
}
# g has more properties than the grammar orders, so it accepts any arguments: the mapper reports what is wrong.
_LOOSE_TOOLS = [
    *F_TOOLS,
    {
        "type": "function",
        "function": {
            "name": "g",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}
                | {f"p{i}": {"type": "string"} for i in range(6)},
                "required": ["a", "b"],
            },
        },
    },
]


@pytest.mark.filterwarnings("ignore::chat_formats.builder.ArgsOrderWarning")
@pytest.mark.parametrize("name", sorted(_CLOSINGS))
@pytest.mark.parametrize("case", [0, 1, 2])
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_closings_that_add_a_warning_or_follow_a_string_stream_as_parsed(name: str, case: int, size: int) -> None:
    """A closing that adds a warning (a required argument missing, an argument given twice) is not the lane's:
    the same deltas as the ordinary path, and after every feed the same warnings."""
    text = _CLOSINGS[name][case] * 2
    fmt = get_format(name, tools=_LOOSE_TOOLS)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    _same_deltas(fmt, pieces)
    fast, slow = fmt.stream(), fmt.stream()
    slow._fast_lane = False
    for piece in pieces:
        assert fast.feed(piece) == slow.feed(piece)
        assert fast.message.warnings == slow.message.warnings
    if case:
        assert any(("missing" if case == 1 else "twice") in w for w in fast.message.warnings)
