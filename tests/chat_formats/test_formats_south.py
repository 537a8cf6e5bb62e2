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
from chat_formats.builder import parse_tools
from chat_formats.formats import BUILDERS
from chat_formats.formats._layout import FormatOptions
from chat_formats.formats.gemma import gemma_to_json
from gbnf_backend import Grammar
from tests.chat_formats.corpus import JUDGED, load_samples
from tests.chat_formats.samples import CODE, TOOLS, Case
from tests.chat_formats.test_grammar import trigger_start
from tests.chat_formats.test_stream_laws import _check

CONFIGURE = {
    "type": "function",
    "function": {
        "name": "configure",
        "parameters": {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "opts": {"type": "object"},
                "level": {"type": "integer"},
                "on": {"type": "boolean"},
            },
            "required": ["tags"],
        },
    },
}
SOUTH_TOOLS: list[dict[str, Any]] = [*TOOLS, CONFIGURE]

PARIS = ("get_weather", {"city": "Paris", "unit": "c"})
ADD = ("add", {"a": -2, "b": 25.0, "exact": True})
FILE = ("write_file", {"path": "src/a.py", "content": CODE})
NESTED = {"tags": ["a", "b c"], "opts": {"depth": 2, "inner": {"x": None, "y": [True, False]}, "name": "n"}, "level": 3}
CONFIG = ("configure", NESTED)


def _gemma(call_open: str, call_close: str, q: str) -> list[Case]:
    def call(body: str) -> str:
        return f"{call_open}call:{body}{call_close}"

    paris = call(f"get_weather{{city:{q}Paris{q},unit:{q}c{q}}}")
    add = call("add{a:-2,b:2.5e1,exact:true}")
    config = call(
        f"configure{{tags:[{q}a{q},{q}b c{q}],opts:{{depth:2,inner:{{x:null,y:[true,false]}},name:{q}n{q}}},level:3}}"
    )
    return [
        Case("Hello, world!", content="Hello, world!"),
        Case("Checking." + paris, content="Checking.", calls=[PARIS]),
        Case(paris + add, calls=[PARIS, ADD]),
        Case(config, calls=[CONFIG]),
        Case(call(f"write_file{{path:{q}src/a.py{q}, content:{q}{CODE}{q}}}"), calls=[FILE]),
    ]


def _gigachat3() -> list[Case]:
    msg, fc = "<|message_sep|>\n\nfunction call<|role_sep|>\n", "<|function_call|>"
    paris = '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}'
    add = '{"name": "add", "arguments": {"a": -2, "b": 25.0, "exact": true}}'
    return [
        Case("Hello, world!", content="Hello, world!"),
        Case("Checking." + msg + paris, content="Checking.", calls=[PARIS]),
        Case(fc + paris + "</s>", calls=[PARIS]),
        Case(fc + paris + fc + add, calls=[PARIS, ADD]),
        Case(msg + json.dumps({"name": "configure", "arguments": NESTED}), calls=[CONFIG]),
    ]


def _gcml(name: str, **args: tuple[str, str]) -> str:
    params = "".join(
        f'<｜GCML｜parameter name="{k}" string="{kind}">{v}</｜GCML｜parameter>\n' for k, (kind, v) in args.items()
    )
    return f'<｜GCML｜invoke name="{name}">\n{params}</｜GCML｜invoke>\n'


def _gigachat35() -> list[Case]:
    paris = _gcml("get_weather", city=("true", "Paris"), unit=("true", "c"))
    add = _gcml("add", a=("false", "-2"), b=("false", "25.0"), exact=("false", "true"))
    config = _gcml(
        "configure", tags=("false", json.dumps(NESTED["tags"])), opts=("false", json.dumps(NESTED["opts"])),
        level=("false", "3"),
    )  # fmt: skip
    wrap = "<｜GCML｜tool_calls>\n{}</｜GCML｜tool_calls>".format
    return [
        Case("Hello, world!", content="Hello, world!"),
        Case("<think>Let me see.</think>\n\nSunny.", content="Sunny.", reasoning="Let me see."),
        Case(
            "<think>Weather.</think>\n\nChecking." + wrap(paris),
            content="Checking.",
            reasoning="Weather.",
            calls=[PARIS],
        ),
        Case(wrap(paris + add), calls=[PARIS, ADD]),
        Case(
            wrap(config + _gcml("write_file", path=("true", "src/a.py"), content=("true", CODE))), calls=[CONFIG, FILE]
        ),
    ]


