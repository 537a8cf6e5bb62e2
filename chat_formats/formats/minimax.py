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

from peg import Parser

from ..builder import ToolSpec, XmlMarkers, xml_tool_call
from ._layout import Layout, ReasoningStyle, Section

__all__ = ["FORMAT"]

OPEN, CLOSE = "<minimax:tool_call>", "</minimax:tool_call>"
MARKERS = XmlMarkers(
    function_open='<invoke name="',
    name_suffix='">',
    function_close="</invoke>",
    param_open='<parameter name="',
    key_suffix='">',
)


def _invoke(spec: ToolSpec) -> Parser:
    return xml_tool_call(spec, MARKERS)


#: ``minimax-m2``: one or more ``<invoke>`` calls per section, sections repeated.
FORMAT = Layout(
    reasoning=ReasoningStyle("<think>", "</think>"),
    calls=Section(OPEN, CLOSE, _invoke, repeated=True, name_pattern=r'<invoke name="([\w.-]+)'),
)
