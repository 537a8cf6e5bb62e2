"""Streams map only what follows their settled prefix — and still give exactly the final parse.

* at every feed, the incremental mapper's message (settled prefix + what it mapped) is the full mapping of the
  same partial parse (:func:`chat_formats.mapper.map_nodes`), for every sample of every format and any chunking;
* long multi-call outputs (many calls, content and reasoning between them, values with markup characters)
  stream to their final parse under any chunking;
* the work per feed does not grow with the calls already made: a feed maps the calls after the cursor only.
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
from chat_formats.mapper import map_nodes
from peg import Status
from tests.chat_formats.samples import SAMPLES, TOOLS
from tests.chat_formats.support import check_stream, chunks

F_TOOL = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
        },
    }
]

Call = tuple[str, int]  # the values of the arguments a and b


def _json_args(call: Call) -> str:
    return json.dumps({"a": call[0], "b": call[1]}, ensure_ascii=False)


def hermes(calls: list[Call], lead: str) -> str:
    return lead + "".join(f'<tool_call>\n{{"name": "f", "arguments": {_json_args(c)}}}\n</tool_call>\n' for c in calls)


def glm(calls: list[Call], lead: str) -> str:
    return lead + "".join(
        f"<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>{a}</arg_value>\n"
        f"<arg_key>b</arg_key>\n<arg_value>{b}</arg_value>\n</tool_call>\n"
        for a, b in calls
    )


def qwen3_coder(calls: list[Call], lead: str) -> str:
    return lead + "".join(
        f"<tool_call>\n<function=f>\n<parameter=a>\n{a}\n</parameter>\n<parameter=b>\n{b}\n</parameter>\n"
        "</function>\n</tool_call>\n"
        for a, b in calls
    )


def gpt_oss(calls: list[Call], lead: str) -> str:
    head = f"<|channel|>analysis<|message|>{lead or 'thinking'}<|end|>"
    return head + "".join(
        "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>"
        f"{_json_args(c)}<|call|><|start|>assistant<|channel|>analysis<|message|>{c[0] or 'next'}<|end|>"
        for c in calls
    )


def kimi_k2(calls: list[Call], lead: str) -> str:
    body = "".join(
        f"<|tool_call_begin|>functions.f:{i}<|tool_call_argument_begin|>{_json_args(c)}<|tool_call_end|>"
        for i, c in enumerate(calls)
    )
    return f"{lead}<|tool_calls_section_begin|>{body}<|tool_calls_section_end|>"


WRITERS: dict[str, Callable[[list[Call], str], str]] = {
    "hermes": hermes,
    "glm-4.5": glm,
    "qwen3-coder": qwen3_coder,
    "gpt-oss": gpt_oss,
    "kimi-k2": kimi_k2,
}
_TEXT = st.text(alphabet=st.sampled_from([*"ab yz", "\n", "é", "{", "}", "[", "]", '"', "\\", ",", ":"]), max_size=12)
_CALLS = st.lists(st.tuples(_TEXT.map(str.strip).filter(bool), st.integers(-99, 9999)), min_size=1, max_size=24)


def _full_fields(nodes: Any, fmt: Any, salt: str) -> tuple[str, str, list[tuple[str, str, str, bool]]]:
    m = map_nodes(nodes, tools=fmt.tools, salt=salt, id_position=fmt.definition.id_position, final=False)
    return m.reasoning, m.content, [(c.name, c.id, c.arguments, c.complete) for c in m.calls]


def _incremental_fields(mapper: IncrementalMapper, step: Step, text: str) -> tuple[Any, ...]:
    reasoning = join([*mapper.reasoning, *step.tail_reasoning], text)
    content = join([*mapper.content, *step.tail_content], text)
    calls = [*mapper.calls[: step.first_call], *step.calls]
    return reasoning, content, [(c.name, c.id, c.arguments, c.complete) for c in calls]


SAMPLE_CASES = [(fmt, case.output, case.options) for fmt, cases in SAMPLES.items() for case in cases]


@pytest.mark.parametrize(("name", "text", "options"), SAMPLE_CASES, ids=lambda x: x if isinstance(x, str) else "")
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=16))
def test_incremental_mapping_equals_the_full_mapping_at_every_feed(
    name: str, text: str, options: dict[str, Any], cuts: list[int]
) -> None:
    fmt = get_format(name, tools=TOOLS, **options)
    stream = fmt.definition.parser.stream()
    mapper = IncrementalMapper(fmt.tools, "salt", fmt.definition.id_position)
    for piece in chunks(text, cuts):
        result = stream.feed(piece)
        if result.status is Status.FAIL:
            break  # a failed parse is mapped whole (the fallback), never incrementally
        step = mapper.update(result.nodes, len(stream.text))
        assert _incremental_fields(mapper, step, stream.text) == _full_fields(result.nodes, fmt, "salt")


@pytest.mark.parametrize("name", sorted(WRITERS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    calls=_CALLS,
    lead=st.sampled_from(["", "Let me call f.\n"]),
    cuts=st.lists(st.integers(min_value=0, max_value=100_000), max_size=60),
)
def test_long_multi_call_streams_give_the_final_parse(name: str, calls: list[Call], lead: str, cuts: list[int]) -> None:
    fmt = get_format(name, tools=F_TOOL)
    text = WRITERS[name](calls, lead)
    assert len(fmt.parse(text).tool_calls) == len(calls)
    check_stream(fmt, text, chunks(text, cuts))


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_feed_maps_only_the_calls_after_the_cursor(name: str) -> None:
    fmt = get_format(name, tools=F_TOOL)
    calls = [(f"value {i}", i) for i in range(60)]
    text = WRITERS[name](calls, "")
    stream = fmt.definition.parser.stream()
    mapper = IncrementalMapper(fmt.tools, "salt", fmt.definition.id_position)
    mapped: list[int] = []
    for i in range(0, len(text), 3):
        result = stream.feed(text[i : i + 3])
        assert result.status is not Status.FAIL
        mapped.append(len(mapper.update(result.nodes, len(stream.text)).calls))
    assert len(mapper.calls) >= 59, "all but the last call (which may still grow) settle"
    # A full re-mapping would map ~30 calls per feed on average; the cursor keeps it to the open call (two
    # when a call settles, or when a call's optional closer arrives and the cursor steps back over it).
    assert max(mapped) <= 2


@pytest.mark.parametrize(
    ("name", "broken"),
    [
        ("hermes", '<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>\n'),
        ("glm-4.5", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_valu QZ1X e>\n</tool_call>"),
        ("gpt-oss", "<|channel|>analysis<|message|>hm<|end|><|start|>assistant<|channel|>commentary to=functions.nope"),
    ],
)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tail=_TEXT, cuts=st.lists(st.integers(min_value=0, max_value=100_000), max_size=40))
def test_text_after_the_output_stops_fitting_streams_as_content(
    name: str, broken: str, tail: str, cuts: list[int]
) -> None:
    text = broken + (tail + " and more text\n") * 20
    fmt = get_format(name, tools=F_TOOL)
    assert fmt.parse(text).warnings, "the output must not fit the format"
    check_stream(fmt, text, chunks(text, cuts))
