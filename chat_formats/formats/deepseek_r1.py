"""DeepSeek R1 and its distills (``deepseek-r1``)::

    <think>…</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

The section opener is also accepted in the spellings R1 distills produce (``<｜tool_calls_begin｜>``,
``<｜tool calls begin｜>``, ``<｜tool\\_calls\\_begin｜>``, ``<｜tool▁calls｜>``). The prompt usually opens
``<think>`` already (``thinking_forced_open``).

DeepSeek V3.1 (``deepseek-v3.1``) uses the same markers, with the name right after the call opener and bare
JSON arguments (its thinking prompt ends with ``<think>``, no newline)::

    <think>…</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}
    <｜tool▁call▁end｜><｜tool▁calls▁end｜>

(one line in the output; split here for width).
"""

from __future__ import annotations

from peg import Parser, literal, rule, schema
from peg import json as json_value

from ..builder import ToolSpec, gap, tool, tool_args, tool_close, tool_name, tool_open
from ._layout import CallMaker, Layout, ReasoningStyle, Section

__all__ = ["R1", "V31"]

SECTION_OPENERS = (
    "<｜tool▁calls▁begin｜>",
    "<｜tool_calls_begin｜>",
    "<｜tool calls begin｜>",
    "<｜tool\\_calls\\_begin｜>",
    "<｜tool▁calls｜>",
)
SECTION_CLOSE = "<｜tool▁calls▁end｜>"
CALL_OPEN, SEP, CALL_CLOSE = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
STYLE = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")
V31_STYLE = ReasoningStyle("<think>", "</think>")
SECTION_MARKERS = (SECTION_OPENERS[0], SECTION_CLOSE)


def _args(spec: ToolSpec) -> Parser:
    return tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))


def _r1_call(spec: ToolSpec) -> Parser:
    head = tool_open(CALL_OPEN + literal("function") + SEP) + tool_name(spec.name, "\n")
    body = "```json" + gap() + _args(spec) + gap() + "```" + gap() + tool_close(CALL_CLOSE)
    return rule(spec.rule, tool(head + body))


def _v31_call(spec: ToolSpec) -> Parser:
    head = tool_open(CALL_OPEN) + tool_name(spec.name, SEP)
    return rule(spec.rule, tool(head + _args(spec) + gap() + tool_close(CALL_CLOSE)))


def _layout(style: ReasoningStyle, call: CallMaker, name_pattern: str) -> Layout:
    section = Section(
        SECTION_OPENERS, SECTION_CLOSE, call, close_optional=True, name_pattern=name_pattern, markers=SECTION_MARKERS
    )
    return Layout(reasoning=style, calls=section, preserved=(CALL_OPEN, SEP, CALL_CLOSE))


#: ``deepseek-r1``.
R1 = _layout(STYLE, _r1_call, r"function<｜tool▁sep｜>([\w.-]+)")

#: ``deepseek-v3.1``.
V31 = _layout(V31_STYLE, _v31_call, r"<｜tool▁call▁begin｜>([\w.-]+)")
