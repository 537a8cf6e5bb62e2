"""Reasoning delimited by prompted phrases rather than tokens: IBM Granite 3.2 (``granite-3.2``) and ServiceNow
Apriel 1.6 Thinker (``apriel-1.6``). Their calls are those of ``granite`` and ``apriel-1.5``::

    Here is my thought process:…reasoning…Here is my response:Checking.<|tool_call|>[{"name": "get_weather", …}]

    …reasoning…
    [BEGIN FINAL RESPONSE]
    Checking.<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>

Granite 3.2 writes both phrases itself (``Here's`` is read as well as ``Here is``); Apriel 1.6 prompts open the
reasoning with "Here are my reasoning steps:" (``thinking_forced_open``) and the model ends it with
``[BEGIN FINAL RESPONSE]``. With ``reasoning_format="none"`` the phrases stay in the content.
"""

from __future__ import annotations

from collections.abc import Sequence

from peg import Parser, choice, optional, until_one_of

from ..builder import block, gap, json_tool_call, reasoning, tool_choice_of
from ..grammar import Trigger
from . import apriel, granite
from ._layout import (
    JSON_NAME_PATTERN,
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    array_calls,
    content_prefix,
    regex_escape,
    standard_layout,
)

__all__ = ["build_apriel16", "build_granite32", "phrase_reasoning", "phrase_triggers"]

GRANITE_OPENERS = ("Here is my thought process:", "Here's my thought process:")
GRANITE_CLOSERS = ("Here is my response:", "Here's my response:")
APRIEL_OPENERS = ("Here are my reasoning steps:",)
APRIEL_CLOSERS = ("[BEGIN FINAL RESPONSE]",)


def phrase_reasoning(
    options: FormatOptions, openers: Sequence[str], closers: Sequence[str], *, after: Parser | None = None
) -> Parser | None:
    """The reasoning block ``opener text closer`` (any of the phrases), optional — or already open
    (``thinking_forced_open``, where an opener the model repeats is absorbed). None for ``reasoning_format="none"``.
    The closer may be missing at the end of the output, unless a call is forced (a call cannot hide inside
    unclosed reasoning). ``after``: framing the model writes after the closer (e.g. a blank line)."""
    if options.reasoning_format == "none":
        return None
    body = reasoning(until_one_of(closers))
    close: Parser = choice(*closers) if after is None else choice(*closers) + after
    closer: Parser = close if options.calls_forced else optional(close)
    if options.thinking_forced_open:
        return block(optional(gap() + choice(*openers)) + body + closer)
    return optional(block(gap() + choice(*openers) + body + closer))


def phrase_triggers(
    options: FormatOptions, openers: Sequence[str], closers: Sequence[str], words: Sequence[str]
) -> tuple[Trigger, ...]:
    """Lazy-grammar triggers for ``words`` that never fire inside a reasoning block opened by any of ``openers``
    and closed by any of ``closers`` (as :func:`~chat_formats.formats._layout.think_triggers` for one pair)."""
    if options.reasoning_format == "none":
        return tuple(Trigger.word(w) for w in words)
    alt = "|".join(regex_escape(w) for w in words)
    o = "(?:" + "|".join(regex_escape(x) for x in openers) + ")"
    c = "(?:" + "|".join(regex_escape(x) for x in closers) + ")"
    if options.thinking_forced_open:
        regex = rf"[\s\S]*?{c}[\s\S]*?({alt})[\s\S]*"
    else:
        regex = rf"(?:\s*{o}[\s\S]*?{c}|(?!\s*{o}))[\s\S]*?({alt})[\s\S]*"
    return (Trigger.pattern_full(regex),)


def _build(
    options: FormatOptions,
    *,
    openers: Sequence[str],
    closers: Sequence[str],
    calls: Parser | None,
    starts: Sequence[str],
    preserved: tuple[str, ...],
    after: Parser | None = None,
) -> FormatDefinition:
    style = ReasoningStyle(openers[0], closers[0], prompt_opener=openers[0] + "\n")
    layout = standard_layout(options, style=None, tool_starts=starts, calls=calls)
    lead = phrase_reasoning(options, openers, closers, after=after)
    return FormatDefinition(
        parser=layout if lead is None else lead + layout,
        triggers=phrase_triggers(options, openers, closers, starts),
        preserved_tokens=preserved,
        content_prefix=content_prefix(options, style),
        tool_name_pattern=JSON_NAME_PATTERN,
    )


def build_granite32(options: FormatOptions) -> FormatDefinition:
    """The ``granite-3.2`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        calls = array_calls(options, granite.OPENERS, tool_choice_of(options.active_tools, json_tool_call))
    return _build(
        options,
        openers=GRANITE_OPENERS,
        closers=GRANITE_CLOSERS,
        calls=calls,
        starts=granite.OPENERS,
        preserved=(granite.OPENERS[0],),
    )


def build_apriel16(options: FormatOptions) -> FormatDefinition:
    """The ``apriel-1.6`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        calls = array_calls(options, [apriel.OPEN], call, apriel.CLOSE)
    return _build(
        options,
        openers=APRIEL_OPENERS,
        closers=APRIEL_CLOSERS,
        calls=calls,
        starts=[apriel.OPEN],
        preserved=(apriel.OPEN, apriel.CLOSE),
        after=optional("\n"),  # the marker stands on its own line
    )
