"""A stream's incremental mapping is the full mapping of every partial parse — for outputs of many calls with
arguments of every value kind, damaged calls among them — and ``Step.changed`` says exactly when it did not move.

* at every feed, the settled prefix plus what :meth:`IncrementalMapper.update` mapped is
  :func:`chat_formats.mapper.map_nodes` of the same partial parse (names, ids, arguments, completeness, texts);
* a step that says it changed nothing (``changed`` False) maps the previous feed's message again, and reuses
  the previous step's call objects; the stream then sends nothing for that feed;
* under any chunking, those outputs stream to their one-shot parse (same message, deltas that replay to it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chat_formats import get_format
from chat_formats._incremental import IncrementalMapper, Step, join
from chat_formats.mapper import MappedCall, map_nodes
from peg import Status
from tests.chat_formats.support import check_stream, chunks

KINDS = {
    "s": {"type": "string"},
    "i": {"type": "integer"},
    "n": {"type": "number"},
    "b": {"type": "boolean"},
    "o": {"type": "object"},
    "a": {"type": "array"},
}
TOOL = [{"type": "function", "function": {"name": "k", "parameters": {"type": "object", "properties": KINDS}}}]

_STRING = st.text(alphabet=st.sampled_from([*"ab yz", "\n", "é", "<", ">", "&", '"', "'", "\\", "{", "}"]), max_size=10)
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "s": _STRING.map(str.strip).filter(bool),
    "i": st.integers(-(10**12), 10**12),
    "n": st.floats(allow_nan=False, allow_infinity=False, width=32),
    "b": st.booleans(),
    "o": st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 9), max_size=2),
    "a": st.lists(st.one_of(st.integers(0, 9), st.just("q"), st.none()), max_size=3),
}
# A damaged value: not JSON for its schema (kept as a string, with a warning) or an argument the tool does not have.
_DAMAGE = st.sampled_from([("i", "12x"), ("b", "yes"), ("o", "{oops"), ("zz", "1"), ("s", "")])

Arg = tuple[str, Any, bool]  # name, value, whether the value is written raw (damaged)
_ARGS = st.lists(
    st.one_of(
        st.sampled_from(sorted(KINDS)).flatmap(lambda k: _VALUES[k].map(lambda v: (k, v, False))),
        _DAMAGE.map(lambda d: (d[0], d[1], True)),
    ),
    max_size=4,
)
_CALLS = st.lists(st.tuples(st.sampled_from(["k", "k", "k", "nope"]), _ARGS), min_size=1, max_size=12)


def _xml_value(value: Any, raw: bool) -> str:
    return value if raw or isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def glm(calls: list[tuple[str, list[Arg]]]) -> str:
    return "".join(
        f"<tool_call>{name}\n"
        + "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{_xml_value(v, raw)}</arg_value>\n" for k, v, raw in args)
        + "</tool_call>\n"
        for name, args in calls
    )


def qwen3_coder(calls: list[tuple[str, list[Arg]]]) -> str:
    return "".join(
        f"<tool_call>\n<function={name}>\n"
        + "".join(f"<parameter={k}>\n{_xml_value(v, raw)}\n</parameter>\n" for k, v, raw in args)
        + "</function>\n</tool_call>\n"
        for name, args in calls
    )


def hermes(calls: list[tuple[str, list[Arg]]]) -> str:
    return "".join(
        '<tool_call>\n{"name": "'
        + name
        + '", "arguments": '
        # (JSON arguments: a damaged value is written as the JSON string of its text)
        + json.dumps({k: v for k, v, _ in args}, ensure_ascii=False)
        + "}\n</tool_call>\n"
        for name, args in calls
    )


WRITERS: dict[str, Callable[[list[tuple[str, list[Arg]]]], str]] = {
    "glm-4.5": glm,
    "qwen3-coder": qwen3_coder,
    "hermes": hermes,
}


def _full(nodes: Any, fmt: Any) -> tuple[Any, ...]:
    m = map_nodes(nodes, tools=fmt.tools, salt="salt", id_position=fmt.definition.id_position, final=False)
    return m.reasoning, m.content, [_fields(c) for c in m.calls], [*dict.fromkeys(m.warnings)]


def _incremental(mapper: IncrementalMapper, step: Step, text: str) -> tuple[Any, ...]:
    # (The warnings of the calls a step settles are in both lists; a stream keeps each warning once.)
    reasoning = join([*mapper.reasoning, *step.tail_reasoning], text)
    content = join([*mapper.content, *step.tail_content], text)
    calls = [*mapper.calls[: step.first_call], *step.calls]
    return reasoning, content, [_fields(c) for c in calls], [*dict.fromkeys([*mapper.warnings, *step.warnings])]


def _fields(call: MappedCall) -> tuple[Any, ...]:
    """Every field of a mapped call (the end and spans too: a stream diffs by them)."""
    return call.name, call.id, call.arguments, call.complete, call.end, call.args_span, call.open_string


@pytest.mark.parametrize("name", sorted(WRITERS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=_CALLS, lead=st.sampled_from(["", "On it.\n"]), cuts=st.lists(st.integers(0, 100_000), max_size=80))
def test_the_incremental_mapping_is_the_full_mapping_at_every_feed(
    name: str, calls: list[tuple[str, list[Arg]]], lead: str, cuts: list[int]
) -> None:
    fmt = get_format(name, tools=TOOL)
    text = lead + WRITERS[name](calls)
    stream = fmt.definition.parser.stream()
    mapper = IncrementalMapper(fmt.tools, "salt", fmt.definition.id_position)
    before: tuple[Any, ...] = ("", "", [], [])  # a new mapper's message: empty
    last_calls: list[Any] = []
    for piece in chunks(text, cuts):
        result = stream.feed(piece)
        if result.status is Status.FAIL:
            break  # a failed parse is mapped whole (the fallback), never incrementally
        step = mapper.update(result.nodes, len(stream.text))
        full = _full(result.nodes, fmt)
        assert _incremental(mapper, step, stream.text) == full
        if not step.changed:
            assert full == before, "a step that changed nothing maps the previous feed's message"
            assert all(any(c is d for d in last_calls) for c in step.calls), "...with the previous call objects"
        before, last_calls = full, [*mapper.calls, *step.calls]


@pytest.mark.parametrize("name", sorted(WRITERS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=_CALLS, cuts=st.lists(st.integers(0, 100_000), max_size=80))
def test_outputs_of_many_calls_of_every_value_kind_stream_to_their_parse(
    name: str, calls: list[tuple[str, list[Arg]]], cuts: list[int]
) -> None:
    fmt = get_format(name, tools=TOOL)
    text = WRITERS[name](calls)
    check_stream(fmt, text, chunks(text, cuts))


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_feeds_that_only_enter_a_marker_change_nothing(name: str) -> None:
    # Character by character, most feeds of a call's markup (an argument's opener not yet naming it, a value held
    # back until its closer, the next call's opener) leave the mapped message as it was.
    fmt = get_format(name, tools=TOOL)
    text = WRITERS[name]([("k", [("s", "hello", False), ("i", 42, False)])] * 3)
    stream = fmt.definition.parser.stream()
    mapper = IncrementalMapper(fmt.tools, "salt", fmt.definition.id_position)
    steps = [mapper.update(stream.feed(ch).nodes, len(stream.text)) for ch in text]
    unchanged = sum(not s.changed for s in steps)
    assert unchanged > len(text) // 2
    assert len(mapper.calls[: steps[-1].first_call]) + len(steps[-1].calls) == 3
    assert all(s.changed for s in steps if s.settled_calls or s.rolled_back)


@pytest.mark.parametrize("name", sorted(WRITERS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=_CALLS, cuts=st.lists(st.integers(0, 100_000), max_size=40))
def test_a_parse_mapped_again_is_the_same_message_unchanged(
    name: str, calls: list[tuple[str, list[Arg]]], cuts: list[int]
) -> None:
    # What peg would hand back for a feed that changed nothing: the very nodes of the previous parse. The mapper
    # maps them to the same calls (the same objects: its memo of the open call knows that node) and says so.
    fmt = get_format(name, tools=TOOL)
    text = WRITERS[name](calls)
    stream = fmt.definition.parser.stream()
    mapper = IncrementalMapper(fmt.tools, "salt", fmt.definition.id_position)
    for piece in chunks(text, cuts):
        result = stream.feed(piece)
        if result.status is Status.FAIL:
            break
        first = mapper.update(result.nodes, len(stream.text))
        firsts = [*mapper.calls[: first.first_call], *first.calls]
        again = mapper.update(result.nodes, len(stream.text))
        assert not again.changed
        assert _incremental(mapper, again, stream.text) == _full(result.nodes, fmt)
        assert all(c is d for c, d in zip([*mapper.calls[: again.first_call], *again.calls], firsts, strict=True))
