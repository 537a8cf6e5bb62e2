"""Gemma 4, FunctionGemma, GigaChat 3 / 3.5, Cohere Command 4, Command R+, Inkling, K2 Horizon, Muse Glimmer,
TeleChat 4, LLM-jp Harmony, Granite 3.2 and Apriel 1.6: outputs written from each format's description, parsed,
streamed and constrained.

Per format: content only, reasoning, one call, two parallel calls, typed and nested arguments. Laws: a stream fed
one character at a time gives the final parse; the grammar accepts every call output the parser reads (lazy from
the trigger on, and whole with ``tool_choice="required"``) and every content output with ``tool_choice="none"``.
"""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chat_formats import ChatFormat, ChatMessage, get_format
from chat_formats.builder import JSON_WS_MAX, parse_tools
from chat_formats.formats import BUILDERS
from chat_formats.formats._layout import FormatOptions
from chat_formats.formats.gemma import gemma_to_json
from gbnf_backend import Grammar
from tests.chat_formats.cases_south import SOUTH, SOUTH_TOOLS
from tests.chat_formats.corpus import JUDGED, load_samples
from tests.chat_formats.samples import Case
from tests.chat_formats.support import check_stream, trigger_start

CASES = [(fmt, case) for fmt, cases in SOUTH.items() for case in cases]
CALL_CASES = [(fmt, case) for fmt, case in CASES if case.calls]
TEXT_CASES = [(fmt, case) for fmt, case in CASES if not case.calls]


def _ids(x: Any) -> str:
    return x if isinstance(x, str) else x.output[:24]


def _summary(message: ChatMessage) -> tuple[Any, ...]:
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
    return message.content, message.reasoning_content, calls


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=_ids)
def test_own_outputs_parse_to_their_message(fmt: str, case: Case) -> None:
    message = get_format(fmt, tools=SOUTH_TOOLS, **case.options).parse(case.output)
    assert _summary(message) == (case.content, case.reasoning, [(n, a) for n, a, *_ in case.calls])
    assert message.warnings == []


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=_ids)
def test_char_by_char_stream_equals_the_final_parse(fmt: str, case: Case) -> None:
    check_stream(get_format(fmt, tools=SOUTH_TOOLS, **case.options), case.output, list(case.output))


@pytest.mark.parametrize(("fmt", "case"), CALL_CASES, ids=_ids)
def test_grammar_accepts_the_calls_the_parser_reads(fmt: str, case: Case) -> None:
    lazy = get_format(fmt, tools=SOUTH_TOOLS, **case.options).grammar()
    assert lazy.lazy
    start = trigger_start(lazy, case.output)
    assert start >= 0, "no trigger fires on an output with calls"
    assert Grammar.from_gbnf(lazy.gbnf).matches(case.output[start:])
    # A forced call means the output is the call(s) (OpenAI's meaning); content first needs the opt-in.
    first = bool(case.content)
    forced = {"tools": SOUTH_TOOLS, "tool_choice": "required", **case.options}
    required = get_format(fmt, **forced, content_before_forced_calls=first).grammar()
    assert not required.lazy and Grammar.from_gbnf(required.gbnf).matches(case.output)
    if first:
        strict = get_format(fmt, **forced)
        assert not Grammar.from_gbnf(strict.grammar().gbnf).matches(case.output)
        refused = strict.parse(case.output)  # returned as content with a warning, never dropped
        assert refused.tool_calls == [] and refused.warnings


@pytest.mark.parametrize(("fmt", "case"), TEXT_CASES, ids=_ids)
def test_grammar_accepts_the_text_the_parser_reads_and_no_trigger_fires(fmt: str, case: Case) -> None:
    none = get_format(fmt, tools=SOUTH_TOOLS, tool_choice="none", **case.options).grammar()
    assert Grammar.from_gbnf(none.gbnf).matches(case.output)
    assert trigger_start(get_format(fmt, tools=SOUTH_TOOLS, **case.options).grammar(), case.output) == -1
    required = get_format(fmt, tools=SOUTH_TOOLS, tool_choice="required", **case.options).grammar()
    assert not Grammar.from_gbnf(required.gbnf).matches(case.output)


