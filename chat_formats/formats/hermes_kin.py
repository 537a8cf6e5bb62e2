"""Families that write Hermes' JSON calls in ``<tool_call>…</tool_call>``: ERNIE 4.5 (``ernie-4.5``) and IBM
Granite 4 (``granite-4``); their relatives with exactly Hermes' or Qwen3's syntax are aliases (see below).

``ernie-4.5``: reasoning in ``<think>…</think>`` (the template opens it: ``thinking_forced_open``), an answer
optionally wrapped in ``<response>…</response>`` (framing, never content), calls on their own lines::

    The user wants two things.
    </think>


    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

The newlines ERNIE writes between the text and the first ``<tool_call>`` (up to three) are framing, not content.

``granite-4``: content and calls, no reasoning block::

    Checking.<tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

Aliases (the same syntax; only how the prompt opens the reasoning differs, which ``thinking_forced_open`` says):
``reka`` and ``holo2`` are ``hermes`` (the prompt opens ``<think>`` when thinking is on; the block ends only at
``</think>``, so a call quoted in the reasoning stays reasoning); ``arcee-trinity`` is ``qwen3`` (a
``<tool_call>`` also ends an unclosed ``<think>`` block, as SGLang's Trinity detector reads calls inside it).
"""

from __future__ import annotations

from peg import choice

from ..builder import gap, json_tool_call, tool_choice_of
from ._layout import (
    JSON_NAME_PATTERN,
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    content_prefix,
    repeat_calls,
    standard_layout,
    think_triggers,
)

__all__ = ["build_ernie45", "build_granite4"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
THINK = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")
RESPONSE = ("<response>", "</response>")
# Longest first: the content ends at the first newline of a run that leads to the call.
ERNIE_STARTS = ("\n\n\n" + OPEN, "\n\n" + OPEN, "\n" + OPEN, OPEN)


def build_ernie45(options: FormatOptions) -> FormatDefinition:
    """The ``ernie-4.5`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        # The whitespace after a call is part of the trigger rule: the lazy grammar holds only that rule and
        # must accept the newline models write after their last call.
        calls = repeat_calls(options, choice(*ERNIE_STARTS) + gap() + call + gap() + CLOSE + gap())
    return FormatDefinition(
        parser=standard_layout(options, style=THINK, tool_starts=ERNIE_STARTS, calls=calls, response=RESPONSE),
        triggers=think_triggers(options, THINK, ERNIE_STARTS),
        preserved_tokens=("<think>", "</think>", *RESPONSE, OPEN, CLOSE),
        content_prefix=content_prefix(options, THINK),
        tool_name_pattern=JSON_NAME_PATTERN,
    )


def build_granite4(options: FormatOptions) -> FormatDefinition:
    """The ``granite-4`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        calls = repeat_calls(options, OPEN + gap() + call + gap() + CLOSE + gap())
    return FormatDefinition(
        parser=standard_layout(options, style=None, tool_starts=[OPEN], calls=calls),
        triggers=think_triggers(options, None, [OPEN]),
        preserved_tokens=(OPEN, CLOSE),
        tool_name_pattern=JSON_NAME_PATTERN,
    )
