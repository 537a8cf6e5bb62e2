"""Families that write GLM's key/value calls: poolside Laguna (``poolside-v1``) and iFlytek Spark 2.5
(``spark-2.5``)::

    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>

The calls are ``glm-4.5``'s (the name ends at a newline or the first marker; whitespace between markers is free;
string values are raw text kept exactly, other values JSON typed by the tool's schema). What differs is the
reasoning:

* ``poolside-v1``: a ``<think>…</think>`` block that only ``</think>`` ends (vLLM's Poolside parser is DeepSeek
  R1's when thinking is on: the prompt opens the block, ``thinking_forced_open``); a call quoted in the
  reasoning stays reasoning — unlike ``glm-4.5``, where a ``<tool_call>`` ends unclosed reasoning.
* ``spark-2.5``: no reasoning block (SGLang's Spark 2.5 support is a tool-call parser only).
"""

from __future__ import annotations

from peg import Parser

from ..builder import ToolSpec, gap, tool_choice_of, xml_tool_call
from ._layout import (
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    content_prefix,
    repeat_calls,
    standard_layout,
    think_triggers,
)
from .glm import KEY_CLOSE, KEY_OPEN, MARKERS, VALUE_CLOSE, VALUE_OPEN

__all__ = ["build_poolside_v1", "build_spark25"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
THINK = ReasoningStyle("<think>", "</think>", prompt_opener="<think>")
CALL_TOKENS = (OPEN, CLOSE, KEY_OPEN, KEY_CLOSE, VALUE_OPEN, VALUE_CLOSE)


def _call(spec: ToolSpec) -> Parser:
    return xml_tool_call(spec, MARKERS)


def _build(options: FormatOptions, style: ReasoningStyle | None) -> FormatDefinition:
    calls = None
    if options.calls_enabled:
        # The whitespace after a call is part of the trigger rule: the lazy grammar holds only that rule and
        # must accept the newline models write after their last call.
        calls = repeat_calls(options, tool_choice_of(options.active_tools, _call) + gap())
    reasoning_tokens = (style.open, style.close) if style is not None else ()
    return FormatDefinition(
        parser=standard_layout(options, style=style, tool_starts=[OPEN], calls=calls),
        triggers=think_triggers(options, style, [OPEN]),
        preserved_tokens=(*reasoning_tokens, *CALL_TOKENS),
        content_prefix=content_prefix(options, style),
        tool_name_pattern=r"<tool_call>\s*([\w.-]+)",
    )


def build_poolside_v1(options: FormatOptions) -> FormatDefinition:
    """The ``poolside-v1`` definition for ``options``."""
    return _build(options, THINK)


def build_spark25(options: FormatOptions) -> FormatDefinition:
    """The ``spark-2.5`` definition for ``options``."""
    return _build(options, None)
