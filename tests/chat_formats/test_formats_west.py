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
from gbnf_backend import Grammar
from gbnf_backend.vocab import Vocabulary
from tests.chat_formats import test_roundtrip as roundtrip
from tests.chat_formats.corpus import JUDGED, Sample, load_samples
from tests.chat_formats.samples import CODE, TOOLS, Case
from tests.chat_formats.test_grammar import trigger_start

WEATHER = {"city": "Paris", "unit": "c"}
ADD = {"a": 5, "b": 2.5, "exact": True}


def _q3c(name: str, **args: str) -> str:
    """A Qwen3-Coder XML call."""
    params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in args.items())
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def _glm(name: str, **args: str) -> str:
    pairs = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in args.items())
    return f"<tool_call>{name}\n{pairs}</tool_call>"


def _hermes(name: str, args: dict[str, Any]) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False) + "\n</tool_call>"


def _minicpm(name: str, **args: str) -> str:
    params = "".join(f'<param name="{k}">{v}</param>' for k, v in args.items())
    return f'<function name="{name}">{params}</function>'


def _solar(name: str, **args: str) -> str:
    params = "".join(f"<|tool_arg:start|>{k}<|tool_arg:value|>{v}<|tool_arg:end|>" for k, v in args.items())
    return f"<|tool_call:start|>{name}\n{params}<|tool_call:end|>"


def _arr(*calls: tuple[str, dict[str, Any]]) -> str:
    return json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)


FORCED = {"thinking_forced_open": True}