@pytest.mark.parametrize("fmt", sorted(SOUTH))
def test_tool_choice_none_named_and_no_parallel_calls(fmt: str) -> None:
    case = next(c for c in SOUTH[fmt] if len(c.calls) == 2)
    none = get_format(fmt, tools=SOUTH_TOOLS, tool_choice="none", **case.options).parse(case.output)
    assert none.tool_calls == [] and none.content
    single = get_format(fmt, tools=SOUTH_TOOLS, parallel_tool_calls=False, **case.options).parse(case.output)
    assert [c.function.name for c in single.tool_calls][:1] == [case.calls[0][0]]
    assert len(single.tool_calls) == 1 or fmt in ARRAY_FORMATS
    named = get_format(fmt, tools=SOUTH_TOOLS, tool_choice=case.calls[0][0], **case.options)
    first_only = Grammar.from_gbnf(named.grammar().gbnf)
    assert not first_only.matches(case.output), "a named tool choice allows only that tool"


#: Formats writing every call in one JSON array: without parallel calls the array holds one element, so a
#: two-element array does not parse as calls at all.
ARRAY_FORMATS = {"cohere-command-4", "command-r-plus", "granite-3.2", "apriel-1.6"}


@pytest.mark.parametrize("fmt", sorted(SOUTH))
def test_a_marker_prefix_is_held_back_while_streaming(fmt: str) -> None:
    case = next(c for c in SOUTH[fmt] if c.calls and c.content)
    cut = case.output.index(case.content) + len(case.content) + 3  # three characters into the call's marker
    message = get_format(fmt, tools=SOUTH_TOOLS, **case.options).parse(case.output[:cut], partial=True)
    assert message.content == case.content and message.tool_calls == []


def test_corpus_samples_of_the_south_formats_are_covered() -> None:
    # Complete samples of each corpus label we map, that must pass (test_corpus checks that they do).
    counts = collections.Counter(s.format for s in load_samples() if s.id not in JUDGED)
    least = {"gemma-4": 55, "gigachat-3": 29, "granite-3.2": 8, "command-r-plus": 2, "functiongemma": 1}
    assert all(counts[name] >= k for name, k in least.items()), counts


def test_gemma_reasoning_none_keeps_blocks_and_drops_nothing() -> None:
    out = "<|channel>thought\nA<channel|>Hi"
    assert get_format("gemma-4", reasoning_format="none").parse(out).content == out
    assert get_format("gemma-4", thinking_forced_open=True).parse("A<channel|>Hi").reasoning_content == "A"
    # A repeated opener is absorbed; a label is only the word "thought" on its own.
    message = get_format("gemma-4").parse("<|channel><|channel>thoughtful<channel|>Hi")
    assert (message.reasoning_content, message.content) == ("thoughtful", "Hi")


def test_gemma_value_of_the_wrong_type_leaves_an_incomplete_call_and_the_rest_as_content() -> None:
    fmt = get_format("gemma-4", tools=SOUTH_TOOLS)
    message = fmt.parse('<|tool_call>call:add{a:<|"|>one<|"|>,b:2}<tool_call|>')
    # The call never completes: reported incomplete, the rest of the output returned as content, with warnings.
    assert [c.function.arguments for c in message.tool_calls] == ['{"a": ']
    assert message.content == '<|"|>one<|"|>,b:2}<tool_call|>' and len(message.warnings) == 2


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(st.characters(blacklist_characters="<", blacklist_categories=("Cs",)), max_size=12),
)
_KEYS = st.text(st.sampled_from("abcxyz_09-."), min_size=1, max_size=6)
_VALUES = st.recursive(
    _SCALARS, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(_KEYS, kids, max_size=3), max_leaves=8
)


