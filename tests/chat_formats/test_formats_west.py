"""The formats of Step 3.5, Nemotron 3, Poolside, Spark 2.5, MiniCPM 5, ERNIE 4.5, Granite 4, Reka, Holo2, Arcee
Trinity, OLMo 3, xLAM, Jamba, Phi-4-mini, Granite 20B FC and Solar Open 2, on outputs written here from the
upstream parsers' rules: the parse, the stream, the grammar (lazy and forced, named tool), tool_choice none and
the marker rules particular to each family."""

from __future__ import annotations

import itertools
import json
from typing import Any

import jsonschema
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chat_formats import ChatFormat, ChatMessage, get_format
from chat_formats.builder import JSON_WS_MAX
from gbnf_backend import Grammar
from gbnf_backend.vocab.vocabulary import Vocabulary
from tests.chat_formats.cases_west import WEST, _arr, _hermes, _minicpm, _q3c, _solar
from tests.chat_formats.corpus import JUDGED, Sample, load_samples
from tests.chat_formats.samples import TOOLS, Case
from tests.chat_formats.support import CLOSERS as ROUND_TRIP_CLOSERS
from tests.chat_formats.support import SEEDS, sample, structural_bias, trigger_start

CASES = [(fmt, case) for fmt, cases in WEST.items() for case in cases]
CALL_CASES = [(fmt, case) for fmt, case in CASES if case.calls]
IDS = [f"{fmt}-{i}" for i, (fmt, _) in enumerate(CASES)]
CALL_IDS = [f"{fmt}-{i}" for i, (fmt, _) in enumerate(CALL_CASES)]


def _fmt(name: str, case: Case, **extra: Any) -> ChatFormat:
    return get_format(name, tools=TOOLS, **{**case.options, **extra})


def _summary(message: ChatMessage) -> tuple[Any, ...]:
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
    return message.content, message.reasoning_content, calls


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_parses_to_the_expected_message(name: str, case: Case) -> None:
    message = _fmt(name, case).parse(case.output)
    assert _summary(message) == (case.content, case.reasoning, [tuple(c) for c in case.calls])
    assert message.warnings == []


def _streamed(fmt: ChatFormat, pieces: list[str]) -> tuple[ChatMessage, ChatMessage]:
    """The message a stream of ``pieces`` ends with, and the one-shot parse of their text (same call ids)."""
    stream = fmt.stream()
    for piece in pieces:
        stream.feed(piece)
    stream.finish()
    return stream.message, fmt.parse("".join(pieces), salt=stream.salt)


def _as_dict(m: ChatMessage) -> dict[str, Any]:
    calls = [(c.id, c.function.name, c.function.arguments) for c in m.tool_calls]
    return {"content": m.content, "reasoning": m.reasoning_content, "calls": calls}


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_one_char_stream_equals_the_final_parse(name: str, case: Case) -> None:
    fmt = _fmt(name, case)
    streamed, parsed = _streamed(fmt, list(case.output))
    assert _as_dict(streamed) == _as_dict(parsed)


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=10))
def test_any_chunking_streams_to_the_final_parse(name: str, case: Case, cuts: list[int]) -> None:
    fmt = _fmt(name, case)
    text = case.output
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    pieces = [text[a:b] for a, b in itertools.pairwise(points)]
    streamed, parsed = _streamed(fmt, pieces)
    assert _as_dict(streamed) == _as_dict(parsed)


@pytest.mark.parametrize(("name", "case"), CALL_CASES, ids=CALL_IDS)
def test_lazy_grammar_accepts_the_output_from_its_trigger(name: str, case: Case) -> None:
    g = _fmt(name, case).grammar()
    assert g.lazy and g.triggers and g.preserved_tokens
    start = trigger_start(g, case.output)
    assert start >= 0, "no trigger fires on an output with calls"
    assert Grammar.from_gbnf(g.gbnf).matches(case.output[start:])


