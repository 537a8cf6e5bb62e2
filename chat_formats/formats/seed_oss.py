"""ByteDance Seed-OSS (``seed-oss``)::

    <seed:think>…</seed:think>
    <seed:tool_call>
    <function=get_weather>
    <parameter=city>Paris</parameter>
    </function>
    </seed:tool_call>

Calls are Qwen3-Coder's XML calls in a ``<seed:tool_call>`` wrapper: string parameters raw (one framing newline
on each side removed), other parameters JSON typed by the tool's schema. The reasoning may carry
``<seed:cot_budget_reflect>…</seed:cot_budget_reflect>`` notes; they stay reasoning text.
"""

from __future__ import annotations

from ..builder import gap, tool_choice_of, xml_tool_call
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, repeat_calls, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

OPEN, CLOSE = "<seed:tool_call>", "</seed:tool_call>"
STYLE = ReasoningStyle("<seed:think>", "</seed:think>")
PRESERVED = ("<seed:think>", "</seed:think>", OPEN, CLOSE)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``seed-oss`` definition for ``options``."""
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
