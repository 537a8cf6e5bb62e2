"""Xiaomi MiMo-V2-Flash (``mimo-v2``): a ``<think>`` block, then Qwen3-Coder's XML calls, where one
``<tool_call>`` may hold several ``<function>`` calls (and wrappers may repeat)::

    <think>…</think>
    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    <function=get_time>
    <parameter=city>
    Lyon
    </parameter>
    </function>
    </tool_call>

Each ``<function>`` is one call: two functions give two calls, in one wrapper or in two. String parameters are
raw text (one framing newline on each side removed), other parameters JSON typed by the tool's schema, as in
``qwen3-coder``. A ``<tool_call>`` inside the reasoning stays reasoning.
"""

from __future__ import annotations

from ..builder import xml_tool_call
from ._layout import XML_FUNCTION_PATTERN, Layout, ReasoningStyle, Section

__all__ = ["FORMAT"]

#: ``mimo-v2``.
FORMAT = Layout(
    reasoning=ReasoningStyle("<think>", "</think>"),
    calls=Section("<tool_call>", "</tool_call>", xml_tool_call, repeated=True, name_pattern=XML_FUNCTION_PATTERN),
)