@pytest.mark.parametrize(("name", "case"), CALL_CASES, ids=CALL_IDS)
def test_required_grammar_accepts_the_whole_output(name: str, case: Case) -> None:
    # A forced call means the output is the call(s) (OpenAI's meaning); content first needs the opt-in.
    g = _fmt(name, case, tool_choice="required", content_before_forced_calls=bool(case.content)).grammar()
    assert not g.lazy
    assert Grammar.from_gbnf(g.gbnf).matches(case.output)
    if case.content:
        strict = _fmt(name, case, tool_choice="required")
        assert not Grammar.from_gbnf(strict.grammar().gbnf).matches(case.output)
        refused = strict.parse(case.output)  # returned as content with a warning, never dropped
        assert refused.tool_calls == [] and refused.warnings and case.content in (refused.content or "")


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_tool_choice_none_reads_everything_as_text(name: str, case: Case) -> None:
    message = _fmt(name, case, tool_choice="none").parse(case.output)
    assert message.tool_calls == []
    text = (message.content or "") + (message.reasoning_content or "")
    assert all(call[0] in text for call in case.calls)  # the call markup came back as text
    assert message.warnings == []


SINGLE = [(fmt, case) for fmt, case in CALL_CASES if len(case.calls) == 1]


@pytest.mark.parametrize(("name", "case"), SINGLE, ids=[f"{fmt}-{i}" for i, (fmt, _) in enumerate(SINGLE)])
def test_named_tool_choice_allows_only_that_tool(name: str, case: Case) -> None:
    tool = case.calls[0][0]
    other = next(t["function"]["name"] for t in TOOLS if t["function"]["name"] != tool)
    first = {"content_before_forced_calls": bool(case.content)}  # content before a forced call: the opt-in
    named = _fmt(name, case, tool_choice=tool, parallel_tool_calls=False, **first)
    assert [c.function.name for c in named.parse(case.output).tool_calls] == [tool]
    assert not named.grammar().lazy
    assert Grammar.from_gbnf(named.grammar().gbnf).matches(case.output)
    wrong = _fmt(name, case, tool_choice=other, parallel_tool_calls=False, **first).grammar()
    assert not Grammar.from_gbnf(wrong.gbnf).matches(case.output)
    if case.content:  # without the opt-in the named call must come first
        strict = _fmt(name, case, tool_choice=tool, parallel_tool_calls=False)
        assert strict.parse(case.output).tool_calls == []
        assert not Grammar.from_gbnf(strict.grammar().gbnf).matches(case.output)


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("step-3.5", _q3c("add", a="1")),  # b is required
        ("poolside-v1", "<tool_call>add\n<arg_key>a</arg_key><arg_value>x</arg_value>\n</tool_call>"),
        ("spark-2.5", "<tool_call>rm</tool_call>"),
        ("minicpm-5", '<function name="get_weather"><param name="town">Paris</param></function>'),
        ("minicpm-5", '<function name="get_weather"><param name="city">A</param><param name="city">B</param>'),
        ("ernie-4.5", _hermes("add", {"a": "1", "b": 2})),
        ("granite-4", _hermes("rm", {})),
        ("olmo-3", "<function_calls>add(a=1.5, b=2)</function_calls>"),
        ("olmo-3", "<function_calls>get_weather(city=Paris)</function_calls>"),
        ("xlam", '[{"name": "add", "arguments": {"a": 1}}]'),
        ("jamba", '<tool_calls>{"name": "ping", "arguments": {}}</tool_calls>'),  # not an array
        ("phi-4-mini", 'functools[{"name": "ping", "params": {}}]'),
        ("granite-20b-fc", '<function_call> {"name": "ping_all", "arguments": {"n": "3"}}'),
        ("solar-open-2", "<|tool_call:start|>get_weather\n<|tool_arg:start|>unit<|tool_arg:value|>k<|tool_arg:end|>"),
    ],
)
def test_grammar_refuses_off_format_calls(name: str, bad: str) -> None:
    g = get_format(name, tools=TOOLS).grammar()
    start = max(trigger_start(g, bad), 0)
    assert not Grammar.from_gbnf(g.gbnf).matches(bad[start:])


