"""The DeepSeek V3 / V3.2 / V4, Kimi K3 / k1.5, MiniMax M3 / M1, Step 3, Hunyuan, dots, Ling 3, LongCat and
InternLM formats on outputs written from their upstream parsers' rules: parse, stream, grammar, options."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chat_formats import ChatMessage, get_format
from chat_formats.formats import WITHOUT_CALLS
from gbnf_backend import Grammar
from gbnf_backend.vocab import Vocabulary
from tests.chat_formats import test_roundtrip
from tests.chat_formats.corpus import JUDGED, Sample, load_samples
from tests.chat_formats.samples import CODE, TOOLS, Case
from tests.chat_formats.test_grammar import trigger_start
from tests.chat_formats.test_roundtrip import bias, vocab  # noqa: F401  (fixtures of the round trip)
from tests.chat_formats.test_stream_laws import _EDIT, _check, _chunks

J = '{"city": "Paris", "unit": "c"}'
FORCED = {"thinking_forced_open": True}
DS_CALLS = "<｜tool▁calls▁begin｜>"
DS_CALL = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{}\n```json\n{}\n```<｜tool▁call▁end｜>"


def dsml(block: str, *invokes: str) -> str:
    return f"<｜DSML｜{block}>\n" + "".join(invokes) + f"</｜DSML｜{block}>"


def invoke(name: str, **params: tuple[bool, str]) -> str:
    body = "".join(
        f'<｜DSML｜parameter name="{k}" string="{"true" if s else "false"}">{v}</｜DSML｜parameter>\n'
        for k, (s, v) in params.items()
    )
    return f'<｜DSML｜invoke name="{name}">\n{body}</｜DSML｜invoke>\n'


def xtml_call(name: str, **args: tuple[str, str]) -> str:
    body = "".join(
        f'<|open|>argument key="{k}" type="{t}"<|sep|>{v}<|close|>argument<|sep|>' for k, (t, v) in args.items()
    )
    return f'<|open|>call tool="{name}" index="0"<|sep|>{body}<|close|>call<|sep|>'


NS = "]<]minimax[>["


def m3_invoke(name: str, **args: str) -> str:
    body = "".join(f"{NS}<{k}>{v}{NS}</{k}>\n" for k, v in args.items())
    return f'{NS}<invoke name="{name}">\n{body}{NS}</invoke>\n'


def step_call(name: str, **args: str) -> str:
    body = "".join(f'<steptml:parameter name="{k}">{v}</steptml:parameter>' for k, v in args.items())
    return f'<｜tool_call_begin｜><steptml:invoke name="{name}">{body}</steptml:invoke><｜tool_call_end｜>'


def hy_call(name: str, **args: str) -> str:
    body = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in args.items())
    return f"<tool_call>{name}<tool_sep>\n{body}</tool_call>\n"


def glm_call(name: str, **args: str) -> str:
    body = "".join(f"\n<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>" for k, v in args.items())
    return f"<tool_call>{name}{body}\n</tool_call>"


WEATHER = ("get_weather", {"city": "Paris", "unit": "c"})
ADD = ("add", {"a": 5, "b": 2.5, "exact": True})
FILE = ("write_file", {"path": "src/a.py", "content": CODE})
PING = ("ping", {})

EAST: dict[str, list[Case]] = {
    "deepseek-v3": [
        Case("Just text, with ``` and <tags>.", content="Just text, with ``` and <tags>."),
        Case(
            "Let me check." + DS_CALLS + DS_CALL.format("get_weather", J) + "<｜tool▁calls▁end｜>",
            content="Let me check.",
            calls=[WEATHER],
        ),
        Case(
            DS_CALLS
            + DS_CALL.format("add", '{"a": 5, "b": 2.5, "exact": true}')
            + "\n"
            + DS_CALL.format("ping", "{}")
            + "<｜tool▁calls▁end｜>",
            calls=[ADD, PING],
        ),
    ],
    "deepseek-v3.2": [
        Case("Hello, world!\nWhat's up?", content="Hello, world!\nWhat's up?"),
        Case(
            "Let me think</think>Hi <b>there</b>", reasoning="Let me think", content="Hi <b>there</b>", options=FORCED
        ),
        Case(
            "ok</think>\n\n"
            + dsml("function_calls", invoke("add", a=(False, "5"), b=(False, "2.5"), exact=(False, "true"))),
            reasoning="ok",
            calls=[ADD],
            options=FORCED,
        ),
        Case(
            "Writing.\n\n"
            + dsml(
                "function_calls",
                invoke("write_file", path=(True, "src/a.py"), content=(True, CODE)),
                '<｜DSML｜invoke name="ping"/>\n',
            ),
            content="Writing.",
            calls=[FILE, PING],
        ),
        Case(
            "I will call it " + dsml("function_calls", invoke("get_weather", city=(True, "Paris"), unit=(True, "c"))),
            reasoning="I will call it ",
            calls=[WEATHER],
            options=FORCED,
        ),
    ],
    "deepseek-v4": [
        Case("Plain answer.", content="Plain answer."),
        Case(
            "Sure.\n\n"
            + dsml(
                "tool_calls",
                invoke("get_weather", unit=(True, "c"), city=(True, "Paris")),
                invoke("add", b=(False, "2.5"), a=(False, "5"), exact=(False, "true")),
            ),
            content="Sure.",
            calls=[WEATHER, ADD],
        ),
        Case(
            "hmm</think>" + dsml("tool_calls", '<｜DSML｜invoke name="ping"/>'),
            reasoning="hmm",
            calls=[PING],
            options=FORCED,
        ),
    ],
    "kimi-k3": [
        Case(
            "<|open|>response<|sep|>Hello.<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>",
            content="Hello.",
        ),
        Case(
            "plan<|close|>think<|sep|><|open|>response<|sep|>Hi<|close|>response<|sep|>",
            reasoning="plan",
            content="Hi",
            options=FORCED,
        ),
        Case(
            "<|open|>think<|sep|>r<|close|>think<|sep|><|open|>tools<|sep|>"
            + xtml_call("add", a=("integer", "5"), b=("number", "2.5"), exact=("boolean", "true"))
            + "<|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>",
            reasoning="r",
            calls=[ADD],
        ),
        Case(
            "<|open|>response<|sep|>Writing.<|close|>response<|sep|><|open|>tools<|sep|>\n"
            + xtml_call("write_file", path=("string", "src/a.py"), content=("string", CODE))
            + "\n"
            + xtml_call("ping")
            + "\n<|close|>tools<|sep|>",
            content="Writing.",
            calls=[FILE, PING],
        ),
    ],
    "kimi-k1.5": [
        Case(
            "◁think▷Let me consider◁/think▷The answer is 42.", reasoning="Let me consider", content="The answer is 42."
        ),
        Case("Direct answer.", content="Direct answer."),
    ],
    "minimax-m3": [
        Case("</mm:think>Hello.", content="Hello."),
        Case(
            f"<mm:think>plan</mm:think>Checking.{NS}<tool_call>\n"
            + m3_invoke("get_weather", city="Paris", unit="c")
            + f"{NS}</tool_call>",
            reasoning="plan",
            content="Checking.",
            calls=[WEATHER],
        ),
        Case(
            f"{NS}<tool_call>\n"
            + m3_invoke("add", a="5", b="2.5", exact="true")
            + m3_invoke("ping")
            + f"{NS}</tool_call>",
            calls=[ADD, PING],
        ),
    ],
    "minimax-m1": [
        Case("<think>r</think>\nJust text.", reasoning="r", content="\nJust text."),
        Case(
            f'<think>r</think>\nI\'ll check. <tool_calls>\n{{"name": "get_weather", "arguments": {J}}}\n'
            '{"name": "ping", "arguments": {}}\n</tool_calls>',
            reasoning="r",
            content="\nI'll check.",
            calls=[WEATHER, PING],
        ),
        Case('<tool_calls>\n{"name": "add", "arguments": {"a": 5, "b": 2.5, "exact": true}}', calls=[ADD]),
    ],
    "step-3": [
        Case("r</think>Hello.", reasoning="r", content="Hello.", options=FORCED),
        Case(
            "r</think>Sure.<｜tool_calls_begin｜>"
            + step_call("add", a="5", b="2.5", exact="true")
            + "<｜tool_sep｜>"
            + step_call("get_weather", city="Paris", unit="c")
            + "<｜tool_calls_end｜>",
            reasoning="r",
            content="Sure.",
            calls=[ADD, WEATHER],
            options=FORCED,
        ),
        Case(
            "<｜tool_calls_begin｜>" + step_call("write_file", path="src/a.py", content=CODE) + "<｜tool_calls_end｜>",
            calls=[FILE],
        ),
    ],
    "hunyuan-hy-v3": [
        Case("<think>Let me think</think>The answer.", reasoning="Let me think", content="The answer."),
        Case(
            "<think>r</think>Checking.<tool_calls>\n"
            + hy_call("get_weather", city="Paris", unit="c")
            + hy_call("ping")
            + "</tool_calls>",
            reasoning="r",
            content="Checking.",
            calls=[WEATHER, PING],
        ),
        Case(
            "<think>I need to add<tool_calls>" + hy_call("add", a="5", b="2.5", exact="true") + "</tool_calls>",
            reasoning="I need to add",
            calls=[ADD],
        ),
    ],
    "hunyuan-a13b": [
        Case("<think>\nr\n</think>\n<answer>\nHello\n</answer>", reasoning="r", content="Hello"),
        Case("<think>\n\n</think>\n<answer>\nQuick\nanswer", content="Quick\nanswer"),
        Case(
            "<think>\nr\n</think>\n<answer>\nOK. <tool_calls>[" + f'{{"name": "get_weather", "arguments": {J}}}, '
            '{"name": "add", "arguments": {"a": 5, "b": 2.5, "exact": true}}]</tool_calls>\n</answer>',
            reasoning="r",
            content="OK. ",
            calls=[WEATHER, ADD],
        ),
    ],
    "dots": [
        Case("<think>r</think>Hello.", reasoning="r", content="Hello."),
        Case(
            'Sure.\n<dots_function_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
            '<parameter name="unit">c</parameter>\n</invoke>\n<invoke name="add">\n<parameter name="a">5</parameter>\n'
            '<parameter name="b">2.5</parameter>\n<parameter name="exact">true</parameter>\n</invoke>\n'
            "</dots_function_call>",
            content="Sure.\n",
            calls=[WEATHER, ADD],
        ),
    ],
    "ling-3": [
        Case("plan\n</think>\n\nThe answer.", reasoning="plan\n", content="\n\nThe answer.", options=FORCED),
        Case(
            "plan" + glm_call("add", a="5", b="2.5", exact="true") + glm_call("get_weather", city="Paris", unit="c"),
            reasoning="plan",
            calls=[ADD, WEATHER],
            options=FORCED,
        ),
        Case("<role>ASSISTANT</role>\nHi." + glm_call("ping"), content="Hi.", calls=[PING]),
    ],
    "longcat": [
        Case("r</longcat_think>Hello.", reasoning="r", content="Hello.", options=FORCED),
        Case(
            f'Checking.<longcat_tool_call>{{"name": "get_weather", "arguments": {J}}}</longcat_tool_call>\n'
            '<longcat_tool_call>{"name": "add", "arguments": {"a": 5, "b": 2.5, "exact": true}}</longcat_tool_call>',
            content="Checking.",
            calls=[WEATHER, ADD],
        ),
    ],
    "internlm2": [
        Case("Just text.", content="Just text."),
        Case(
            f'Checking.<|action_start|><|plugin|>\n{{"name": "get_weather", "parameters": {J}}}<|action_end|>'
            '<|action_start|><|plugin|>{"name": "ping", "arguments": {}}<|action_end|>',
            content="Checking.",
            calls=[WEATHER, PING],
        ),
    ],
    "intern-s1": [
        Case(
            '<think>r</think><|action_start|><|plugin|>{"name": "add", "parameters": {"a": 5, "b": 2.5, '
            '"exact": true}}<|action_end|>',
            reasoning="r",
            calls=[ADD],
        ),
    ],
}
CASES = [(fmt, case) for fmt, cases in EAST.items() for case in cases]
CALL_CASES = [(fmt, case) for fmt, case in CASES if case.calls]
TWO_CALLS = [(fmt, case) for fmt, case in CASES if len(case.calls) >= 2]
CONTENT_ONLY = [(fmt, case) for fmt, case in CASES if not case.calls]


def _ids(x: Any) -> str:
    return x if isinstance(x, str) else ""


def _summary(message: ChatMessage) -> tuple[Any, ...]:
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
    return message.content, message.reasoning_content, calls


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=_ids)
def test_outputs_parse_to_their_messages(fmt: str, case: Case) -> None:
    message = get_format(fmt, tools=TOOLS, **case.options).parse(case.output)
    assert _summary(message) == (case.content, case.reasoning, [(n, a) for n, a, *_ in case.calls])
    assert message.warnings == []


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=_ids)
def test_one_char_chunks_stream_to_the_final_parse(fmt: str, case: Case) -> None:
    chat = get_format(fmt, tools=TOOLS, **case.options)
    stream = chat.stream()
    content, reasoning, arguments = "", "", []
    for ch in case.output:
        for delta in stream.feed(ch):
            content += delta.content or ""
            reasoning += delta.reasoning_content or ""
            for tc in delta.tool_calls:
                if tc.index == len(arguments):
                    arguments.append("")
                arguments[tc.index] += tc.function.arguments or ""
    for delta in stream.finish():
        content += delta.content or ""
        reasoning += delta.reasoning_content or ""
    final = chat.parse(case.output, salt=stream.salt)  # the stream's id salt: same call ids
    assert stream.message.model_dump() == final.model_dump()
    assert (content or None, reasoning or None) == (final.content, final.reasoning_content)
    assert arguments == [c.function.arguments for c in final.tool_calls]


@pytest.mark.parametrize(("fmt", "case"), CALL_CASES, ids=_ids)
def test_lazy_grammar_accepts_the_calls_the_parser_reads(fmt: str, case: Case) -> None:
    g = get_format(fmt, tools=TOOLS, **case.options).grammar()
    assert g.lazy and g.preserved_tokens
    start = trigger_start(g, case.output)
    assert start >= 0, "no trigger fires on an output with tool calls"
    assert Grammar.from_gbnf(g.gbnf).matches(case.output[start:])


@pytest.mark.parametrize(("fmt", "case"), CALL_CASES, ids=_ids)
def test_required_and_named_grammars_accept_the_whole_output(fmt: str, case: Case) -> None:
    # A forced call means the output is the call(s) (OpenAI's meaning); content first needs the opt-in.
    opts = {**case.options, "content_before_forced_calls": bool(case.content)}
    required = get_format(fmt, tools=TOOLS, tool_choice="required", **opts).grammar()
    assert not required.lazy and Grammar.from_gbnf(required.gbnf).matches(case.output)
    if case.content:
        strict = get_format(fmt, tools=TOOLS, tool_choice="required", **case.options).grammar()
        assert not Grammar.from_gbnf(strict.gbnf).matches(case.output)
    if len({c[0] for c in case.calls}) == 1:
        named = get_format(fmt, tools=TOOLS, tool_choice=case.calls[0][0], **opts).grammar()
        assert Grammar.from_gbnf(named.gbnf).matches(case.output)


@pytest.mark.parametrize(("fmt", "case"), CONTENT_ONLY, ids=_ids)
def test_grammar_without_calls_accepts_the_content(fmt: str, case: Case) -> None:
    g = get_format(fmt, tools=TOOLS, tool_choice="none", **case.options).grammar()
    assert Grammar.from_gbnf(g.gbnf).matches(case.output)
    if fmt not in WITHOUT_CALLS:  # a call could come: the lazy grammar waits for its trigger
        assert trigger_start(get_format(fmt, tools=TOOLS, **case.options).grammar(), case.output) == -1


@pytest.mark.parametrize(("fmt", "case"), TWO_CALLS, ids=_ids)
def test_tool_choice_none_and_single_call_options(fmt: str, case: Case) -> None:
    single = get_format(fmt, tools=TOOLS, parallel_tool_calls=False, **case.options).parse(case.output)
    assert [c.function.name for c in single.tool_calls] == [case.calls[0][0]] and single.warnings
    none = get_format(fmt, tools=TOOLS, tool_choice="none", **case.options).parse(case.output)
    assert none.tool_calls == [] and none.content and case.calls[0][0] in none.content
    named = Grammar.from_gbnf(get_format(fmt, tools=TOOLS, tool_choice=case.calls[0][0], **case.options).grammar().gbnf)
    if case.calls[1][0] != case.calls[0][0]:
        assert not named.matches(case.output)


@pytest.mark.parametrize(
    ("fmt", "bad"),
    [
        ("deepseek-v3.2", dsml("function_calls", invoke("ping_all", n=(True, "three")))),  # not an integer
        ("deepseek-v3.2", dsml("function_calls", invoke("get_weather", city=(True, "Paris"), unit=(True, "k")))),
        ("deepseek-v3.2", dsml("function_calls", invoke("add", a=(False, "1")))),  # b is required
        ("deepseek-v4", dsml("function_calls", invoke("ping"))),  # V3.2's block name
        ("deepseek-v3.2", dsml("function_calls", '<｜DSML｜invoke name="ping_all"/>\n')),  # n is required
        ("kimi-k3", "<|open|>tools<|sep|>" + xtml_call("add", a=("number", "1.5"), b=("number", "1"))),
        ("minimax-m3", f"{NS}<tool_call>\n" + m3_invoke("get_weather", unit="c") + f"{NS}</tool_call>"),
        ("step-3", "<｜tool_calls_begin｜>" + step_call("rm") + "<｜tool_calls_end｜>"),
        ("hunyuan-hy-v3", "<tool_calls>" + hy_call("get_weather", unit="k") + "</tool_calls>"),
        ("hunyuan-a13b", '<tool_calls>[{"name": "ping_all", "arguments": {"n": "x"}}]</tool_calls>'),
        ("dots", '<dots_function_call><invoke name="ping_all"></invoke></dots_function_call>'),
        ("ling-3", glm_call("add", a="1")),
        ("longcat", '<longcat_tool_call>{"name": "add", "arguments": {"a": 1}}</longcat_tool_call>'),
        ("internlm2", '<|action_start|><|plugin|>{"name": "rm", "parameters": {}}<|action_end|>'),
        ("minimax-m1", '<tool_calls>\n{"name": "ping_all", "arguments": {}}\n</tool_calls>'),
        ("deepseek-v3", DS_CALLS + DS_CALL.format("ping_all", '{"n": 1.5}')),
    ],
)
def test_grammar_refuses_calls_off_the_schema(fmt: str, bad: str) -> None:
    g = get_format(fmt, tools=TOOLS).grammar()
    start = max(trigger_start(g, bad), 0)
    assert not Grammar.from_gbnf(g.gbnf).matches(bad[start:])


def test_dsml_string_attribute_decides_raw_text_or_json() -> None:
    fmt = get_format("deepseek-v3.2", tools=TOOLS)
    out = dsml("function_calls", invoke("write_file", path=(True, "null"), content=(True, '{"a": 1}')))
    assert json.loads(fmt.parse(out).tool_calls[0].function.arguments) == {"path": "null", "content": '{"a": 1}'}
    grammar = Grammar.from_gbnf(fmt.grammar().gbnf)
    assert not grammar.matches(dsml("function_calls", invoke("ping_all", n=(False, '"3"'))))
    assert grammar.matches(dsml("function_calls", invoke("ping_all", n=(False, "-3"))))
    # The schema types a declared parameter whichever attribute the model wrote.
    marked_string = dsml("function_calls", invoke("ping_all", n=(True, "3")))
    assert json.loads(fmt.parse(marked_string).tool_calls[0].function.arguments) == {"n": 3}
    assert grammar.matches(marked_string) and not grammar.matches(marked_string.replace(">3<", ">three<"))


def test_dsml_tool_without_declared_parameters_takes_any_typed_by_its_attribute() -> None:
    tools = [{"type": "function", "function": {"name": "free", "parameters": {"type": "object"}}}]
    fmt = get_format("deepseek-v4", tools=tools)
    out = dsml("tool_calls", invoke("free", count=(False, "42"), label=(True, "42")))
    assert json.loads(fmt.parse(out).tool_calls[0].function.arguments) == {"count": 42, "label": "42"}
    assert Grammar.from_gbnf(fmt.grammar().gbnf).matches(out)


def test_kimi_k3_types_arguments_by_the_schema_not_the_type_attribute() -> None:
    out = "<|open|>tools<|sep|>" + xtml_call("add", a=("string", "5"), b=("string", "1")) + "<|close|>tools<|sep|>"
    message = get_format("kimi-k3", tools=TOOLS).parse(out)
    assert json.loads(message.tool_calls[0].function.arguments) == {"a": 5, "b": 1}
    # Without declared properties the attribute is all there is.
    tools = [{"type": "function", "function": {"name": "free", "parameters": {"type": "object"}}}]
    out = "<|open|>tools<|sep|>" + xtml_call("free", n=("integer", "5"), s=("string", "5")) + "<|close|>tools<|sep|>"
    chat = get_format("kimi-k3", tools=tools)
    assert json.loads(chat.parse(out).tool_calls[0].function.arguments) == {"n": 5, "s": "5"}
    assert Grammar.from_gbnf(chat.grammar().gbnf).matches(out)


def test_reasoning_left_in_content_when_asked() -> None:
    out = "<think>r</think>Checking.<tool_calls>" + hy_call("ping") + "</tool_calls>"
    message = get_format("hunyuan-hy-v3", tools=TOOLS, reasoning_format="none").parse(out)
    assert (message.content, message.reasoning_content) == ("<think>r</think>Checking.", None)
    forced = get_format("deepseek-v3.2", reasoning_format="none", thinking_forced_open=True).parse("r</think>Hi")
    assert forced.content == "<think>r</think>Hi"


def test_kimi_k15_has_no_call_syntax() -> None:
    fmt = get_format("kimi-k1.5", tools=TOOLS)
    assert fmt.parse('{"name": "ping"}').content == '{"name": "ping"}'
    assert not fmt.grammar().lazy


# Text before the trigger and the trigger text, for sampling each format's lazy grammar (see test_roundtrip).
SETUPS: dict[str, tuple[str, str]] = {
    "deepseek-v3": ("{free}", DS_CALLS),
    "deepseek-v3.2": ("<think>{free}</think>\n\n", "<｜DSML｜function_calls>"),
    "deepseek-v4": ("{free}", "<｜DSML｜tool_calls>"),
    "kimi-k3": ("<|open|>think<|sep|>{free}<|close|>think<|sep|>", "<|open|>tools<|sep|>"),
    "minimax-m3": ("<mm:think>{free}</mm:think>", NS + "<tool_call>"),
    "minimax-m1": ("<think>{free}</think>{free}", "<tool_calls>"),
    "step-3": ("<think>{free}</think>", "<｜tool_calls_begin｜>"),
    "hunyuan-hy-v3": ("<think>{free}</think>", "<tool_calls>"),
    "hunyuan-a13b": ("<think>\n{free}\n</think>\n<answer>\n{free}", "<tool_calls>"),
    "dots": ("{free}\n", "<dots_function_call>"),
    "ling-3": ("<think>{free}</think>", "<tool_call>"),
    "longcat": ("{free}", "<longcat_tool_call>"),
    "internlm2": ("{free}", "<|action_start|>"),
    "intern-s1": ("<think>{free}</think>", "<|action_start|>"),
}
CLOSERS = (
    *("</｜DSML｜parameter>", "<|close|>argument<|sep|>", "</steptml:parameter>", "</arg_value>", "</parameter>"),
    *(NS + "</city>", NS + "</unit>", NS + "</path>", NS + "</content>"),
)
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_grammar_samples_parse_into_valid_calls(
    name: str,
    vocab: Vocabulary,  # noqa: F811  (the round trip's fixture)
    bias: np.ndarray[Any, Any],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(test_roundtrip.SETUPS, name, SETUPS[name])
    monkeypatch.setattr(test_roundtrip, "CLOSERS", test_roundtrip.CLOSERS + CLOSERS)
    fmt = get_format(name, tools=TOOLS)
    for seed in (0, 1):
        output = test_roundtrip.sample(fmt, vocab, bias, seed)
        message = fmt.parse(output)
        assert message.warnings == [], (output, message.warnings)
        assert message.tool_calls, output
        for call in message.tool_calls:
            jsonschema.validate(call.function.parsed_arguments(), SCHEMAS[call.function.name])


UNKNOWN_TOOL = {
    "deepseek-v3": DS_CALLS + DS_CALL.format("rm", "{}"),
    "deepseek-v3.2": dsml("function_calls", invoke("rm")),
    "deepseek-v4": dsml("tool_calls", invoke("rm")),
    "kimi-k3": "<|open|>tools<|sep|>" + xtml_call("rm") + "<|close|>tools<|sep|>",
    "minimax-m3": f"{NS}<tool_call>\n" + m3_invoke("rm") + f"{NS}</tool_call>",
    "minimax-m1": '<tool_calls>\n{"name": "rm", "arguments": {}}\n</tool_calls>',
    "step-3": "<｜tool_calls_begin｜>" + step_call("rm") + "<｜tool_calls_end｜>",
    "hunyuan-hy-v3": "<tool_calls>" + hy_call("rm") + "</tool_calls>",
    "hunyuan-a13b": '<tool_calls>[{"name": "rm", "arguments": {}}]</tool_calls>',
    "dots": '<dots_function_call><invoke name="rm"></invoke></dots_function_call>',
    "ling-3": glm_call("rm"),
    "longcat": '<longcat_tool_call>{"name": "rm", "arguments": {}}</longcat_tool_call>',
    "internlm2": '<|action_start|><|plugin|>{"name": "rm", "parameters": {}}<|action_end|>',
    "intern-s1": '<|action_start|><|plugin|>{"name": "rm", "arguments": {}}<|action_end|>',
}


@pytest.mark.parametrize(("fmt", "out"), sorted(UNKNOWN_TOOL.items()), ids=_ids)
def test_a_call_to_an_unknown_tool_is_content_and_named_in_the_warning(fmt: str, out: str) -> None:
    message = get_format(fmt, tools=TOOLS).parse("Hi " + out)
    assert message.tool_calls == [] and message.content == "Hi " + out
    assert any("unknown tool 'rm'" in w for w in message.warnings), message.warnings


@pytest.mark.parametrize("name", sorted(EAST))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_outputs_stream_to_their_final_parse(name: str, data: st.DataObject) -> None:
    """Any text, not only well-formed output: an output damaged by a few edits streams to its own final parse
    (deltas, chunk rules and the OpenAI accumulator included)."""
    case = data.draw(st.sampled_from(EAST[name]))
    text = case.output
    for where, how, junk in data.draw(st.lists(_EDIT, min_size=1, max_size=3)):
        k = where % (len(text) + 1)
        if how == "insert":
            text = text[:k] + junk + text[k:]
        else:
            text = text[:k] + text[k + 1 :] if how == "delete" else text[:k]
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=10_000), max_size=8))
    _check(get_format(name, tools=TOOLS, **case.options), text, _chunks(text, cuts) if cuts else list(text))


CORPUS = [s for s in load_samples() if s.format in EAST and s.id not in JUDGED]


@pytest.mark.parametrize("sample", CORPUS, ids=lambda s: f"{s.format}:{s.id}")
def test_grammar_accepts_the_corpus_outputs_the_parser_reads(sample: Sample) -> None:
    message = sample.build().parse(sample.output)
    assert not message.warnings
    if message.tool_calls:  # from the trigger on, as a sampler would run it
        g = sample.build().grammar()
        start = trigger_start(g, sample.output) if g.lazy else 0
        assert start >= 0 and Grammar.from_gbnf(g.gbnf).matches(sample.output[start:])
    else:
        plain = get_format(sample.format, **{**sample.options, "tool_choice": "none"}).grammar()
        assert Grammar.from_gbnf(plain.gbnf).matches(sample.output)


FREE_TOOL = [{"type": "function", "function": {"name": "free", "parameters": {"type": "object"}}}]


@pytest.mark.parametrize(
    ("fmt", "out"),
    [
        ("step-3", "<｜tool_calls_begin｜>" + step_call("free", count="42", q="a b") + "<｜tool_calls_end｜>"),
        ("hunyuan-hy-v3", "<tool_calls>" + hy_call("free", count="42", q="a b") + "</tool_calls>"),
        (
            "dots",
            '<dots_function_call><invoke name="free">\n<parameter name="count">42</parameter>\n'
            '<parameter name="q">a b</parameter>\n</invoke></dots_function_call>',
        ),
    ],
)
def test_tool_without_declared_properties_takes_any_arguments_as_strings(fmt: str, out: str) -> None:
    chat = get_format(fmt, tools=FREE_TOOL)
    message = chat.parse(out)
    assert json.loads(message.tool_calls[0].function.arguments) == {"count": "42", "q": "a b"}
    assert message.warnings == [] and Grammar.from_gbnf(chat.grammar().gbnf).matches(out)
