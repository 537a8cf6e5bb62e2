"""Hermes 2 Pro / Qwen 2.5 (``hermes``, alias ``qwen2.5``), Qwen3 (``qwen3``) and Xiaomi MiMo (``xiaomi-mimo``).

Calls are JSON objects in ``<tool_call>…</tool_call>``, one wrapper per call::

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

``hermes`` and ``qwen3`` accept a ``<think>…</think>`` block first (QwQ and Qwen3 prompts may already have
opened it). For ``qwen3`` a ``<tool_call>`` also ends an unclosed reasoning block (what Qwen3 models do when
they call a tool straight from their thoughts); for ``hermes`` only ``</think>`` does.

``xiaomi-mimo`` writes the same calls on their own lines (``\\n<tool_call>\\n{"name": …}\\n</tool_call>``)
and has no reasoning block; the newline before a call is framing, not content, and the lazy grammar fires on
``\\n<tool_call>\\n{"name": "`` (or on that text without the newline at the very start).
"""

from __future__ import annotations

from peg import choice

from ..builder import gap, json_tool_call, tool_choice_of
from ..grammar import Trigger
from ._layout import (
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    content_prefix,
    regex_escape,
    repeat_calls,
    standard_layout,
)
from ._layout import think_triggers as _triggers

__all__ = ["build_hermes", "build_mimo", "build_qwen3"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
PRESERVED = ("<think>", "</think>", OPEN, CLOSE)
MIMO_TRIGGER = '\n<tool_call>\n{"name": "'


def _build(options: FormatOptions, style: ReasoningStyle) -> FormatDefinition:
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        calls = repeat_calls(options, OPEN + gap() + call + gap() + CLOSE)
    parser = standard_layout(options, style=style, tool_starts=[OPEN], calls=calls)
    return FormatDefinition(
        parser=parser,
        triggers=_triggers(options, style, [OPEN]),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, style),
    )


def build_hermes(options: FormatOptions) -> FormatDefinition:
    """Hermes 2 Pro / Qwen 2.5 / QwQ: reasoning ends only at ``</think>``."""
    return _build(options, ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n"))


def build_qwen3(options: FormatOptions) -> FormatDefinition:
    """Qwen3: as Hermes, and a ``<tool_call>`` also ends unclosed reasoning."""
    return _build(options, ReasoningStyle("<think>", "</think>", ends_at_tools=True, prompt_opener="<think>\n"))


def build_mimo(options: FormatOptions) -> FormatDefinition:
    """Xiaomi MiMo: Hermes calls, each after an optional framing newline; no reasoning block."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        calls = repeat_calls(options, choice("\n" + OPEN, OPEN) + gap() + call + gap() + CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=None, tool_starts=["\n" + OPEN, OPEN], calls=calls),
        # The reference's word needs the newline; an output that starts with the call has none.
        triggers=(Trigger.word(MIMO_TRIGGER), Trigger.pattern_full(f"({regex_escape(MIMO_TRIGGER[1:])})[\\s\\S]*")),
        preserved_tokens=(OPEN, CLOSE),
    )