def test_step35_trims_one_newline_around_the_closer_only() -> None:
    fmt = get_format("step-3.5", thinking_forced_open=True)
    message = fmt.parse("\n This is a \n reasoning\n\n\n</think>\n\nThe rest")
    assert (message.reasoning_content, message.content) == ("\n This is a \n reasoning\n\n", "\nThe rest")
    kept = get_format("step-3.5", thinking_forced_open=True, reasoning_format="none").parse("r\n</think>\nc")
    assert kept.content == "<think>\nr\n</think>\nc"


def test_nemotron3_reasoning_ends_only_at_the_closer_and_keeps_its_newlines() -> None:
    fmt = get_format("nemotron-3", tools=TOOLS, thinking_forced_open=True)
    quoted = "Let's call: " + _q3c("ping") + "\n</think>\n" + _q3c("ping_all", n="1") + "\n"
    message = fmt.parse(quoted)
    # the newline after the closer is blank content next to a call: None
    assert (message.reasoning_content, message.content) == ("Let's call: " + _q3c("ping") + "\n", None)
    assert [c.function.name for c in message.tool_calls] == ["ping_all"]
    kept = get_format("nemotron-3", tools=TOOLS, thinking_forced_open=True, keep_blank_content=True).parse(quoted)
    assert kept.content == "\n"


def test_aliases_name_their_base_format() -> None:
    assert {n: get_format(n).name for n in ("reka", "holo2", "arcee-trinity")} == {
        "reka": "hermes",
        "holo2": "hermes",
        "arcee-trinity": "qwen3",
    }


def test_minicpm5_typed_values_and_enum_grammar() -> None:
    fmt = get_format("minicpm-5", tools=TOOLS, tool_choice="required")
    out = _minicpm("add", a=" 7 ", b="1e3")
    assert json.loads(fmt.parse(out).tool_calls[0].function.arguments) == {"a": 7, "b": 1000.0}
    g = Grammar.from_gbnf(fmt.grammar().gbnf)
    assert g.matches(_minicpm("get_weather", city="A", unit="f"))
    assert not g.matches(_minicpm("get_weather", city="A", unit="kelvin"))


@pytest.mark.parametrize(
    "closing",
    [
        "]]></param></function>",  # a whole section: its text appears once, whole
        "]]></paramX>z</param></function>",  # "]]>" not closing the parameter: a raw value from the opener on
        "]]>",  # cut after the section
        "",  # cut inside the section
    ],
)
def test_minicpm5_cdata_value_streams_as_it_parses(closing: str) -> None:
    """A CDATA value is shown only once its section and parameter close: a stream that showed the section's text
    before ``]]>`` turned out not to close the parameter would have had to take it back."""
    fmt = get_format("minicpm-5", tools=TOOLS)
    out = '<function name="write_file"><param name="path">a</param><param name="content"><![CDATA[x<y' + closing
    streamed, parsed = _streamed(fmt, list(out))
    assert streamed == parsed
    # Nothing lost: the section's text is in the value, or (a cut call) returned as content.
    assert "x<y" in parsed.tool_calls[0].function.arguments + (parsed.content or "")


def test_ernie45_response_markers_are_framing_also_without_reasoning() -> None:
    message = get_format("ernie-4.5", reasoning_format="none").parse("<response>Hi</response>")
    assert message.content == "Hi"


def test_olmo3_python_and_json_literals_become_json() -> None:
    tools = [{"type": "function", "function": {"name": "register", "parameters": {"type": "object"}}}]
    fmt = get_format("olmo-3", tools=tools)
    out = "<function_calls>register(d={'k': [1, None]}, ok=True, x=null)</function_calls>"
    args = json.loads(fmt.parse(out).tool_calls[0].function.arguments)
    assert args == {"d": {"k": [1, None]}, "ok": True, "x": None}


def test_olmo3_single_call_without_parallel_leaves_a_second_call_unparsed() -> None:
    fmt = get_format("olmo-3", tools=TOOLS, parallel_tool_calls=False)
    message = fmt.parse("<function_calls>ping()\nping()</function_calls>")
    assert [c.function.name for c in message.tool_calls] == ["ping"]
    assert any("does not fit" in w for w in message.warnings)