def _action(*calls: tuple[str, dict[str, Any]]) -> str:
    items = [{"tool_call_id": str(i), "tool_name": n, "parameters": a} for i, (n, a) in enumerate(calls)]
    return "<|START_ACTION|>" + json.dumps(items, indent=1) + "<|END_ACTION|>"


def _command4() -> list[Case]:
    return [
        Case("<|START_TEXT|>Hello, world!<|END_TEXT|><|END_OF_TURN_TOKEN|>", content="Hello, world!"),
        Case(
            "<|START_THINKING|>Let me see.<|END_THINKING|><|START_TEXT|>Sunny.",
            content="Sunny.",
            reasoning="Let me see.",
        ),
        Case(
            "Weather.<|END_THINKING|>" + _action(PARIS) + "<|END_OF_TURN_TOKEN|>",
            reasoning="Weather.",
            calls=[PARIS],
            options={"thinking_forced_open": True},
        ),
        Case("<|START_THINKING|>Two.<|END_THINKING|>" + _action(PARIS, ADD), reasoning="Two.", calls=[PARIS, ADD]),
        Case(_action(CONFIG, FILE), calls=[CONFIG, FILE]),
        Case("<|START_TEXT|>Checking.<|END_TEXT|>" + _action(PARIS), content="Checking.", calls=[PARIS]),
    ]


def _r_plus(*calls: tuple[str, dict[str, Any]]) -> str:
    return "Action:\n```json\n" + json.dumps([{"tool_name": n, "parameters": a} for n, a in calls]) + "\n```"


def _command_r_plus() -> list[Case]:
    return [
        Case("<|CHATBOT_TOKEN|>Hello, world!<|END_OF_TURN_TOKEN|>", content="Hello, world!"),
        Case("I will check.\n" + _r_plus(PARIS), content="I will check.\n", calls=[PARIS]),
        Case(_r_plus(PARIS, ADD) + "<|END_OF_TURN_TOKEN|>", calls=[PARIS, ADD]),
        Case(_r_plus(CONFIG, FILE), calls=[CONFIG, FILE]),
    ]


def _invoke(name: str, args: dict[str, Any]) -> str:
    payload = json.dumps({"name": name, "args": args})
    return f"<|message_model|>{name}<|content_invoke_tool_json|>{payload}<|end_message|>"


def _inkling() -> list[Case]:
    think = "<|content_thinking|>Let me see.<|end_message|>"
    text = "<|message_model|><|content_text|>{}<|end_message|>".format
    end = "<|content_model_end_sampling|>"
    return [
        Case("<|content_text|>Hello, world!<|end_message|>" + end, content="Hello, world!"),
        Case(think + text("Sunny.") + end, content="Sunny.", reasoning="Let me see."),
        Case(
            think + text("Checking.") + _invoke(*PARIS) + end,
            content="Checking.",
            reasoning="Let me see.",
            calls=[PARIS],
        ),
        Case(_invoke(*PARIS)[len("<|message_model|>") :] + _invoke(*ADD), calls=[PARIS, ADD]),
        Case(_invoke(*CONFIG) + _invoke(*FILE) + end, calls=[CONFIG, FILE]),
    ]


def _ifm(name: str, **args: str) -> str:
    body = "".join(f"<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{v}</ifm|arg_value>" for k, v in args.items())
    return f"<ifm|tool_call>{name}\n{body}</ifm|tool_call>"