WEST: dict[str, list[Case]] = {
    "step-3.5": [
        Case("Plain answer, <b>no</b> tools.", content="Plain answer, <b>no</b> tools."),
        # One framing newline on each side of </think> is dropped; more stay.
        Case("Think.\n\n</think>\n\nAnswer.", reasoning="Think.\n", content="\nAnswer.", options=FORCED),
        Case(
            "Call it.\n</think>\n" + _q3c("get_weather", city="Paris", unit="c"),
            reasoning="Call it.",
            calls=[("get_weather", WEATHER)],
            options=FORCED,
        ),
        Case(
            "<think>two\n</think>\n" + _q3c("add", b="2.5", a="5", exact="true") + "\n" + _q3c("ping_all", n="3"),
            reasoning="two",
            calls=[("add", ADD), ("ping_all", {"n": 3})],
        ),
        Case(  # the <tool_call> wrapper may be left out
            "ok</think>Sure.\n" + _q3c("ping_all", n="2")[len("<tool_call>\n") : -len("\n</tool_call>")],
            reasoning="ok",
            content="Sure.\n",
            calls=[("ping_all", {"n": 2})],
            options=FORCED,
        ),
        Case(  # a call quoted in the reasoning stays reasoning
            "maybe <tool_call> later</think>" + _q3c("write_file", path="a.py", content=CODE),
            reasoning="maybe <tool_call> later",
            calls=[("write_file", {"path": "a.py", "content": CODE})],
            options=FORCED,
        ),
    ],
    "nemotron-3": [
        Case("Direct answer.", content="Direct answer."),
        Case(
            "I'm\nthinking\n</think>\n" + _q3c("ping_all", n="7") + "\n",
            reasoning="I'm\nthinking\n",
            content="\n",
            calls=[("ping_all", {"n": 7})],
            options=FORCED,
        ),
        Case(
            _q3c("get_weather", city='Zürich "HB"') + "\n" + _q3c("ping"),
            calls=[("get_weather", {"city": 'Zürich "HB"'}), ("ping", {})],
        ),
    ],
    "poolside-v1": [
        Case("No tools here.", content="No tools here."),
        Case(  # only </think> ends the reasoning: the quoted call stays reasoning
            "Plan: <tool_call>ping</tool_call> first</think>\n" + _glm("get_weather", city="Paris", unit="c"),
            reasoning="Plan: <tool_call>ping</tool_call> first",
            content="\n",
            calls=[("get_weather", WEATHER)],
            options=FORCED,
        ),
        Case(
            _glm("add", b="2.5", a="5", exact="true") + "\n" + "<tool_call>ping</tool_call>",
            calls=[("add", ADD), ("ping", {})],
        ),
        Case(
            "Writing.\n" + _glm("write_file", path="a.py", content=CODE),
            content="Writing.\n",
            calls=[("write_file", {"path": "a.py", "content": CODE})],
        ),
    ],
    "spark-2.5": [
        Case("<think>not a block here</think>", content="<think>not a block here</think>"),
        Case("Sure." + _glm("ping_all", n="2"), content="Sure.", calls=[("ping_all", {"n": 2})]),
        Case(
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>unit</arg_key>"
            "<arg_value>c</arg_value></tool_call><tool_call>ping_all\n<arg_key>n</arg_key><arg_value>2</arg_value>"
            "</tool_call>",
            calls=[("get_weather", WEATHER), ("ping_all", {"n": 2})],
        ),
    ],
    "minicpm-5": [
        Case("<think>Hmm.</think>Hello!", reasoning="Hmm.", content="Hello!"),
        Case(
            "Looking.\n" + _minicpm("get_weather", city="上海", unit="c"),
            content="Looking.\n",
            calls=[("get_weather", {"city": "上海", "unit": "c"})],
        ),
        Case(  # CDATA lets a value hold the closer
            _minicpm("write_file", path="a.xml", content="<![CDATA[<param>x</param>\n]]>")
            + "\n"
            + _minicpm("add", a="5", b="2.5", exact="true"),
            calls=[("write_file", {"path": "a.xml", "content": "<param>x</param>\n"}), ("add", ADD)],
        ),
        Case(
            "ok\n</think>\n" + _minicpm("ping"),
            reasoning="ok\n",
            content="\n",
            calls=[("ping", {})],
            options=FORCED,
        ),
    ],
    "ernie-4.5": [
        Case(
            "abc\n</think>\n\n<response>\ndef\n</response>\n",
            reasoning="abc\n",
            content="\n\n\ndef\n\n",
            options=FORCED,
        ),
        Case(
            "Two tools.\n</think>\n\n\n" + _hermes("get_weather", WEATHER) + "\n" + _hermes("add", ADD) + "\n",
            reasoning="Two tools.\n",
            calls=[("get_weather", WEATHER), ("add", ADD)],
            options=FORCED,
        ),
        Case(
            "Sure.\n\n" + _hermes("ping_all", {"n": 1}),
            content="Sure.",
            calls=[("ping_all", {"n": 1})],
        ),
    ],
    "granite-4": [
        Case("<think>stays</think> text", content="<think>stays</think> text"),
        Case(
            "Checking." + _hermes("get_weather", WEATHER) + _hermes("ping", {}),
            content="Checking.",
            calls=[("get_weather", WEATHER), ("ping", {})],
        ),
    ],
    "reka": [
        Case(
            "Let me think about " + _hermes("ping", {}) + " hmm\n</think>\n\n" + _hermes("ping_all", {"n": 2}),
            reasoning="Let me think about " + _hermes("ping", {}) + " hmm\n",
            content="\n\n",
            calls=[("ping_all", {"n": 2})],
            options=FORCED,
        ),
    ],
    "holo2": [
        Case("Reasoning</think>Answer", reasoning="Reasoning", content="Answer", options=FORCED),
        Case("</think>Answer", content="</think>Answer"),
    ],
    "arcee-trinity": [
        Case(  # a call from inside unclosed reasoning ends it
            "<think>I should call it\n" + _hermes("add", ADD),
            reasoning="I should call it\n",
            calls=[("add", ADD)],
        ),
    ],
    "olmo-3": [
        Case("<think>\n</think>\n\nNo tools.", reasoning="\n", content="\n\nNo tools."),
        Case(
            "<function_calls>get_weather(city='Paris', unit=\"c\")\nadd(a=5, b=2.5, exact=true)</function_calls>",
            calls=[("get_weather", WEATHER), ("add", ADD)],
        ),
        Case(
            "Done thinking.</think>Sure.<function_calls>write_file(path='a.py', content='x = \"\\u00e9\"\\n')"
            "</function_calls>",
            reasoning="Done thinking.",
            content="Sure.",
            calls=[("write_file", {"path": "a.py", "content": 'x = "é"\n'})],
            options=FORCED,
        ),
        Case("<function_calls>ping()\nping_all(n=-3)", calls=[("ping", {}), ("ping_all", {"n": -3})]),
    ],
    "xlam": [
        Case("Just text [1, 2].", content="Just text [1, 2]."),
        Case(_arr(("get_weather", WEATHER), ("ping", {})), calls=[("get_weather", WEATHER), ("ping", {})]),
        Case(
            "<think>plan</think>I'll help.\n```json\n" + _arr(("add", ADD)) + "\n```",
            reasoning="plan",
            content="I'll help.",
            calls=[("add", ADD)],
        ),
        Case("Sure.[TOOL_CALLS]" + _arr(("ping", {})), content="Sure.", calls=[("ping", {})]),
        Case("<tool_call>" + _arr(("ping_all", {"n": 4})) + "</tool_call>", calls=[("ping_all", {"n": 4})]),
    ],
    "jamba": [
        Case(" Hello there.", content=" Hello there."),
        Case(
            " <tool_calls>[\n    "
            + _arr(("get_weather", WEATHER))[1:-1]
            + ",\n    "
            + _arr(("ping", {}))[1:-1]
            + "\n]</tool_calls>",
            calls=[("get_weather", WEATHER), ("ping", {})],
        ),
        Case(" Sure.<tool_calls>" + _arr(("add", ADD)) + "</tool_calls>", content=" Sure.", calls=[("add", ADD)]),
    ],
    "phi-4-mini": [
        Case("No calls.", content="No calls."),
        Case(
            'Let me check.\nfunctools[{"name": "get_weather", "parameters": {"city": "Paris", "unit": "c"}}, '
            + _arr(("add", ADD))[1:-1]
            + "]",
            content="Let me check.\n",
            calls=[("get_weather", WEATHER), ("add", ADD)],
        ),
    ],
    "granite-20b-fc": [
        Case("Plain.", content="Plain."),
        Case(
            "Let me check.\n<function_call> "
            + json.dumps({"name": "get_weather", "arguments": WEATHER})
            + "\n<function_call> "
            + json.dumps({"name": "ping_all", "arguments": {"n": 9}}),
            content="Let me check.\n",
            calls=[("get_weather", WEATHER), ("ping_all", {"n": 9})],
        ),
    ],
    "solar-open-2": [
        Case("Weighing it.<|think:end|>Here.", reasoning="Weighing it.", content="Here.", options=FORCED),
        Case(
            "Plan<|think:end|>Checking."
            + _solar("get_weather", city="Paris", unit="c")
            + _solar("add", a="5", b="2.5", exact="true"),
            reasoning="Plan",
            content="Checking.",
            calls=[("get_weather", WEATHER), ("add", ADD)],
            options=FORCED,
        ),
        Case(  # a call start ends an unclosed reasoning block
            "Straight to it" + _solar("write_file", path="a.py", content=CODE),
            reasoning="Straight to it",
            calls=[("write_file", {"path": "a.py", "content": CODE})],
            options=FORCED,
        ),
    ],
}

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
    g = _fmt(name, case, tool_choice="required").grammar()
    assert not g.lazy
    assert Grammar.from_gbnf(g.gbnf).matches(case.output)


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
    named = _fmt(name, case, tool_choice=tool, parallel_tool_calls=False)
    assert [c.function.name for c in named.parse(case.output).tool_calls] == [tool]
    assert not named.grammar().lazy
    assert Grammar.from_gbnf(named.grammar().gbnf).matches(case.output)
    wrong = _fmt(name, case, tool_choice=other, parallel_tool_calls=False).grammar()
    assert not Grammar.from_gbnf(wrong.gbnf).matches(case.output)


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
    assert (message.reasoning_content, message.content) == ("Let's call: " + _q3c("ping") + "\n", "\n")
    assert [c.function.name for c in message.tool_calls] == ["ping_all"]


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
    forced = get_format(sample.format, **{**sample.options, "tool_choice": "required"}).grammar()
    assert Grammar.from_gbnf(forced.gbnf).matches(sample.output)


