"""MiniMax M3 (``minimax-m3``) and MiniMax M1 / Text-01 (``minimax-m1``, alias ``minimax-text-01``).

MiniMax M3 prefixes every tool tag with the namespace marker ``]<]minimax[>[`` and writes each parameter as a
tag named after it; reasoning is ``<mm:think>…</mm:think>``, and a turn without reasoning may start with a bare
``</mm:think>`` (the prompt's, when thinking is off)::

    <mm:think>…</mm:think>Let me check.]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="get_weather">
    ]<]minimax[>[<city>Paris]<]minimax[>[</city>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>

String parameters are raw text; others are JSON typed by the tool's schema. (The M3 template renders object and
array values as nested tags; here they are read and constrained as JSON text.)

MiniMax M1 writes one JSON call object per line inside ``<tool_calls>`` (the closer may be missing), after an
optional ``<think>…</think>`` block; the space or newlines before ``<tool_calls>`` are framing::

    Let me check.
    <tool_calls>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_calls>
"""

from __future__ import annotations

from dataclasses import replace

from peg import Parser, literal, optional, rule

from ..builder import (
    ToolSpec,
    block,
    gap,
    json_tool_call,
    permuted_args,
    tool,
    tool_arg_name,
    tool_close,
    tool_name,
    tool_open,
)
from ._layout import JSON_NAME_PATTERN, FormatDefinition, FormatOptions, Layout, ReasoningStyle, Section, think_triggers
from ._tagged import tagged_arg, typed_value

__all__ = ["M1", "build_m3"]

NS = "]<]minimax[>["
M3_OPEN, M3_CLOSE = NS + "<tool_call>", NS + "</tool_call>"
INVOKE_OPEN, INVOKE_CLOSE = NS + '<invoke name="', NS + "</invoke>"
M3_STYLE = ReasoningStyle("<mm:think>", "</mm:think>")
M3_NAMES = r'<invoke name="([\w.-]+)'

M1_OPEN, M1_CLOSE = "<tool_calls>", "</tool_calls>"
M1_STARTS = ("\n\n" + M1_OPEN, "\n" + M1_OPEN, " " + M1_OPEN, M1_OPEN)
M1_STYLE = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")


def _m3_param(spec: ToolSpec, key: str) -> Parser:
    closer = f"{NS}</{key}>"
    return tagged_arg(NS + "<" + tool_arg_name(key) + ">", typed_value(spec, key, [closer]), closer)


def _m3_invoke(spec: ToolSpec) -> Parser:
    args = permuted_args(spec, {k: _m3_param(spec, k) for k in spec.properties})
    head = tool_open(INVOKE_OPEN + tool_name(spec.name) + '">')
    return rule(spec.rule, tool(head + args + gap() + tool_close(INVOKE_CLOSE)))


_M3 = Layout(
    reasoning=M3_STYLE,
    calls=Section(M3_OPEN, M3_CLOSE, _m3_invoke, markers=(NS, "<tool_call>", "</tool_call>"), name_pattern=M3_NAMES),
)


def build_m3(options: FormatOptions) -> FormatDefinition:
    """The ``minimax-m3`` definition for ``options``."""
    definition = _M3.build(options)
    if options.reasoning_format == "none" or options.thinking_forced_open:
        return definition
    # A bare closer first (thinking off) is framing; a forced-open block already reads it as empty reasoning.
    return replace(definition, parser=optional(block(literal(M3_STYLE.close))) + definition.parser)


#: ``minimax-m1``: one JSON call object per line in ``<tool_calls>``; the whitespace before it is framing.
M1 = Layout(
    reasoning=M1_STYLE,
    calls=Section(
        M1_STARTS,
        M1_CLOSE,
        json_tool_call,
        close_optional=True,
        name_pattern=JSON_NAME_PATTERN,
        markers=(M1_OPEN, M1_CLOSE),
    ),
    triggers=lambda options: think_triggers(options, M1_STYLE, [M1_OPEN]),
)
