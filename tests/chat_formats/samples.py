"""Our own sample outputs per format, written from the format specs (reference §6), with expected messages.

``SAMPLES[format]`` is a list of :class:`Case`: the output, the options to build the format with (on top of
``TOOLS``), and the expected message (``content``, ``reasoning``, ``calls`` as ``(name, arguments[, id])``).
The cases cover reasoning, content before calls, parallel calls, prefix tool names, typed XML values, code
with meaningful whitespace, unicode and escapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SAMPLES", "TOOLS", "Case"]

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "add",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "number"}, "exact": {"type": "boolean"}},
                "required": ["a", "b"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
    {"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}},
    {
        "type": "function",
        "function": {
            "name": "ping_all",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        },
    },
]

CODE = 'def f(x):\n    return "a\\tb" + x  # ünï\n\n'


@dataclass(frozen=True)
class Case:
    """One output and the message it must parse to."""

    output: str
    content: str | None = None
    reasoning: str | None = None
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)


J = '{"city": "Paris", "unit": "c"}'
FILE = {"path": "src/a.py", "content": CODE}
FILE_JSON = json.dumps(FILE, ensure_ascii=False)
SAMPLES: dict[str, list[Case]] = {
    "hermes": [
        Case("Just text, <b>bold</b> and a < sign.", content="Just text, <b>bold</b> and a < sign."),
        Case(
            f'Let me check.\n<tool_call>\n{{"name": "get_weather", "arguments": {J}}}\n</tool_call>',
            content="Let me check.\n",
            calls=[("get_weather", {"city": "Paris", "unit": "c"})],
        ),
        Case(
            '<tool_call>{"name": "ping", "arguments": {}}</tool_call>\n<tool_call>{"name": "ping_all", '
            '"arguments": {"n": 3}}</tool_call>',
            calls=[("ping", {}), ("ping_all", {"n": 3})],
        ),
        Case(
            "So:\n</think>\n\nOK<tool_call>\n" + '{"name": "add", "arguments": {"a": 1, "b": 2.5}}\n</tool_call>',
            reasoning="So:\n",
            content="\n\nOK",
            calls=[("add", {"a": 1, "b": 2.5})],
            options={"thinking_forced_open": True},
        ),
    ],
    "qwen3": [
        Case("<think>\nhmm\n</think>\n\nThe answer.", reasoning="\nhmm\n", content="\n\nThe answer."),
        Case(
            "<think>I will call it\n<tool_call>\n" + '{"name": "write_file", "arguments": {"path": "a.py", "content": '
            '"x = \\"\\u00e9\\"\\n"}}\n</tool_call>',
            reasoning="I will call it\n",
            calls=[("write_file", {"path": "a.py", "content": 'x = "é"\n'})],
        ),
    ],
    "qwen3-coder": [
        Case(
            "Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.py\n</parameter>\n"
            f"<parameter=content>\n{CODE}\n</parameter>\n</function>\n</tool_call>",
            content="Writing it.\n",
            calls=[("write_file", {"path": "src/a.py", "content": CODE})],
        ),
        Case(
            "<tool_call>\n<function=add>\n<parameter=b>\n2.5\n</parameter>\n<parameter=a>\n5\n</parameter>\n"
            "<parameter=exact>\ntrue\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=ping>\n"
            "</function>\n</tool_call>",
            calls=[("add", {"b": 2.5, "a": 5, "exact": True}), ("ping", {})],
        ),
        Case(
            "<think>\nplan: <tool_call> later\n</think>\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\n"
            'Zürich "HB"\n</parameter>\n</function>\n</tool_call>',
            reasoning="\nplan: <tool_call> later\n",
            content=None,  # whitespace only, next to reasoning and calls: null
            calls=[("get_weather", {"city": 'Zürich "HB"'})],
        ),
    ],
    "deepseek-r1": [
        Case(
            "Thinking hard</think>\n\nHello!",
            reasoning="Thinking hard",
            content="\n\nHello!",
            options={"thinking_forced_open": True},
        ),
        Case(
            "ok</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
            f"{J}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>ping\n```json\n{{}}\n```"
            "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            reasoning="ok",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping", {})],
            options={"thinking_forced_open": True},
        ),
    ],
    "mistral-nemo": [
        Case("No tools needed [really].", content="No tools needed [really]."),
        Case(
            '[TOOL_CALLS][{"name": "add", "arguments": {"a": 1, "b": 2}, "id": "abc123XYZ"}, '
            '{"name": "ping_all", "arguments": {"n": 2}, "id": "000000002"}]',
            calls=[("add", {"a": 1, "b": 2}, "abc123XYZ"), ("ping_all", {"n": 2}, "000000002")],
        ),
    ],
    "ministral-3": [
        Case("[THINK]Let me see[/THINK]Sure.", reasoning="Let me see", content="Sure."),
        Case(
            f"[THINK]call[/THINK]On it.[TOOL_CALLS]get_weather[ARGS]{J}[TOOL_CALLS]ping[CALL_ID]q1w2e3r4t[ARGS]{{}}",
            reasoning="call",
            content="On it.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping", {}, "q1w2e3r4t")],
        ),
    ],
    "gpt-oss": [
        Case(
            "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Done.",
            reasoning="Think.",
            content="Done.",
        ),
        Case(
            "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary "
            f"to=functions.get_weather <|constrain|>json<|message|>{J}<|call|>",
            reasoning="Need weather.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"})],
        ),
        Case(
            ' to=functions.add<|channel|>commentary<|message|>{"a": 2, "b": 3}',
            calls=[("add", {"a": 2, "b": 3})],
        ),
    ],
    "generic": [
        Case('{"response": "Line 1\\nLine \\"2\\" \\u00e9\\ud83d\\ude00"}', content='Line 1\nLine "2" é\U0001f600'),
        Case('{"response": {"answer": 42}}', content='{"answer": 42}'),
        Case(
            '{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2.5}, "id": "call_7"},\n'
            '  {"arguments": {"n": 2}, "name": "ping_all"}]}',
            calls=[("add", {"a": 1, "b": 2.5}, "call_7"), ("ping_all", {"n": 2})],
        ),
        Case(
            f'{{"tool_call": {{"name": "get_weather", "arguments": {J}}}}}',
            calls=[("get_weather", {"city": "Paris", "unit": "c"})],
            options={"parallel_tool_calls": False},
        ),
    ],
    "content-only": [
        Case(
            "<think>Plan: be brief.</think>Paris is in France.",
            reasoning="Plan: be brief.",
            content="Paris is in France.",
        ),
        Case(
            'No tools here: <tool_call>{"name": "ping_all"}</tool_call>',
            content='No tools here: <tool_call>{"name": "ping_all"}</tool_call>',
        ),
        Case(
            "still thinking</think>\nAnswer ü",
            reasoning="still thinking",
            content="\nAnswer ü",
            options={"thinking_forced_open": True},
        ),
        Case("<think>a</think>b", content="<think>a</think>b", options={"reasoning_format": "none"}),
    ],
    "magistral": [
        Case(
            "[THINK]Let me see [TOOL_CALLS] later[/THINK]Sure.",
            reasoning="Let me see [TOOL_CALLS] later",
            content="Sure.",
        ),
        Case(
            '[THINK]call[/THINK]On it.[TOOL_CALLS][{"name": "ping_all", "arguments": {"n": 2}, "id": "abc123XYZ"}, '
            f'{{"name": "get_weather", "arguments": {J}}}]',
            reasoning="call",
            content="On it.",
            calls=[("ping_all", {"n": 2}, "abc123XYZ"), ("get_weather", {"city": "Paris", "unit": "c"})],
        ),
    ],
    "pythonic": [
        Case("See [1] and [ping] (not calls).", content="See [1] and [ping] (not calls)."),
        Case(
            '[get_weather(city=\'Martha\\\'s "Vineyard"\', unit="f"), ping(), ping_all(n=-0)]',
            calls=[
                ("get_weather", {"city": 'Martha\'s "Vineyard"', "unit": "f"}),
                ("ping", {}),
                ("ping_all", {"n": 0}),
            ],
        ),
        Case(
            "Calling.<|python_start|>[add( b = 1e3 , a=7, exact=True )]<|python_end|>",
            content="Calling.",
            calls=[("add", {"b": 1000.0, "a": 7, "exact": True})],
        ),
        Case(
            "[write_file(path='a.py', content='x = {\\'k\\': [1, 2]}\\n\\tü')]",
            calls=[("write_file", {"path": "a.py", "content": "x = {'k': [1, 2]}\n\tü"})],
        ),
    ],
    "lfm2": [
        Case("<think>Hmm [ping()]</think>No call needed.", reasoning="Hmm [ping()]", content="No call needed."),
        Case(
            "<think>call it</think>Checking.<|tool_call_start|>[get_weather(city=\"Zürich\", unit='c'), "
            "add(a=1, b=2, exact=false)]<|tool_call_end|>",
            reasoning="call it",
            content="Checking.",
            calls=[("get_weather", {"city": "Zürich", "unit": "c"}), ("add", {"a": 1, "b": 2, "exact": False})],
        ),
        Case("Sure.[ping_all(n=3)]", content="Sure.", calls=[("ping_all", {"n": 3})]),
    ],
    "kimi-k2": [
        Case("<think>Hmm.</think>Plain answer.", reasoning="Hmm.", content="Plain answer."),
        Case(
            "<think>Two calls<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
            f"<|tool_call_argument_begin|>{J}<|tool_call_end|><|tool_call_begin|>functions.ping:1"
            "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
            reasoning="Two calls",
            calls=[
                ("get_weather", {"city": "Paris", "unit": "c"}, "functions.get_weather:0"),
                ("ping", {}, "functions.ping:1"),
            ],
        ),
    ],
    "deepseek-v3.1": [
        Case(
            "Let me think</think>Paris it is.",
            reasoning="Let me think",
            content="Paris it is.",
            options={"thinking_forced_open": True},
        ),
        Case(
            "<think>plan</think>Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
            f'{J}<｜tool▁call▁end｜><｜tool▁call▁begin｜>ping_all<｜tool▁sep｜>{{"n": 2}}<｜tool▁call▁end｜>'
            "<｜tool▁calls▁end｜>",
            reasoning="plan",
            content="Checking.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping_all", {"n": 2})],
        ),
        Case(
            f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>{FILE_JSON}<｜tool▁call▁end｜>",
            calls=[("write_file", FILE)],
        ),
    ],
    "granite": [
        Case("<think>hmm</think><response>Sunny, 25 °C.</response>", reasoning="hmm", content="Sunny, 25 °C."),
        Case(
            f'<think>two</think><response>Checking.</response><|tool_call|>[{{"name": "get_weather", "arguments": {J}}}'
            ', {"name": "ping", "arguments": {}}]',
            reasoning="two",
            content="Checking.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping", {})],
        ),
        Case(
            'Sum: <tool_call> [{"name": "add", "arguments": {"a": -3, "b": 1e2, "exact": false}}]',
            content="Sum: ",
            calls=[("add", {"a": -3, "b": 100.0, "exact": False})],
        ),
    ],
    "command-r7b": [
        Case(
            "<|START_THINKING|>Easy.<|END_THINKING|><|START_RESPONSE|>Done [1].<|END_RESPONSE|>",
            reasoning="Easy.",
            content="Done [1].",
        ),
        Case(
            "<|START_THINKING|>Two tools.<|END_THINKING|><|START_ACTION|>[\n"
            f'    {{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {J}}},\n'
            '    {"tool_call_id": "17", "tool_name": "ping", "parameters": {}}\n]<|END_ACTION|>',
            reasoning="Two tools.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}, "0"), ("ping", {}, "17")],
        ),
    ],
    "nemotron-v2": [
        Case(
            f'hmm\n</think>\nSure.<TOOLCALL>[{{"name": "get_weather", "arguments": {J}}}]</TOOLCALL>',
            reasoning="hmm\n",
            content="\nSure.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"})],
            options={"thinking_forced_open": True},
        ),
        Case(
            '<TOOLCALL>[{"name": "ping_all", "arguments": {"n": 1}}, {"name": "ping", "arguments": {}}]</TOOLCALL>',
            calls=[("ping_all", {"n": 1}), ("ping", {})],
        ),
        Case("Plain <b>text</b> [x].", content="Plain <b>text</b> [x]."),
    ],
    "apertus": [
        Case("<|inner_prefix|>No call.<|inner_suffix|>Hello!", reasoning="No call.", content="Hello!"),
        Case(
            f'<|inner_prefix|>plan<|inner_suffix|>Sure. <|tools_prefix|>[{{"get_weather": {J}}}, {{"ping": {{}}}}]'
            "<|tools_suffix|>",
            reasoning="plan",
            content="Sure. ",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping", {})],
        ),
        Case(f'<|tools_prefix|>[{{"write_file": {FILE_JSON}}}]', calls=[("write_file", FILE)]),
    ],
    "apriel-1.5": [
        Case("<thinking>Quick.</thinking>Hi there.", reasoning="Quick.", content="Hi there."),
        Case(
            f'<thinking>write</thinking>On it.<tool_calls>[{{"name": "write_file", "arguments": {FILE_JSON}}}]'
            "</tool_calls>",
            reasoning="write",
            content="On it.",
            calls=[("write_file", FILE)],
        ),
    ],
    "glm-4.5": [
        Case("<think>Let me see.</think>\nThe answer.", reasoning="Let me see.", content="\nThe answer."),
        Case(
            'Checking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Zürich "HB"</arg_value>\n'
            "<arg_key>unit</arg_key>\n<arg_value>c</arg_value>\n</tool_call>",
            content="Checking.\n",
            calls=[("get_weather", {"city": 'Zürich "HB"', "unit": "c"})],
        ),
        Case(  # GLM 4.7: no newlines, the prompt opened the reasoning
            "plan</think><tool_call>add<arg_key>b</arg_key><arg_value>2.5</arg_value><arg_key>a</arg_key>"
            "<arg_value>5</arg_value></tool_call><tool_call>ping</tool_call>",
            reasoning="plan",
            calls=[("add", {"b": 2.5, "a": 5}), ("ping", {})],
            options={"thinking_forced_open": True},
        ),
        Case(
            "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>src/a.py</arg_value>\n<arg_key>content</arg_key>\n"
            f"<arg_value>{CODE}</arg_value>\n</tool_call>\n<tool_call>ping_all\n<arg_key>n</arg_key>\n"
            "<arg_value>3</arg_value>\n</tool_call>",
            calls=[("write_file", {"path": "src/a.py", "content": CODE}), ("ping_all", {"n": 3})],
        ),
        Case(  # a call straight from unclosed reasoning ends it
            "<think>I'll call it<tool_call>ping</tool_call>", reasoning="I'll call it", calls=[("ping", {})]
        ),
    ],
    "minimax-m2": [
        Case(
            "Thinking.\n</think>\n\nHello.",
            reasoning="Thinking.\n",
            content="\n\nHello.",
            options={"thinking_forced_open": True},
        ),
        Case(
            'Need data.</think>Let me look.\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">'
            'Paris</parameter>\n<parameter name="unit">c</parameter>\n</invoke>\n<invoke name="ping_all">\n'
            '<parameter name="n">2</parameter>\n</invoke>\n</minimax:tool_call>',
            reasoning="Need data.",
            content="Let me look.\n",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping_all", {"n": 2})],
            options={"thinking_forced_open": True},
        ),
        Case(
            '<minimax:tool_call><invoke name="write_file"><parameter name="path">a.py</parameter><parameter name='
            f'"content">\n{CODE}\n</parameter></invoke></minimax:tool_call>\n<minimax:tool_call><invoke name="add">'
            '<parameter name="exact">true</parameter><parameter name="a">-3</parameter><parameter name="b">1e3'
            "</parameter></invoke></minimax:tool_call>",
            calls=[("write_file", {"path": "a.py", "content": CODE}), ("add", {"exact": True, "a": -3, "b": 1000.0})],
        ),
        Case(  # reasoning left in the content, behind the prompt's opener
            "Hmm</think>Hi",
            content="<think>Hmm</think>Hi",
            options={"thinking_forced_open": True, "reasoning_format": "none"},
        ),
    ],
    "seed-oss": [
        Case(
            "<seed:think>Budget noted.<seed:cot_budget_reflect>used 10</seed:cot_budget_reflect></seed:think>Answer.",
            reasoning="Budget noted.<seed:cot_budget_reflect>used 10</seed:cot_budget_reflect>",
            content="Answer.",
        ),
        Case(
            "<seed:think>call</seed:think>\n<seed:tool_call>\n<function=add>\n<parameter=a>5</parameter>\n"
            "<parameter=exact>\nfalse\n</parameter>\n<parameter=b>-1e2</parameter>\n</function>\n</seed:tool_call>",
            reasoning="call",
            content=None,
            calls=[("add", {"a": 5, "exact": False, "b": -100.0})],
        ),
        Case(
            "<seed:tool_call>\n<function=ping>\n</function>\n</seed:tool_call>\n<seed:tool_call>\n<function=write_file>\n"
            f"<parameter=path>\nb é.txt\n</parameter>\n<parameter=content>\n{CODE}\n</parameter>\n</function>\n"
            "</seed:tool_call>",
            calls=[("ping", {}), ("write_file", {"path": "b é.txt", "content": CODE})],
        ),
        Case(
            "<seed:think>maybe <seed:tool_call> later</seed:think>Done.",
            reasoning="maybe <seed:tool_call> later",
            content="Done.",
        ),
    ],
    "xiaomi-mimo": [
        Case("Plain <b>text</b>, no call.", content="Plain <b>text</b>, no call."),
        Case(
            f'Sure.\n<tool_call>\n{{"name": "get_weather", "arguments": {J}}}\n</tool_call>',
            content="Sure.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"})],
        ),
        Case(
            '<tool_call>\n{"name": "ping", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "write_file", '
            '"arguments": {"path": "a.py", "content": "x = \\"\\u00e9\\"\\n"}}\n</tool_call>',
            calls=[("ping", {}), ("write_file", {"path": "a.py", "content": 'x = "é"\n'})],
        ),
    ],
    "llama3": [
        Case(f'{{"name": "get_weather", "parameters": {J}}}', calls=[("get_weather", {"city": "Paris", "unit": "c"})]),
        Case(
            'Let me check. <|python_tag|>{"type": "function", "name": "add", "parameters": {"a": 1, "b": 2.5}};'
            '{"name": "ping", "arguments": {}}',
            content="Let me check. ",
            calls=[("add", {"a": 1, "b": 2.5}), ("ping", {})],
        ),
        Case(
            ' {"name": "write_file", "parameters": {"path": "a.py", "content": "x = \\"\\u00e9\\"\\n"}}',
            calls=[("write_file", {"path": "a.py", "content": 'x = "é"\n'})],
        ),
        Case(
            'JSON looks like {"name": "ping", "parameters": {}}.',
            content='JSON looks like {"name": "ping", "parameters": {}}.',
        ),
    ],
    "functionary-v3.1-llama-3.1": [
        Case(
            f'Sure.<function=get_weather>{J}</function>\n<function=ping_all>{{"n": 2}}</function>',
            content="Sure.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping_all", {"n": 2})],
        ),
        Case("Plain <b>text</b>, a < sign and a function=x.", content="Plain <b>text</b>, a < sign and a function=x."),
    ],
    "functionary-v3.2": [
        Case("all\nJust text, even >> this.", content="Just text, even >> this."),
        Case(
            f"all\nChecking.>>>get_weather\n{J}>>>ping\n{{}}",
            content="Checking.",
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping", {})],
        ),
        Case('add\n{"a": 1, "b": 2}', calls=[("add", {"a": 1, "b": 2})]),
    ],
    "firefunction-v2": [
        Case(
            f' functools[{{"name": "get_weather", "arguments": {J}}}, {{"name": "ping", "arguments": {{}}}}]',
            calls=[("get_weather", {"city": "Paris", "unit": "c"}), ("ping", {})],
        ),
        Case(
            'On it. functools[{"name": "add", "arguments": {"a": 1, "b": 2}}]',
            content="On it.",
            calls=[("add", {"a": 1, "b": 2})],
        ),
    ],
}
