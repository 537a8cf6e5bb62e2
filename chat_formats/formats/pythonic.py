"""Pythonic tool calls: ``pythonic`` (Llama 3.2 / Llama 4 pythonic, ToolACE, …) and ``lfm2`` (Liquid LFM2).

``pythonic``: a Python list of calls, bare or between Llama 4's ``<|python_start|>`` … ``<|python_end|>``::

    [get_weather(city='San Francisco', metric='celsius'), get_weather()]

``lfm2``: the same list between ``<|tool_call_start|>`` … ``<|tool_call_end|>`` (LFM2.5 may leave the
markers out), after an optional ``<think>…</think>`` block::

    <think>…</think>Let me check.<|tool_call_start|>[get_time(city="Paris")]<|tool_call_end|>

Text after ``<|tool_call_end|>`` is content (vLLM's LFM2 parser returns it so).

Arguments are Python literals typed by the tools' schemas (see ``_pythonic.py``); they become JSON arguments.
Content ends at the opening marker or where a call list starts (``[get_weather(``).
"""

from __future__ import annotations

from ._layout import FormatDefinition, FormatOptions, ReasoningStyle
from ._pythonic import build_layout

__all__ = ["build_lfm2", "build_pythonic"]

PYTHON_START, PYTHON_END = "<|python_start|>", "<|python_end|>"
LFM2_START, LFM2_END = "<|tool_call_start|>", "<|tool_call_end|>"
THINK = ReasoningStyle("<think>", "</think>")


def build_pythonic(options: FormatOptions) -> FormatDefinition:
    """The ``pythonic`` definition for ``options`` (no reasoning block)."""
    return build_layout(options, open_=PYTHON_START, close=PYTHON_END, style=None, preserved=(PYTHON_START, PYTHON_END))


def build_lfm2(options: FormatOptions) -> FormatDefinition:
    """The ``lfm2`` definition for ``options`` (``<think>`` reasoning first)."""
    preserved = ("<think>", "</think>", LFM2_START, LFM2_END)
    return build_layout(
        options, open_=LFM2_START, close=LFM2_END, style=THINK, preserved=preserved, text_after_close=True
    )
