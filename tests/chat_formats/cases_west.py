"""The hand-written outputs of the west formats (see ``test_formats_west.py``): per format, outputs with the
message each must parse to. Data only, shared by the format tests and the law tests."""

from __future__ import annotations

import json
from typing import Any

from tests.chat_formats.samples import CODE, Case

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
            # blank content next to calls is None (README: "Blank content is null")
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
            # blank content next to calls is None (README: "Blank content is null")
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
            # blank content next to calls is None (README: "Blank content is null")
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
            # blank content next to calls is None
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