def _k2_horizon() -> list[Case]:
    paris = _ifm("get_weather", city="Paris", unit="c")
    add = "<ifm|tool_call>add\n<ifm|arg_key>a</ifm|arg_key><ifm|arg_type>int</ifm|arg_type><ifm|arg_value>-2"
    add += "</ifm|arg_value><ifm|arg_key>b</ifm|arg_key><ifm|arg_value>25.0</ifm|arg_value>"
    add += "<ifm|arg_key>exact</ifm|arg_key><ifm|arg_value>true</ifm|arg_value></ifm|tool_call>"
    config = _ifm("configure", tags=json.dumps(NESTED["tags"]), opts=json.dumps(NESTED["opts"]), level="3")
    wrap = "<ifm|tool_calls>{}</ifm|tool_calls>".format
    return [
        Case("Hello, world!", content="Hello, world!"),
        Case("<ifm|think>Let me see.</ifm|think>Sunny.", content="Sunny.", reasoning="Let me see."),
        Case(
            "<ifm|think_fast>Weather.</ifm|think>Checking." + wrap(paris),
            content="Checking.",
            reasoning="Weather.",
            calls=[PARIS],
        ),
        Case(wrap(paris + "\n" + add), calls=[PARIS, ADD]),
        Case(wrap(config + _ifm("write_file", path="src/a.py", content=CODE)), calls=[CONFIG, FILE]),
    ]


def _atem(*calls: tuple[str, dict[str, str]]) -> str:
    def invoke(name: str, args: dict[str, str]) -> str:
        params = "".join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in args.items())
        return f'<atem:invoke name="{name}">\n{params}</atem:invoke>\n'

    return "<atem:function_calls>\n" + "".join(invoke(n, a) for n, a in calls) + "</atem:function_calls>"


def _muse_glimmer() -> list[Case]:
    to = "<|start|>assistant to={}<|message|>".format
    paris = ("get_weather", {"city": "Paris", "unit": "c"})
    add = ("add", {"a": "-2", "b": "25.0", "exact": "true"})
    config = ("configure", {"tags": json.dumps(NESTED["tags"]), "opts": json.dumps(NESTED["opts"]), "level": "3"})
    return [
        Case(" to=user<|message|>Hello, world!<|eot|>", content="Hello, world!"),
        Case(
            " to=self<|message|>Let me see.<|eom|>" + to("user") + "Sunny.<|eot|>",
            content="Sunny.",
            reasoning="Let me see.",
        ),
        Case(
            " to=self<|message|>W.<|eom|>"
            + to("user")
            + "Checking.<|eom|>"
            + to("functions")
            + _atem(paris)
            + "<|eom|>",
            content="Checking.",
            reasoning="W.",
            calls=[PARIS],
        ),
        Case(" to=functions<|message|>" + _atem(paris) + "<|eom|>" + to("functions") + _atem(add), calls=[PARIS, ADD]),
        Case(
            " to=functions<|message|>" + _atem(config, ("write_file", {"path": "src/a.py", "content": CODE})),
            calls=[CONFIG, FILE],
        ),
    ]


def _llm_jp() -> list[Case]:
    start = "<|start|> assistant<|channel|> "

    def call(name: str, args: dict[str, Any], closer: str) -> str:
        return f"{start}commentary to=functions.{name}<|message|> {json.dumps(args)}{closer}"

    return [
        Case("<|channel|> final<|message|> Hello, world!", content="Hello, world!"),
        Case(
            "<|channel|> analysis<|message|> Let me see.<|end|>" + start + "final<|message|> Sunny.",
            content="Sunny.",
            reasoning="Let me see.",
        ),
        Case(
            "<|channel|> commentary<|message|> Checking.<|end|>" + call(*PARIS, "<|call|>"),
            content="Checking.",
            calls=[PARIS],
        ),
        Case(call(*PARIS, "<|end|>") + call(*ADD, "<|call|>"), calls=[PARIS, ADD]),
        Case(call(*CONFIG, "<|end|>") + call(*FILE, "<|call|>"), calls=[CONFIG, FILE]),
    ]


def _telechat4() -> list[Case]:
    forced = {"thinking_forced_open": True}
    paris = "<tool_call>get_weather<param_key>city</param_key><param_value>Paris</param_value>"
    paris += "<param_key>unit</param_key><param_value>c</param_value></tool_call>"
    add = '<tool_call>{"name": "add", "arguments": {"a": -2, "b": 25.0, "exact": true}}</tool_call>'
    config = "<tool_call>configure<param_key>tags</param_key><param_value>" + json.dumps(NESTED["tags"])
    config += "</param_value><param_key>opts</param_key><param_value>" + json.dumps(NESTED["opts"])
    config += "</param_value><param_key>level</param_key><param_value>3</param_value></tool_call>"
    return [
        Case("Hello, world!", content="Hello, world!"),
        Case("Let me see.</think>Sunny.", content="Sunny.", reasoning="Let me see.", options=forced),
        Case("W.</think>Checking." + paris, content="Checking.", reasoning="W.", calls=[PARIS], options=forced),
        Case(paris + "\n" + add, calls=[PARIS, ADD]),
        Case("W.</think>" + add, reasoning="W.", calls=[ADD], options=forced),
        Case(
            config + "<tool_call>" + json.dumps({"name": "write_file", "arguments": FILE[1]}) + "</tool_call>",
            calls=[CONFIG, FILE],
        ),
    ]


