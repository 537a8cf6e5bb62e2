"""ServiceNow Apriel 1.5 (``apriel-1.5``): reasoning in ``<thinking>…</thinking>``, calls as one JSON array in
``<tool_calls>…</tool_calls>``::

    <thinking>…</thinking>Checking.<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>
"""

from __future__ import annotations

from ._layout import JsonArray, Layout, ReasoningStyle

__all__ = ["CLOSE", "FORMAT", "OPEN"]

OPEN, CLOSE = "<tool_calls>", "</tool_calls>"

#: ``apriel-1.5``: the JSON-array layout of ``nemotron-v2`` with Apriel's markers.
FORMAT = Layout(
    reasoning=ReasoningStyle("<thinking>", "</thinking>"),
    calls=JsonArray(OPEN, CLOSE),
)
