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

from ..builder import xml_tool_call
from ._layout import XML_FUNCTION_PATTERN, Layout, ReasoningStyle, Wrapped

__all__ = ["FORMAT"]

#: ``seed-oss``: the ``qwen3-coder`` layout with Seed's markers.
FORMAT = Layout(
    reasoning=ReasoningStyle("<seed:think>", "</seed:think>"),
    calls=Wrapped("<seed:tool_call>", "</seed:tool_call>", xml_tool_call, name_pattern=XML_FUNCTION_PATTERN),
)
