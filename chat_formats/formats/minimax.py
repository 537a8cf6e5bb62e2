"""MiniMax M2 (``minimax-m2``)::

    <think>…</think>
    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    </invoke>
    </minimax:tool_call>

One ``<minimax:tool_call>`` block holds one or more ``<invoke>`` calls (whitespace between the markers is free).
String parameters are raw text (one framing newline on each side removed), other parameters JSON typed by the
tool's schema. MiniMax M2 prompts open the reasoning block (``thinking_forced_open``); with
``reasoning_format="none"`` the reasoning stays in the content behind the prompt's ``<think>``.
"""

from __future__ import annotations

from peg import Parser, zero_or_more

from ..builder import ToolSpec, XmlMarkers, gap, tool_choice_of, xml_tool_call
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, repeat_calls, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

OPEN, CLOSE = "<minimax:tool_call>", "</minimax:tool_call>"
STYLE = ReasoningStyle("<think>", "</think>")
PRESERVED = ("<think>", "</think>", OPEN, CLOSE)
MARKERS = XmlMarkers(
    function_open='<invoke name="',
    name_suffix='">',
    function_close="</invoke>",
    param_open='<parameter name="',
    key_suffix='">',
)


def _invoke(spec: ToolSpec) -> Parser:
    return xml_tool_call(spec, MARKERS)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``minimax-m2`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        invoke = tool_choice_of(options.active_tools, _invoke)
        invokes = invoke + zero_or_more(gap() + invoke) if options.parallel_tool_calls else invoke
        calls = repeat_calls(options, OPEN + gap() + invokes + gap() + CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=[OPEN], calls=calls),
        triggers=_triggers(options, STYLE, [OPEN]),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
    )
