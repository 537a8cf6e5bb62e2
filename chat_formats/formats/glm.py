"""Zhipu GLM 4.5 / 4.6 / 4.7 (``glm-4.5``)::

    <think>…</think>
    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>

GLM 4.7 writes the same call without the newlines
(``<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>``); whitespace between
the markers is free. String values are raw text (kept exactly, whitespace included), other values JSON typed by
the tool's schema. A ``<tool_call>`` also ends an unclosed reasoning block; GLM 4.7 prompts open it already
(``thinking_forced_open``).
"""

from __future__ import annotations

from peg import Parser, chars, literal, peek

from ..builder import ToolSpec, XmlMarkers, gap, xml_tool_call
from ._layout import Layout, ReasoningStyle, Wrapped

__all__ = ["FORMAT"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
KEY_OPEN, KEY_CLOSE, VALUE_OPEN, VALUE_CLOSE = "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"
STYLE = ReasoningStyle("<think>", "</think>", ends_at_tools=True)
# The bare name ends where whitespace or a marker starts; the grammar always continues with one (implied).
MARKERS = XmlMarkers(
    function_open=OPEN,
    name_suffix=peek(chars("[<\\t\\n\\r ]", 1, 1), implied=True),
    function_close=CLOSE,
    param_open=KEY_OPEN,
    key_suffix=literal(KEY_CLOSE) + gap() + VALUE_OPEN,
    value_ends=(VALUE_CLOSE,),
    value_newline=False,
)


def _call(spec: ToolSpec) -> Parser:
    return xml_tool_call(spec, MARKERS)


#: ``glm-4.5``.
FORMAT = Layout(
    reasoning=STYLE,
    calls=Wrapped("", None, _call, starts=(OPEN,), markers=(OPEN, CLOSE), name_pattern=r"<tool_call>\s*([\w.-]+)"),
    preserved=(KEY_OPEN, KEY_CLOSE, VALUE_OPEN, VALUE_CLOSE),
)