def test_jamba_space_before_the_marker_is_framing() -> None:
    message = get_format("jamba", tools=TOOLS).parse(" <tool_calls>[" + _arr(("ping", {}))[1:-1] + "]</tool_calls>")
    assert (message.content, [c.function.name for c in message.tool_calls]) == (None, ["ping"])


def test_partial_output_holds_back_a_marker_prefix() -> None:
    for name, prefix in [
        ("granite-20b-fc", "Hi <function_ca"),
        ("solar-open-2", "Hi <|tool_call:st"),
        ("minicpm-5", "Hi <function nam"),
        ("olmo-3", "Hi <function_cal"),
    ]:
        assert get_format(name, tools=TOOLS).parse(prefix, partial=True).content == "Hi ", name


# --- the grammar accepts what the parser reads cleanly, on the corpus samples of these families -----------------
WEST_NAMES = set(WEST)
# Excluded from the grammar law, with the reason: not a matter of the format.
SCHEMA_WHITESPACE = {
    # A JSON argument with " \n " between tokens: the JSON-Schema grammar's space rule (llama.cpp's: one space, or a
    # newline and indentation) refuses it, while the parser reads any JSON whitespace.
    "vllm-0656",
}
CORPUS = [s for s in load_samples() if s.format in WEST_NAMES and s.id not in JUDGED]
CORPUS_CALLS = [
    s
    for s in CORPUS
    if s.raw["expected"].get("tool_calls")
    and not s.raw.get("options", {}).get("is_partial")
    and s.id not in SCHEMA_WHITESPACE
]


@pytest.mark.parametrize("sample", CORPUS_CALLS, ids=lambda s: f"{s.format}:{s.id}")
def test_grammar_accepts_the_corpus_outputs_the_parser_reads_cleanly(sample: Sample) -> None:
    fmt = sample.build()
    message = fmt.parse(sample.output)
    assert message.tool_calls and message.warnings == []
    lazy = fmt.grammar()
    start = trigger_start(lazy, sample.output)
    assert start >= 0
    assert Grammar.from_gbnf(lazy.gbnf).matches(sample.output[start:])
    # A forced call means the output is the call(s); content first (llama.cpp's meaning) needs the opt-in.
    first = message.content is not None
    options = {**sample.options, "tool_choice": "required"}
    forced = get_format(sample.format, **options, content_before_forced_calls=first).grammar()
    assert Grammar.from_gbnf(forced.gbnf).matches(sample.output)
    if first:
        strict = get_format(sample.format, **options).grammar()
        assert not Grammar.from_gbnf(strict.gbnf).matches(sample.output)


def test_every_west_label_has_corpus_coverage() -> None:
    counts = {name: sum(s.format == name for s in CORPUS) for name in WEST_NAMES}
    least = {"step-3.5": 39, "nemotron-3": 18, "olmo-3": 33, "reka": 14, "ernie-4.5": 12, "holo2": 8, "xlam": 7}
    for name, n in least.items():
        assert counts[name] >= n, (name, counts)


# --- round trip: what the grammar lets a model write over the tekken vocabulary parses into valid calls ----------
# Text before the trigger and the trigger text, as the round trip of the older formats has them.
ROUND_TRIP = {
    "step-3.5": ("<think>{free}\n</think>\n", "<tool_call>"),
    "nemotron-3": ("<think>{free}</think>\n", "<tool_call>"),
    "poolside-v1": ("<think>{free}</think>\n", "<tool_call>"),
    "spark-2.5": ("{free}", "<tool_call>"),
    "minicpm-5": ("<think>{free}</think>", '<function name="'),
    "ernie-4.5": ("<think>{free}</think>", "\n<tool_call>"),
    "granite-4": ("{free}", "<tool_call>"),
    "olmo-3": ("<think>{free}</think>", "<function_calls>"),
    "xlam": ("<think>{free}</think>{free}", "```json"),
    "jamba": ("{free}", " <tool_calls>"),
    "phi-4-mini": ("{free} ", "functools["),
    "granite-20b-fc": ("{free}\n", "<function_call>"),
    "solar-open-2": ("<|think:start|>{free}<|think:end|>", "<|tool_call:start|>"),
}


