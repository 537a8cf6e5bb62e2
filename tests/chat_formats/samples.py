"""Our own sample outputs per format, written from the format specs (reference §6), with expected messages.

``SAMPLES[format]`` is a list of :class:`Case`: the output, the options to build the format with (on top of
``TOOLS``), and the expected message (``content``, ``reasoning``, ``calls`` as ``(name, arguments[, id])``).
The cases cover reasoning, content before calls, parallel calls, prefix tool names, typed XML values, code
with meaningful whitespace, unicode and escapes.
"""

from __future__ import annotations

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
            content="\n\n",
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
