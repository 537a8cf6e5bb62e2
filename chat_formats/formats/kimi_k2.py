"""Moonshot Kimi K2 (Instruct and Thinking) (``kimi-k2``)::

    <think>…</think><|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
    <|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>

(one line in the output; split here for width).

The whole ``functions.NAME:IDX`` is the call id (kept as written; the ``functions.`` prefix is optional). The
section markers and the per-call end marker are optional, and a tool-call marker also ends an unclosed
reasoning block (Kimi K2 Thinking calls tools straight from its thoughts).
"""

from __future__ import annotations

from peg import Parser, chars, optional, rule, schema
from peg import json as json_value

from ..builder import ToolSpec, gap, tool, tool_args, tool_id, tool_name
from ..grammar import Trigger
from ._layout import FormatOptions, Layout, ReasoningStyle, Section

__all__ = ["FORMAT"]

SECTION_BEGIN, SECTION_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CALL_BEGIN, ARG_BEGIN, CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"


def _call(spec: ToolSpec) -> Parser:
    # The id ends with its digits: a run of digits at the end of a partial input needs more input, so the atomic
    # id exists only once the text after it shows the digits ended.
    ident = tool_id(optional("functions.") + tool_name(spec.name) + ":" + chars("[0-9]"))
    args = tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))
    return rule(spec.rule, tool(CALL_BEGIN + ident + gap() + ARG_BEGIN + args + optional(gap() + CALL_END)))


def _triggers(options: FormatOptions) -> tuple[Trigger, ...]:
    return (Trigger.word(CALL_BEGIN),)


#: ``kimi-k2``.
FORMAT = Layout(
    reasoning=ReasoningStyle("<think>", "</think>", ends_at_tools=True),
    calls=Section(
        SECTION_BEGIN,
        SECTION_END,
        _call,
        close_optional=True,
        open_optional=True,
        call_start=CALL_BEGIN,
        name_pattern=r"<\|tool_call_begin\|>(?:functions\.)?([\w.-]+)",
    ),
    preserved=(CALL_BEGIN, ARG_BEGIN, CALL_END),
    triggers=_triggers,
    id_position="before_args",
)
