"""Families writing a JSON call object in their own wrapper, one wrapper per call.

* Meituan LongCat Flash (``longcat``): ``<longcat_tool_call>{"name": N, "arguments": {…}}</longcat_tool_call>``,
  after an optional ``<longcat_think>…</longcat_think>`` block (its thinking prompt opens it).
* InternLM2 (``internlm2``) and Intern-S1 (``intern-s1``, the same calls after a ``<think>…</think>`` block)::

      <|action_start|><|plugin|>
      {"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>

  The arguments member is ``parameters`` (InternLM2's template) or ``arguments``.

Whitespace between the markers and the JSON is free.
"""

from __future__ import annotations

from dataclasses import replace

from peg import Parser, choice

from ..builder import ToolSpec, gap, json_tool_call, tool_choice_of
from ._layout import (
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    content_prefix,
    repeat_calls,
    standard_layout,
    think_triggers,
)

__all__ = ["build_intern_s1", "build_internlm2", "build_longcat"]

LONGCAT_OPEN, LONGCAT_CLOSE = "<longcat_tool_call>", "</longcat_tool_call>"
LONGCAT_STYLE = ReasoningStyle("<longcat_think>", "</longcat_think>", prompt_opener="<longcat_think>")
ACTION_OPEN, PLUGIN, ACTION_CLOSE = "<|action_start|>", "<|plugin|>", "<|action_end|>"
INTERN_S1_STYLE = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")


def build_longcat(options: FormatOptions) -> FormatDefinition:
    """The ``longcat`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        calls = repeat_calls(options, LONGCAT_OPEN + gap() + call + gap() + LONGCAT_CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=LONGCAT_STYLE, tool_starts=[LONGCAT_OPEN], calls=calls),
        triggers=think_triggers(options, LONGCAT_STYLE, [LONGCAT_OPEN]),
        preserved_tokens=(LONGCAT_STYLE.open, LONGCAT_STYLE.close, LONGCAT_OPEN, LONGCAT_CLOSE),
        content_prefix=content_prefix(options, LONGCAT_STYLE),
    )


def _action(spec: ToolSpec) -> Parser:
    """A call object with its arguments under ``parameters`` or ``arguments`` (one rule per spelling)."""
    params = json_tool_call(replace(spec, rule=f"{spec.rule}-p"), args_key="parameters")
    return choice(params, json_tool_call(spec))


def _build_intern(options: FormatOptions, style: ReasoningStyle | None) -> FormatDefinition:
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, _action)
        calls = repeat_calls(options, ACTION_OPEN + gap() + PLUGIN + gap() + call + gap() + ACTION_CLOSE)
    reasoning_tokens = (style.open, style.close) if style is not None else ()
    return FormatDefinition(
        parser=standard_layout(options, style=style, tool_starts=[ACTION_OPEN], calls=calls),
        triggers=think_triggers(options, style, [ACTION_OPEN]),
        preserved_tokens=(*reasoning_tokens, ACTION_OPEN, PLUGIN, ACTION_CLOSE),
        content_prefix=content_prefix(options, style),
    )


def build_internlm2(options: FormatOptions) -> FormatDefinition:
    """The ``internlm2`` definition for ``options``."""
    return _build_intern(options, None)


def build_intern_s1(options: FormatOptions) -> FormatDefinition:
    """The ``intern-s1`` definition for ``options``."""
    return _build_intern(options, INTERN_S1_STYLE)
