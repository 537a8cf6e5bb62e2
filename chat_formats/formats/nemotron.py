"""NVIDIA Nemotron Nano v2 (``nemotron-v2``): reasoning in ``<think>…</think>`` (the prompt may open it), calls
as one JSON array in ``<TOOLCALL>…</TOOLCALL>``::

    <think>…</think><TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>
"""

from __future__ import annotations

from ._layout import JsonArray, Layout, ReasoningStyle

__all__ = ["FORMAT"]

#: ``nemotron-v2``.
FORMAT = Layout(
    reasoning=ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n"),
    calls=JsonArray("<TOOLCALL>", "</TOOLCALL>"),
)
