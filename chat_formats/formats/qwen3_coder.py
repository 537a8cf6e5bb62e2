"""Qwen3-Coder / Qwen3.5 XML tool calls (``qwen3-coder``)::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

String parameters are raw text (one framing newline on each side removed, nothing else trimmed); other
parameters are JSON, typed by the tool's schema. A ``<think>`` block may come first (Qwen3.5 prompts open it);
a ``<tool_call>`` inside reasoning stays reasoning.
"""

from __future__ import annotations

from ..builder import gap, tool_choice_of, xml_tool_call
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, repeat_calls, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
STYLE = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")
PRESERVED = ("<think>", "</think>", OPEN, CLOSE)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``qwen3-coder`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, xml_tool_call)
        calls = repeat_calls(options, OPEN + gap() + call + gap() + CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=[OPEN], calls=calls),
        triggers=_triggers(options, STYLE, [OPEN]),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
    )
