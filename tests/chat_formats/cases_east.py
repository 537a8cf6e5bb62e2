"""The hand-written outputs of the east formats (see ``test_formats_east.py``): per format, outputs with the
message each must parse to. Data only, shared by the format tests and the law tests."""

from __future__ import annotations

from tests.chat_formats.samples import CODE, Case

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
