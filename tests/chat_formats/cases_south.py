"""The hand-written outputs of the south formats (see ``test_formats_south.py``): per format, outputs with the
message each must parse to. Data only, shared by the format tests and the law tests."""

from __future__ import annotations

import json
from typing import Any

from tests.chat_formats.samples import CODE, TOOLS, Case

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