def test_every_west_label_has_corpus_coverage() -> None:
    counts = {name: sum(s.format == name for s in CORPUS) for name in WEST_NAMES}
    least = {"step-3.5": 39, "nemotron-3": 18, "olmo-3": 33, "reka": 14, "ernie-4.5": 12, "holo2": 8, "xlam": 7}
    for name, n in least.items():
        assert counts[name] >= n, (name, counts)


# --- round trip: what the grammar lets a model write over the tekken vocabulary parses into valid calls ----------
# Text before the trigger and the trigger text, as ``test_roundtrip.SETUPS`` has them for the older formats.
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
def structural_bias(tekken: Vocabulary) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Random logits tilted towards tokens with markup characters and away from blank or long tokens, so that a
    sample reaches its closing markers within the step budget."""
    out = np.zeros(tekken.size)
    for i, piece in enumerate(tekken.token_bytes):
        if any(c in piece for c in (b'"', b"}", b"]", b">", b"|", b")")):
            out[i] = 6.0
        if piece.strip() == b"":
            out[i] = -6.0
        elif len(piece) > 6:
            out[i] -= 2.0
    return out


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_grammar_samples_over_tekken_parse_into_valid_calls(
    name: str, tekken: Vocabulary, structural_bias: np.ndarray[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(roundtrip.SETUPS, name, ROUND_TRIP[name])
    monkeypatch.setattr(roundtrip, "CLOSERS", (*roundtrip.CLOSERS, "]]>"))  # MiniCPM 5's CDATA closer
    fmt = get_format(name, tools=TOOLS)
    for seed in roundtrip.SEEDS[:2]:
        output = roundtrip.sample(fmt, tekken, structural_bias, seed)
        streamed, message = _streamed(fmt, [output[i : i + 5] for i in range(0, len(output), 5)])
        assert message.warnings == [], (output, message.warnings)
        assert message.tool_calls, output
        for call in message.tool_calls:
            jsonschema.validate(call.function.parsed_arguments(), roundtrip.SCHEMAS[call.function.name])
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
