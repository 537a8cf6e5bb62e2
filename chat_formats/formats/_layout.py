"""What a format module builds, and the layout most formats share: reasoning block, content, tool calls.

A format module exposes ``NAMES`` (canonical name first, then aliases) and ``build(options) ->
FormatDefinition``. Most are a few lines over :func:`standard_layout`::

    reasoning?  content(until one of the tool-call start markers)  tool-calls  end

with the reasoning block optional (or already open, ``thinking_forced_open``), left in the content when
``reasoning_format="none"``, and the tool-call part a repetition of trigger rules (at least one for
``tool_choice="required"`` or a named tool, at most one without ``parallel_tool_calls``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from peg import (
    Parser,
    choice,
    end,
    literal,
    one_or_more,
    optional,
    rest,
    space,
    trigger_rule,
    until_one_of,
    zero_or_more,
)

from ..builder import ToolSpec, block, content, gap, reasoning
from ..grammar import Trigger
from ..mapper import IdPosition

__all__ = [
    "FormatDefinition",
    "FormatOptions",
    "ReasoningStyle",
    "ToolChoice",
    "array_calls",
    "content_prefix",
    "regex_escape",
    "repeat_calls",
    "standard_layout",
    "think_triggers",
]

ToolChoice = str
"""``"auto"``, ``"required"``, ``"none"`` or the name of one tool (the request's ``tool_choice``)."""


@dataclass(frozen=True)
class FormatOptions:
    """The request-level options a format is built for (see :func:`chat_formats.get_format`)."""

    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice = "auto"
    parallel_tool_calls: bool = True
    reasoning_format: Literal["auto", "none"] = "auto"
    thinking_forced_open: bool = False

    @property
    def calls_enabled(self) -> bool:
        """Whether tool calls are parsed at all (tools given and ``tool_choice`` is not ``"none"``)."""
        return bool(self.tools) and self.tool_choice != "none"

    @property
    def calls_forced(self) -> bool:
        """Whether the output must contain a call (``"required"`` or a named tool)."""
        return self.calls_enabled and self.tool_choice != "auto"

    @property
    def active_tools(self) -> tuple[ToolSpec, ...]:
        """The tools a call may name: all of them, or just the named one."""
        if self.tool_choice in ("auto", "required", "none"):
            return self.tools
        return tuple(t for t in self.tools if t.name == self.tool_choice)


@dataclass(frozen=True)
class FormatDefinition:
    """What a format module builds for one set of options.

    ``parser`` (the one definition: parsed by peg, emitted as GBNF); ``triggers`` for the lazy grammar (empty:
    a word trigger per literal that a trigger rule starts with); ``preserved_tokens``; ``id_position`` (see
    :data:`chat_formats.mapper.IdPosition`); ``content_prefix``: text the prompt already holds that belongs
    in the content (the reasoning opener when reasoning is left in the content and the prompt opened it);
    ``lazy``: whether the grammar is lazy when calls are optional (False: it always constrains the whole
    output, as for formats whose whole reply is one JSON document, or that have no calls).
    """

    parser: Parser
    triggers: tuple[Trigger, ...] = ()
    preserved_tokens: tuple[str, ...] = ()
    id_position: IdPosition = "none"
    content_prefix: str = ""
    warnings: tuple[str, ...] = field(default=())
    lazy: bool = True


@dataclass(frozen=True)
class ReasoningStyle:
    """A ``open … close`` reasoning block. ``ends_at_tools``: a tool-call start marker also ends the reasoning
    (Kimi K2, Qwen3's parser); ``prompt_opener``: what a prompt that forces the block open ends with."""

    open: str
    close: str
    ends_at_tools: bool = False
    prompt_opener: str = ""


def repeat_calls(options: FormatOptions, call: Parser, name: str = "tool-calls") -> Parser:
    """The tool-call part: the trigger rule ``name`` holding ``call`` repeated as the options allow
    (whitespace between calls), optional unless a call is forced.

    The repetition lives inside the trigger rule so that a lazy grammar, once triggered, still allows
    parallel calls. ``call`` must start with a literal (the trigger word).
    """
    call = block(call)  # a complete call counts as consumed up to its closing marker
    body = call + zero_or_more(gap() + call) if options.parallel_tool_calls else call
    section = trigger_rule(name, body)
    return section if options.calls_forced else optional(section)


def array_calls(options: FormatOptions, openers: Sequence[str], call: Parser, closer: str | None = None) -> Parser:
    """The tool-call part of formats that write every call as an element of one JSON array after an opener
    (``opener[call, call, …]closer``; one of ``openers``): the trigger rule ``tool-calls``, optional unless a
    call is forced, one element only without ``parallel_tool_calls``. JSON whitespace is free inside the array;
    ``closer``, when the format has one, may be missing (the output may stop right after the array)."""
    items = call + zero_or_more(space() + "," << call) if options.parallel_tool_calls else call
    body = choice(*openers) << "[" << items << "]"
    if closer is not None:
        body = body + optional(gap() + closer)
    section = trigger_rule("tool-calls", body)
    return section if options.calls_forced else optional(section)


def _reasoning_part(options: FormatOptions, style: ReasoningStyle, tool_starts: Sequence[str]) -> Parser | None:
    if options.reasoning_format == "none":
        return None
    ends = [style.close, *(tool_starts if style.ends_at_tools else ())]
    body = reasoning(until_one_of(ends))
    # With a forced call the block must be closed (a call cannot hide inside unclosed reasoning), which
    # keeps the grammar from allowing output the parser would read as reasoning only.
    closer: Parser = literal(style.close) if options.calls_forced and not style.ends_at_tools else optional(style.close)
    openers = one_or_more(style.open)  # a repeated opener (`<think><think>`) is absorbed, not reasoning text
    if options.thinking_forced_open:
        return block(optional(gap() + openers) + body + closer)
    return optional(block(gap() + openers + body + closer))


def standard_layout(
    options: FormatOptions,
    *,
    style: ReasoningStyle | None,
    tool_starts: Sequence[str],
    calls: Parser | None,
    response: tuple[str, str] | None = None,
) -> Parser:
    """``reasoning? content calls end``: see the module docstring. ``calls`` is the tool-call part (built with
    :func:`repeat_calls` from trigger rules), ``tool_starts`` the markers that end the content (the literal
    texts the calls start with). Without ``calls`` the content runs to the end.

    ``response``: the ``(open, close)`` markers of an optional answer block around the content (Granite's
    ``<response>``, Command R7B's ``<|START_RESPONSE|>``). They are framing, never content — also when the
    reasoning stays in the content — and the closer may be missing."""
    parts: list[Parser] = []
    if style is not None:
        r = _reasoning_part(options, style, tool_starts)
        if r is not None:
            parts.append(r)
    with_calls = calls is not None and options.calls_enabled
    ends = list(tool_starts) if with_calls else []
    if response is not None:
        opener, closer = response
        answer = opener + content(until_one_of([closer, *ends])) + optional(closer)
        parts += [content(until_one_of([opener, *ends])), optional(block(answer))]
    if calls is not None and with_calls:
        parts += [content(until_one_of(ends)), calls, gap()]
    else:
        parts.append(content(rest()))
    parts.append(end())
    out = parts[0]
    for p in parts[1:]:
        out = out + p
    return out


def content_prefix(options: FormatOptions, style: ReasoningStyle | None) -> str:
    """The prompt's opener, restored in front of the content when reasoning stays in the content."""
    if style is None or options.reasoning_format != "none" or not options.thinking_forced_open:
        return ""
    return style.prompt_opener or style.open


_REGEX_SPECIAL = re.compile(r"[\\^$.|?*+()\[\]{}]")


def regex_escape(text: str) -> str:
    """``text`` as a regex matching it literally, escaping only the metacharacters shared by Python ``re``
    and ECMAScript (so llama.cpp's ``std::regex`` reads the trigger the same way)."""
    return _REGEX_SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def think_triggers(options: FormatOptions, style: ReasoningStyle | None, words: Sequence[str]) -> tuple[Trigger, ...]:
    """Lazy-grammar triggers for ``words`` that never fire inside a reasoning block.

    Plain word triggers when there is no separate reasoning block (or a tool marker ends it anyway);
    otherwise a ``pattern_full`` regex that skips the block: after its close when the prompt opened it, else
    after a leading closed block or in output that does not start with one.
    """
    if style is None or options.reasoning_format == "none" or style.ends_at_tools:
        return tuple(Trigger.word(w) for w in words)
    alt = "|".join(regex_escape(w) for w in words)
    o, c = regex_escape(style.open), regex_escape(style.close)
    if options.thinking_forced_open:
        regex = rf"[\s\S]*?{c}[\s\S]*?({alt})[\s\S]*"
    else:
        regex = rf"(?:\s*{o}[\s\S]*?{c}|(?!\s*{o}))[\s\S]*?({alt})[\s\S]*"
    return (Trigger.pattern_full(regex),)
