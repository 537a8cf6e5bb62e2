"""DeepSeek R1 and its distills (``deepseek-r1``)::

    <think>…</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

The section opener is also accepted in the spellings R1 distills produce (``<｜tool_calls_begin｜>``,
``<｜tool calls begin｜>``, ``<｜tool\\_calls\\_begin｜>``, ``<｜tool▁calls｜>``). The prompt usually opens
``<think>`` already (``thinking_forced_open``).
"""

from __future__ import annotations

from peg import Parser, choice, literal, optional, rule, schema, trigger_rule, zero_or_more
from peg import json as json_value

from ..builder import ToolSpec, gap, tool, tool_args, tool_choice_of, tool_close, tool_name, tool_open
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

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
PRESERVED = ("<think>", "</think>", SECTION_OPENERS[0], SECTION_CLOSE, CALL_OPEN, SEP, CALL_CLOSE)


def _call(spec: ToolSpec) -> Parser:
    args = tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))
    head = tool_open(CALL_OPEN + literal("function") + SEP) + tool_name(spec.name, "\n")
    return rule(spec.rule, tool(head + "```json" + gap() + args + gap() + "```" + gap() + tool_close(CALL_CLOSE)))


def build(options: FormatOptions) -> FormatDefinition:
    """The ``deepseek-r1`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, _call)
        lo = 1 if options.calls_forced else 0
        body = call + zero_or_more(gap() + call) if options.parallel_tool_calls else call
        section = trigger_rule("tool-calls", choice(*SECTION_OPENERS) + gap() + body + gap() + optional(SECTION_CLOSE))
        calls = section if lo else optional(section)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=SECTION_OPENERS, calls=calls),
        triggers=_triggers(options, STYLE, SECTION_OPENERS),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
    )
