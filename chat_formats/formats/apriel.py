"""ServiceNow Apriel 1.5 (``apriel-1.5``): reasoning in ``<thinking>…</thinking>``, calls as one JSON array in
``<tool_calls>…</tool_calls>``::

    <thinking>…</thinking>Checking.<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>
"""

from __future__ import annotations

from ..builder import json_tool_call, tool_choice_of
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, array_calls, content_prefix, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

OPEN, CLOSE = "<tool_calls>", "</tool_calls>"
STYLE = ReasoningStyle("<thinking>", "</thinking>")
PRESERVED = ("<thinking>", "</thinking>", OPEN, CLOSE)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``apriel-1.5`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        calls = array_calls(options, [OPEN], tool_choice_of(options.active_tools, json_tool_call), CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=[OPEN], calls=calls),
        triggers=_triggers(options, STYLE, [OPEN]),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
    )
