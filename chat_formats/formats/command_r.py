"""Cohere Command R7B (``command-r7b``): reasoning in ``<|START_THINKING|>…<|END_THINKING|>``, the answer in
``<|START_RESPONSE|>…<|END_RESPONSE|>``, calls as one JSON array in an action block, each with a model-written
id of 1–10 digits first::

    <|START_THINKING|>…<|END_THINKING|><|START_ACTION|>[
        {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}
    ]<|END_ACTION|>

The response markers are framing: they never reach the content, also with ``reasoning_format="none"``.
"""

from __future__ import annotations

from peg import Parser, chars

from ..builder import ToolSpec, json_tool_call, tool_choice_of
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, array_calls, content_prefix, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

ACTION, END_ACTION = "<|START_ACTION|>", "<|END_ACTION|>"
RESPONSE = ("<|START_RESPONSE|>", "<|END_RESPONSE|>")
STYLE = ReasoningStyle("<|START_THINKING|>", "<|END_THINKING|>")
PRESERVED = (STYLE.open, STYLE.close, ACTION, END_ACTION, *RESPONSE)


def _call(spec: ToolSpec) -> Parser:
    return json_tool_call(
        spec,
        name_key="tool_name",
        args_key="parameters",
        id_key="tool_call_id",
        id_value=chars("[0-9]", 1, 10),
        orders=(("id", "name", "arguments"),),
    )


def build(options: FormatOptions) -> FormatDefinition:
    """The ``command-r7b`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        calls = array_calls(options, [ACTION], tool_choice_of(options.active_tools, _call), END_ACTION)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=[ACTION], calls=calls, response=RESPONSE),
        triggers=_triggers(options, STYLE, [ACTION]),
        preserved_tokens=PRESERVED,
        id_position="before_args",
        content_prefix=content_prefix(options, STYLE),
    )
