"""NVIDIA Nemotron Nano v2 (``nemotron-v2``): reasoning in ``<think>…</think>`` (the prompt may open it), calls
as one JSON array in ``<TOOLCALL>…</TOOLCALL>``::

    <think>…</think><TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>
"""

from __future__ import annotations

from ..builder import json_tool_call, tool_choice_of
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, array_calls, content_prefix, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

OPEN, CLOSE = "<TOOLCALL>", "</TOOLCALL>"
STYLE = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")
PRESERVED = ("<think>", "</think>", OPEN, CLOSE)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``nemotron-v2`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        calls = array_calls(options, [OPEN], tool_choice_of(options.active_tools, json_tool_call), CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=[OPEN], calls=calls),
        triggers=_triggers(options, STYLE, [OPEN]),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
    )
