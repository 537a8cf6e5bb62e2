"""Formats as data: a :class:`Layout` value builds a whole format (calls, forced section, triggers, tokens)."""

from __future__ import annotations

import pytest

from chat_formats import ChatFormat, get_format
from chat_formats.builder import parse_tools, xml_tool_call
from chat_formats.core import _tool_choice
from chat_formats.formats import BUILDERS
from chat_formats.formats._layout import (
    XML_FUNCTION_PATTERN,
    FormatOptions,
    JsonArray,
    JsonWrapped,
    Layout,
    ReasoningStyle,
    Section,
    Wrapped,
)
from tests.chat_formats.samples import TOOLS

ACTION = Layout(
    reasoning=ReasoningStyle("<plan>", "</plan>"),
    calls=JsonWrapped("<act>", "</act>"),
    preserved=("<eot>",),
)


def _format(layout: Layout, **options: object) -> ChatFormat:
    specs = tuple(parse_tools(TOOLS))
    choice = _tool_choice(str(options.pop("tool_choice", "auto")), specs)
    opts = FormatOptions(specs, choice, **options)  # type: ignore[arg-type]
    return ChatFormat("test-layout", opts, layout(opts))


def test_a_layout_value_parses_streams_and_constrains() -> None:
    fmt = _format(ACTION)
    out = '<plan>look it up</plan>Sure.<act>{"name": "get_weather", "arguments": {"city": "Paris"}}</act>'
    stream = fmt.stream()
    m = fmt.parse(out, salt=stream.salt)
    assert (m.reasoning_content, m.content) == ("look it up", "Sure.")
    assert [(c.function.name, c.function.parsed_arguments()) for c in m.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    for ch in out:
        stream.feed(ch)
    stream.finish()
    assert stream.message.tool_calls == m.tool_calls
    g = fmt.grammar()
    assert g.lazy and g.preserved_tokens == ["<plan>", "</plan>", "<act>", "</act>", "<eot>"]
    assert g.triggers  # a trigger that skips the reasoning block


def test_layout_forced_and_single_calls() -> None:
    one = '<act>{"name": "add", "arguments": {"a": 1, "b": 2}}</act>'
    forced = _format(ACTION, tool_choice="required", parallel_tool_calls=False)
    assert not forced.grammar().lazy
    assert len(forced.parse(one).tool_calls) == 1
    two = forced.parse(one + one)
    assert len(two.tool_calls) == 1 and two.warnings  # one call only: the second is content, with a warning


@pytest.mark.parametrize(
    ("layout", "out", "unknown"),
    [
        (ACTION, '<act>{"name": "rm", "arguments": {}}</act>', "rm"),
        (Layout(calls=JsonArray("<calls>", "</calls>")), '<calls>[{"name": "rm_rf", "arguments": {}}]', "rm_rf"),
        (
            Layout(calls=Wrapped("<tc>", "</tc>", xml_tool_call, name_pattern=XML_FUNCTION_PATTERN)),
            "<tc><function=x>",
            "x",
        ),
    ],
)
def test_unknown_tool_is_named_by_the_layouts_pattern(layout: Layout, out: str, unknown: str) -> None:
    m = _format(layout).parse(out)
    assert m.content == out and not m.tool_calls
    assert any(f"unknown tool {unknown!r}" in w for w in m.warnings)


def test_section_layout_holds_several_calls() -> None:
    layout = Layout(calls=Section("<calls>", "</calls>", xml_tool_call, close_optional=True))
    call = "<function=ping>\n</function>"
    m = _format(layout).parse(f"Hi.<calls>{call}\n{call}</calls>")
    assert m.content == "Hi." and [c.function.name for c in m.tool_calls] == ["ping", "ping"]


def test_regular_formats_are_layout_values() -> None:
    regular = ["hermes", "qwen3", "qwen3-coder", "seed-oss", "nemotron-v2", "apriel-1.5", "glm-4.5", "minimax-m2"]
    regular += ["kimi-k2", "granite", "command-r7b", "apertus", "deepseek-r1", "deepseek-v3.1", "mistral-nemo"]
    regular += ["magistral", "ministral-3", "xiaomi-mimo"]
    assert all(isinstance(BUILDERS[name], Layout) for name in regular)


def test_nemotron_and_apriel_differ_only_in_markers() -> None:
    nemotron, apriel = BUILDERS["nemotron-v2"], BUILDERS["apriel-1.5"]
    assert isinstance(nemotron, Layout) and isinstance(apriel, Layout)
    assert isinstance(nemotron.calls, JsonArray) and isinstance(apriel.calls, JsonArray)
    assert nemotron.calls.call is apriel.calls.call


@pytest.mark.parametrize(
    ("name", "out"),
    [
        ("qwen3-coder", "<tool_call>\n<function=rm>\n</function>\n</tool_call>"),
        ("seed-oss", "<seed:tool_call>\n<function=rm>\n</function>\n</seed:tool_call>"),
        ("glm-4.5", "<tool_call>rm\n<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"),
        ("minimax-m2", '<minimax:tool_call>\n<invoke name="rm">\n</invoke>\n</minimax:tool_call>'),
        ("ministral-3", '[TOOL_CALLS]rm[ARGS]{"a": 1}'),
        ("gpt-oss", "<|channel|>commentary to=functions.rm <|constrain|>json<|message|>{}<|call|>"),
        ("command-r7b", '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "rm", "parameters": {}}]'),
    ],
)
def test_every_format_names_an_unknown_tool(name: str, out: str) -> None:
    m = get_format(name, tools=TOOLS).parse(out)
    assert m.content is not None and "rm" in m.content
    assert any("unknown tool 'rm'" in w for w in m.warnings), m.warnings
