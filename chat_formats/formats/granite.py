"""IBM Granite 3.x (``granite``): reasoning in ``<think>…</think>``, the answer optionally wrapped in
``<response>…</response>``, calls as one JSON array after ``<|tool_call|>``::

    <think>…</think><response>Checking.</response><|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]

The response markers are framing: they never reach the content, also with ``reasoning_format="none"``. The
plain-text spelling ``<tool_call>`` of the opener (Granite models writing the special token as text) is accepted
too.
"""

from __future__ import annotations

from ._layout import JsonArray, Layout, ReasoningStyle

__all__ = ["FORMAT"]

OPENERS = ("<|tool_call|>", "<tool_call>")

#: ``granite``.
FORMAT = Layout(
    reasoning=ReasoningStyle("<think>", "</think>"),
    response=("<response>", "</response>"),
    calls=JsonArray(OPENERS, None, markers=OPENERS[:1]),
    preserved=("<response>", "</response>"),
)
