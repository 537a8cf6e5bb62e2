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

from ..builder import xml_tool_call
from ._layout import XML_FUNCTION_PATTERN, Layout, ReasoningStyle, Wrapped

__all__ = ["FORMAT"]

#: ``qwen3-coder``.
FORMAT = Layout(
    reasoning=ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n"),
    calls=Wrapped("<tool_call>", "</tool_call>", xml_tool_call, name_pattern=XML_FUNCTION_PATTERN),
)
