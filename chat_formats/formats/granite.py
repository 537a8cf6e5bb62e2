"""IBM Granite 3.x (``granite``): reasoning in ``<think>…</think>``, the answer optionally wrapped in
``<response>…</response>``, calls as one JSON array after ``<|tool_call|>``::

    <think>…</think><response>Checking.</response><|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]

The response markers are framing: they never reach the content, also with ``reasoning_format="none"``. The
plain-text spelling ``<tool_call>`` of the opener (Granite models writing the special token as text) is accepted
too.
"""

from __future__ import annotations

from peg import Parser

from ..builder import json_tool_call, tool_choice_of
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, array_calls, content_prefix, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

OPENERS = ("<|tool_call|>", "<tool_call>")
RESPONSE = ("<response>", "</response>")
STYLE = ReasoningStyle("<think>", "</think>")
PRESERVED = ("<think>", "</think>", *RESPONSE, OPENERS[0])


def build(options: FormatOptions) -> FormatDefinition:
    """The ``granite`` definition for ``options``."""
    calls: Parser | None = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        calls = array_calls(options, OPENERS, call)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=OPENERS, calls=calls, response=RESPONSE),
        triggers=_triggers(options, STYLE, OPENERS),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
    )