@pytest.fixture(scope="module")
def tekken() -> Vocabulary:
    return Vocabulary.from_tekken()


@pytest.fixture(scope="module")
def markup_bias(tekken: Vocabulary) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Random logits tilted towards tokens with markup characters (``)`` too, for pythonic calls) and away from
    blank or long tokens, so that a sample reaches its closing markers within the step budget."""
    return structural_bias(tekken, b'"}]>|)')


SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_grammar_samples_over_tekken_parse_into_valid_calls(
    name: str, tekken: Vocabulary, markup_bias: np.ndarray[Any, Any]
) -> None:
    fmt = get_format(name, tools=TOOLS)
    for seed in SEEDS[:2]:
        # "]]>": MiniCPM 5's CDATA closer
        output = sample(fmt, tekken, markup_bias, seed, ROUND_TRIP[name], (*ROUND_TRIP_CLOSERS, "]]>"))
        streamed, message = _streamed(fmt, [output[i : i + 5] for i in range(0, len(output), 5)])
        assert message.warnings == [], (output, message.warnings)
        assert message.tool_calls, output
        for call in message.tool_calls:
            jsonschema.validate(call.function.parsed_arguments(), SCHEMAS[call.function.name])
        assert streamed.tool_calls == message.tool_calls


@pytest.mark.parametrize(
    ("name", "out"),
    [
        ("step-3.5", _q3c("rm")),
        ("nemotron-3", _q3c("rm")),
        ("poolside-v1", "<tool_call>rm\n</tool_call>"),
        ("spark-2.5", "<tool_call>rm</tool_call>"),
        ("minicpm-5", _minicpm("rm")),
        ("ernie-4.5", _hermes("rm", {})),
        ("granite-4", _hermes("rm", {})),
        ("olmo-3", "<function_calls>rm()</function_calls>"),
        ("xlam", _arr(("rm", {}))),
        ("jamba", "<tool_calls>" + _arr(("rm", {})) + "</tool_calls>"),
        ("phi-4-mini", "functools" + _arr(("rm", {}))),
        ("granite-20b-fc", '<function_call> {"name": "rm", "arguments": {}}'),
        ("solar-open-2", _solar("rm")),
    ],
)
def test_a_call_to_an_unknown_tool_is_returned_as_content_naming_it(name: str, out: str) -> None:
    message = get_format(name, tools=TOOLS).parse(out)
    assert message.tool_calls == []
    assert message.content is not None and "rm" in message.content
    assert any("unknown tool 'rm'" in w for w in message.warnings), message.warnings


#: Call arrays with ``~`` where the format allows JSON whitespace between the array's tokens.
WEST_ARRAYS = {
    "xlam": '[TOOL_CALLS][~{"name": "ping", "arguments": {}},~{"name": "ping_all", "arguments": {"n": 2}}~]',
}


@pytest.mark.parametrize("fmt", sorted(WEST_ARRAYS))
@pytest.mark.parametrize("width", [0, 1, 4, JSON_WS_MAX, JSON_WS_MAX + 1])
def test_json_whitespace_around_the_calls_is_bounded_alike_in_parser_and_grammar(fmt: str, width: int) -> None:
    # README: the JSON around the arguments allows [ \t\n]{0,24}; a longer run is not a call, in both.
    output = WEST_ARRAYS[fmt].replace("~", (" \n\t" * width)[:width])
    chat = get_format(fmt, tools=TOOLS, tool_choice="required")
    message = chat.parse(output)
    fits = width <= JSON_WS_MAX
    assert Grammar.from_gbnf(chat.grammar().gbnf).matches(output) is fits
    assert (len(message.tool_calls), message.warnings == []) == ((2, True) if fits else (0, False))