def _render(value: Any, q: str) -> str:
    if isinstance(value, str):
        return q + value + q
    if isinstance(value, list):
        return "[" + ",".join(_render(v, q) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_render(v, q)}" for k, v in value.items()) + "}"
    return json.dumps(value)


@settings(max_examples=150, deadline=None)
@given(value=_VALUES)
def test_gemma_values_convert_to_the_json_they_write(value: Any) -> None:
    assert json.loads(gemma_to_json(_render(value, '<|"|>'))) == value
    assert json.loads(gemma_to_json(_render(value, "<escape>"), "<escape>")) == value


@settings(max_examples=40, deadline=None)
@given(args=st.dictionaries(_KEYS, _VALUES, max_size=3))
def test_gemma_call_with_any_values_parses_streams_and_fits_the_grammar(args: dict[str, Any]) -> None:
    tool = {"type": "function", "function": {"name": "anything", "parameters": {"type": "object"}}}
    fmt = get_format("gemma-4", tools=[tool])
    out = "<|tool_call>call:anything" + _render(args, '<|"|>') + "<tool_call|>"
    message = fmt.parse(out)
    assert [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls] == [("anything", args)]
    check_stream(fmt, out, list(out))
    assert Grammar.from_gbnf(fmt.grammar().gbnf).matches(out)


def test_gemma_value_syntax_errors_are_value_errors() -> None:
    for bad in ("{a:1", "[1,,2]", '<|"|>open', "{a 1}", "nope", "1 2"):
        with pytest.raises(ValueError):
            gemma_to_json(bad)


@pytest.mark.parametrize(
    ("fmt", "out"),
    [
        ("gemma-4", "<|tool_call>call:rm{}<tool_call|>"),
        ("functiongemma", "<start_function_call>call:rm{}<end_function_call>"),
        ("gigachat-3", '<|function_call|>{"name": "rm", "arguments": {}}'),
        ("gigachat-3.5", '<｜GCML｜tool_calls>\n<｜GCML｜invoke name="rm">\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>'),
        ("cohere-command-4", '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "rm", "parameters": {}}]'),
        ("command-r-plus", 'Action:\n```json\n[{"tool_name": "rm", "parameters": {}}]\n```'),
        ("inkling", '<|message_model|>rm<|content_invoke_tool_json|>{"name": "rm", "args": {}}<|end_message|>'),
        ("k2-horizon", "<ifm|tool_calls><ifm|tool_call>rm\n</ifm|tool_call></ifm|tool_calls>"),
        ("muse-glimmer", ' to=functions<|message|><atem:function_calls>\n<atem:invoke name="rm">\n</atem:invoke>'),
        ("llm-jp-harmony", "<|channel|> commentary to=functions.rm<|message|> {}<|call|>"),
        ("telechat-4", '<tool_call>{"name": "rm", "arguments": {}}</tool_call>'),
        ("granite-3.2", '<|tool_call|>[{"name": "rm", "arguments": {}}]'),
        ("apriel-1.6", '<tool_calls>[{"name": "rm", "arguments": {}}]</tool_calls>'),
    ],
)
def test_a_call_to_an_unknown_tool_is_content_and_the_warning_names_it(fmt: str, out: str) -> None:
    message = get_format(fmt, tools=SOUTH_TOOLS).parse(out)
    assert message.tool_calls == [] and message.content is not None and "rm" in message.content
    assert any("unknown tool 'rm'" in w for w in message.warnings), message.warnings