def _array(opener: str, closer: str, *calls: tuple[str, dict[str, Any]]) -> str:
    return opener + json.dumps([{"name": n, "arguments": a} for n, a in calls]) + closer


def _granite32() -> list[Case]:
    think = "Here is my thought process:Let me see.Here is my response:"
    return [
        Case("Hello, world!", content="Hello, world!"),
        Case(think + "Sunny.", content="Sunny.", reasoning="Let me see."),
        Case(
            "Here's my thought process:W.Here's my response:" + _array("<|tool_call|>", "", PARIS),
            reasoning="W.",
            calls=[PARIS],
        ),
        Case(_array("<|tool_call|>", "", PARIS, ADD), calls=[PARIS, ADD]),
        Case("Checking." + _array("<|tool_call|>", "", PARIS), content="Checking.", calls=[PARIS]),
        Case(_array("<|tool_call|>", "", CONFIG, FILE), calls=[CONFIG, FILE]),
    ]


def _apriel16() -> list[Case]:
    forced = {"thinking_forced_open": True}
    final = "\n[BEGIN FINAL RESPONSE]\n"
    return [
        Case("Hello, world!", content="Hello, world!"),
        Case("Let me see." + final + "Sunny.", content="Sunny.", reasoning="Let me see.\n", options=forced),
        Case(
            "W." + final + _array("<tool_calls>", "</tool_calls>", PARIS),
            reasoning="W.\n",
            calls=[PARIS],
            options=forced,
        ),
        Case("Checking." + _array("<tool_calls>", "</tool_calls>", PARIS), content="Checking.", calls=[PARIS]),
        Case(_array("<tool_calls>", "</tool_calls>", PARIS, ADD), calls=[PARIS, ADD]),
        Case(_array("<tool_calls>", "</tool_calls>", CONFIG, FILE), calls=[CONFIG, FILE]),
    ]


SOUTH: dict[str, list[Case]] = {
    "gemma-4": [
        *_gemma("<|tool_call>", "<tool_call|>", '<|"|>'),
        Case("<|channel>thought\nLet me see.<channel|>Sunny.", content="Sunny.", reasoning="Let me see."),
        Case("<|channel>thought\nA<channel|>Hi<|channel>thought\nB<channel|><channel|>", content="Hi", reasoning="AB"),
    ],
    "functiongemma": _gemma("<start_function_call>", "<end_function_call>", "<escape>"),
    "gigachat-3": _gigachat3(),
    "gigachat-3.5": _gigachat35(),
    "cohere-command-4": _command4(),
    "command-r-plus": _command_r_plus(),
    "inkling": _inkling(),
    "k2-horizon": _k2_horizon(),
    "granite-3.2": _granite32(),
    "apriel-1.6": _apriel16(),
    "muse-glimmer": _muse_glimmer(),
    "llm-jp-harmony": _llm_jp(),
    "telechat-4": _telechat4(),
}
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
    _check(get_format(fmt, tools=SOUTH_TOOLS, **case.options), case.output, list(case.output))


@pytest.mark.parametrize(("fmt", "case"), CALL_CASES, ids=_ids)
def test_grammar_accepts_the_calls_the_parser_reads(fmt: str, case: Case) -> None:
    lazy = get_format(fmt, tools=SOUTH_TOOLS, **case.options).grammar()
    assert lazy.lazy
    start = trigger_start(lazy, case.output)
    assert start >= 0, "no trigger fires on an output with calls"
    assert Grammar.from_gbnf(lazy.gbnf).matches(case.output[start:])
    required = get_format(fmt, tools=SOUTH_TOOLS, tool_choice="required", **case.options).grammar()
    assert Grammar.from_gbnf(required.gbnf).matches(case.output)


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
    _check(fmt, out, list(out))
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
