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

from collections.abc import Callable

from peg import Parser, choice, literal, optional, rule, schema, trigger_rule, zero_or_more
from peg import json as json_value

from ..builder import ToolSpec, gap, tool, tool_args, tool_choice_of, tool_close, tool_name, tool_open
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build", "build_v31"]

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
PRESERVED = ("<think>", "</think>", SECTION_OPENERS[0], SECTION_CLOSE, CALL_OPEN, SEP, CALL_CLOSE)


def _args(spec: ToolSpec) -> Parser:
    return tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))


def _r1_call(spec: ToolSpec) -> Parser:
    head = tool_open(CALL_OPEN + literal("function") + SEP) + tool_name(spec.name, "\n")
    body = "```json" + gap() + _args(spec) + gap() + "```" + gap() + tool_close(CALL_CLOSE)
    return rule(spec.rule, tool(head + body))


def _v31_call(spec: ToolSpec) -> Parser:
    head = tool_open(CALL_OPEN) + tool_name(spec.name, SEP)
    return rule(spec.rule, tool(head + _args(spec) + gap() + tool_close(CALL_CLOSE)))


def _build(options: FormatOptions, style: ReasoningStyle, make_call: Callable[[ToolSpec], Parser]) -> FormatDefinition:
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, make_call)
        body = call + zero_or_more(gap() + call) if options.parallel_tool_calls else call
        section = trigger_rule("tool-calls", choice(*SECTION_OPENERS) + gap() + body + gap() + optional(SECTION_CLOSE))
        calls = section if options.calls_forced else optional(section)
    return FormatDefinition(
        parser=standard_layout(options, style=style, tool_starts=SECTION_OPENERS, calls=calls),
        triggers=_triggers(options, style, SECTION_OPENERS),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, style),
    )


def build(options: FormatOptions) -> FormatDefinition:
    """The ``deepseek-r1`` definition for ``options``."""
    return _build(options, STYLE, _r1_call)


def build_v31(options: FormatOptions) -> FormatDefinition:
    """The ``deepseek-v3.1`` definition for ``options``."""
    return _build(options, V31_STYLE, _v31_call)
