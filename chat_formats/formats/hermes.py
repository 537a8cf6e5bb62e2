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

from ..grammar import Trigger
from ._layout import FormatOptions, JsonWrapped, Layout, ReasoningStyle, regex_escape

__all__ = ["HERMES", "MIMO", "QWEN3"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
MIMO_TRIGGER = '\n<tool_call>\n{"name": "'


def _mimo_triggers(options: FormatOptions) -> tuple[Trigger, ...]:
    # The reference's word needs the newline; an output that starts with the call has none.
    return (Trigger.word(MIMO_TRIGGER), Trigger.pattern_full(f"({regex_escape(MIMO_TRIGGER[1:])})[\\s\\S]*"))


#: Hermes 2 Pro / Qwen 2.5 / QwQ: reasoning ends only at ``</think>``.
HERMES = Layout(
    reasoning=ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n"),
    calls=JsonWrapped(OPEN, CLOSE),
)

#: Qwen3: as Hermes, and a ``<tool_call>`` also ends unclosed reasoning.
QWEN3 = Layout(
    reasoning=ReasoningStyle("<think>", "</think>", ends_at_tools=True, prompt_opener="<think>\n"),
    calls=JsonWrapped(OPEN, CLOSE),
)

#: Xiaomi MiMo: Hermes calls, each after an optional framing newline; no reasoning block.
MIMO = Layout(
    calls=JsonWrapped(("\n" + OPEN, OPEN), CLOSE, markers=(OPEN, CLOSE)),
    triggers=_mimo_triggers,
)
