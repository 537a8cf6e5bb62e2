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

from ..builder import ToolSpec, json_tool_call
from ._layout import JsonArray, Layout, ReasoningStyle

__all__ = ["FORMAT"]

RESPONSE = ("<|START_RESPONSE|>", "<|END_RESPONSE|>")


def _call(spec: ToolSpec) -> Parser:
    return json_tool_call(
        spec,
        name_key="tool_name",
        args_key="parameters",
        id_key="tool_call_id",
        id_value=chars("[0-9]", 1, 10),
        orders=(("id", "name", "arguments"),),
    )


#: ``command-r7b``.
FORMAT = Layout(
    reasoning=ReasoningStyle("<|START_THINKING|>", "<|END_THINKING|>"),
    response=RESPONSE,
    calls=JsonArray("<|START_ACTION|>", "<|END_ACTION|>", _call, name_pattern=r'"tool_name"\s*:\s*"([\w.-]+)'),
    preserved=RESPONSE,
    id_position="before_args",
)