@pytest.mark.parametrize("fmt", sorted(set(SOUTH) - {"llm-jp-harmony"}))  # harmony: gpt_oss.py's choice
def test_without_content_before_forced_calls_a_forced_call_comes_first(fmt: str) -> None:
    case = next(c for c in SOUTH[fmt] if c.calls and c.content)
    options = {"tools": tuple(parse_tools(SOUTH_TOOLS)), "tool_choice": "required", **case.options}
    opts = FormatOptions(**options, content_before_forced_calls=False)
    strict = ChatFormat(fmt, opts, BUILDERS[fmt](opts))
    assert not Grammar.from_gbnf(strict.grammar().gbnf).matches(case.output)
    calls_only = next(c for c in SOUTH[fmt] if c.calls and not c.content and c.options == case.options)
    assert Grammar.from_gbnf(strict.grammar().gbnf).matches(calls_only.output)
    assert _summary(strict.parse(calls_only.output))[2] == [(n, a) for n, a, *_ in calls_only.calls]


#: Call arrays with ``~`` where the format allows JSON whitespace between the array's tokens.
SOUTH_ARRAYS = {
    "cohere-command-4": '<|START_ACTION|>[~{~"tool_call_id":~"0",~"tool_name":~"ping",~"parameters":~{}~},'
    '~{"tool_name": "ping", "parameters": {}}~]<|END_ACTION|>',
    "command-r-plus": 'Action:\n```json\n[~{"tool_name": "ping", "parameters": {}},'
    '~{"tool_name": "ping", "parameters": {}}~]\n```',
}


@pytest.mark.parametrize("fmt", sorted(SOUTH_ARRAYS))
@pytest.mark.parametrize("width", [0, 1, 4, JSON_WS_MAX, JSON_WS_MAX + 1])
def test_json_whitespace_around_the_calls_is_bounded_alike_in_parser_and_grammar(fmt: str, width: int) -> None:
    # README: the JSON around the arguments allows [ \t\n]{0,24}; a longer run is not a call, in both.
    output = SOUTH_ARRAYS[fmt].replace("~", (" \n\t" * width)[:width])
    chat = get_format(fmt, tools=SOUTH_TOOLS, tool_choice="required")
    message = chat.parse(output)
    fits = width <= JSON_WS_MAX
    assert Grammar.from_gbnf(chat.grammar().gbnf).matches(output) is fits
    assert (len(message.tool_calls), message.warnings == []) == ((2, True) if fits else (0, False))


def test_command4_calls_keep_the_ids_the_model_wrote() -> None:
    fmt = get_format("cohere-command-4", tools=SOUTH_TOOLS)
    out = (
        '<|START_ACTION|>[{"tool_call_id": "QZ1X0", "tool_name": "get_weather", "parameters": {"city": "Paris"}},'
        ' {"tool_name": "get_weather", "parameters": {"city": "Rome"}}]<|END_ACTION|>'
    )
    message = fmt.parse(out)
    assert len(message.tool_calls) == 2 and message.tool_calls[0].id == "QZ1X0"
    assert message.tool_calls[1].id and message.tool_calls[1].id != "QZ1X0"
    check_stream(fmt, out, list(out))


@pytest.mark.parametrize("tag", ["integer", "int", "number"])
def test_k2_horizon_type_tags_are_checked_and_a_damaged_one_keeps_its_text(tag: str) -> None:
    fmt = get_format("k2-horizon", tools=SOUTH_TOOLS)
    call = "<ifm|tool_calls><ifm|tool_call>add\n<ifm|arg_key>a</ifm|arg_key><ifm|arg_type>{}</ifm|arg_type>"
    call += "<ifm|arg_value>-2</ifm|arg_value><ifm|arg_key>b</ifm|arg_key><ifm|arg_value>2.5</ifm|arg_value>"
    call += "</ifm|tool_call></ifm|tool_calls>"
    message = fmt.parse(call.format(tag))
    assert [json.loads(c.function.arguments) for c in message.tool_calls] == [{"a": -2, "b": 2.5}]
    damaged = fmt.parse(call.format(tag + "QZ1X"))
    assert damaged.content is not None and "QZ1X" in damaged.content and damaged.warnings
    check_stream(fmt, call.format(tag + "QZ1X"), list(call.format(tag + "QZ1X")))
