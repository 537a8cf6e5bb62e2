"""Qwen3-Coder's XML calls after a ``<think>`` block the prompt opens: StepFun Step 3.5 Flash (``step-3.5``) and
NVIDIA Nemotron 3 (``nemotron-3``)::

    The user wants the weather.
    </think>
    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

Calls are those of ``qwen3-coder`` (string parameters raw, one framing newline on each side removed; other
parameters JSON typed by the tool's schema); whitespace after a call belongs to it (Nemotron ends its calls with
a newline). Only ``</think>`` ends the reasoning: a call quoted inside it stays reasoning. The prompt opens the
block when thinking is on (``thinking_forced_open``); an opener the model repeats is absorbed.

Step 3.5 writes a newline right before and right after ``</think>``: one newline on each side of the closer is
framing (neither reasoning nor content), as vLLM's Step 3.5 reasoning parser reads it; and a call may come
without its ``<tool_call>`` wrapper (``<function=get_weather>…</function>``), which vLLM's Step 3.5 tool parser
accepts too. Nemotron 3's reasoning is DeepSeek R1's (vLLM, SGLang): every character up to ``</think>`` is
reasoning.
"""

from __future__ import annotations

from peg import Parser, choice, one_or_more, optional, until_one_of

from ..builder import block, gap, reasoning, tool_choice_of, xml_tool_call
from ._layout import (
    XML_FUNCTION_PATTERN,
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    content_prefix,
    repeat_calls,
    standard_layout,
    think_triggers,
)

__all__ = ["build_nemotron3", "build_step35"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
FUNCTION_OPEN = "<function="
THINK = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")
# The closer with its framing newline before it (tried first) or without.
CLOSERS = ("\n" + THINK.close, THINK.close)


def _reasoning(options: FormatOptions) -> Parser | None:
    """The reasoning block with Step 3.5's framing newlines, or None when reasoning stays in the content."""
    if options.reasoning_format == "none":
        return None
    body = reasoning(until_one_of(CLOSERS))
    close = choice(*CLOSERS) + optional("\n")
    # With a forced call the block must be closed, as in the standard layout: a call never hides in reasoning.
    closer = close if options.calls_forced else optional(close)
    openers = one_or_more(THINK.open)
    if options.thinking_forced_open:
        return block(optional(gap() + openers) + body + closer)
    return optional(block(gap() + openers + body + closer))


def _build(options: FormatOptions, *, trimmed: bool, bare: bool) -> FormatDefinition:
    """``trimmed``: Step 3.5's framing newlines around ``</think>``; ``bare``: calls may leave out the
    ``<tool_call>`` wrapper."""
    starts = [OPEN, FUNCTION_OPEN] if bare else [OPEN]
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, xml_tool_call)
        # The whitespace after a call is part of the trigger rule: the lazy grammar holds only that rule and
        # must accept the newline models write after their last call.
        wrapped = OPEN + gap() + call + gap() + CLOSE + gap()
        calls = repeat_calls(options, choice(wrapped, call + gap()) if bare else wrapped)
    layout = standard_layout(options, style=None if trimmed else THINK, tool_starts=starts, calls=calls)
    head = _reasoning(options) if trimmed else None
    return FormatDefinition(
        parser=layout if head is None else head + layout,
        triggers=think_triggers(options, THINK, starts),
        preserved_tokens=(THINK.open, THINK.close, OPEN, CLOSE),
        content_prefix=content_prefix(options, THINK),
        tool_name_pattern=XML_FUNCTION_PATTERN,
    )


def build_step35(options: FormatOptions) -> FormatDefinition:
    """The ``step-3.5`` definition for ``options``."""
    return _build(options, trimmed=True, bare=True)


def build_nemotron3(options: FormatOptions) -> FormatDefinition:
    """The ``nemotron-3`` definition for ``options``."""
    return _build(options, trimmed=False, bare=False)
