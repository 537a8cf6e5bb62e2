"""Inkling, the TML typed-content format (``inkling``).

A turn is a series of typed blocks, each opened by ``<|message_model|>`` (the prompt already wrote the first
one) and closed by ``<|end_message|>``; the turn ends with ``<|content_model_end_sampling|>``::

    <|content_thinking|>…reasoning…<|end_message|>
    <|message_model|><|content_text|>Checking.<|end_message|>
    <|message_model|>get_weather<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Paris"}}
    <|end_message|><|content_model_end_sampling|>

(one line in the output; split here for width). A call block echoes the tool name before its JSON, which names
it again (``name`` / ``args``). Text and thinking blocks may come in any order before the calls; the block
markers are framing, never content. With ``reasoning_format="none"`` a thinking block stays in the content,
markers included.
"""

from __future__ import annotations

from peg import Parser, atomic, choice, end, literal, optional, trigger_rule, until_one_of, zero_or_more

from ..builder import ToolSpec, block, content, gap, json_tool_call, reasoning, tool_choice_of
from ..grammar import Trigger
from ._layout import JSON_NAME_PATTERN, FormatDefinition, FormatOptions

__all__ = ["build"]

MODEL, THINK, TEXT = "<|message_model|>", "<|content_thinking|>", "<|content_text|>"
END_MESSAGE, END_SAMPLING, INVOKE = "<|end_message|>", "<|content_model_end_sampling|>", "<|content_invoke_tool_json|>"
PRESERVED = (MODEL, THINK, TEXT, END_MESSAGE, END_SAMPLING, INVOKE)


def _call(spec: ToolSpec) -> Parser:
    """A call block from its JSON marker on: the JSON call, the optional block closer."""
    return INVOKE + gap() + json_tool_call(spec, args_key="args") + optional(gap() + END_MESSAGE)


def _header(options: FormatOptions) -> Parser:
    """What comes before a call block's JSON marker: the optional block opener and name echo (longest name
    first). The echo is not checked against the JSON's name, which is the one used."""
    names = sorted((t.name for t in options.active_tools), key=lambda n: (-len(n), n))
    return optional(MODEL) + optional(choice(*names))


def _thinking(options: FormatOptions, *, opened: bool) -> Parser:
    """A thinking block (``opened``: its opener is already in the prompt)."""
    stops = [END_MESSAGE, TEXT, END_SAMPLING, MODEL]
    if options.reasoning_format == "none":
        # Kept in the content, markers included; a half marker must not stream as content (atomic).
        opener: Parser = atomic(content(literal(THINK)))
        body: Parser = content(until_one_of(stops)) + optional(atomic(content(literal(END_MESSAGE))))
    else:
        opener, body = literal(THINK), reasoning(until_one_of(stops)) + optional(END_MESSAGE)
    if opened:
        return block(optional(opener) + body)
    return block(optional(MODEL) + opener + body)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``inkling`` definition for ``options``."""
    with_calls = options.calls_enabled
    stops = [THINK, END_MESSAGE, END_SAMPLING, MODEL, *([INVOKE] if with_calls else [])]
    text = block(optional(MODEL) + TEXT + content(until_one_of(stops)) + optional(END_MESSAGE))
    # A block without a type marker must be closed, so a call block's name echo is never read as text; it is
    # atomic (published whole once closed), so that the echo does not stream as content first.
    plain = atomic(block(MODEL + content(until_one_of(stops)) + END_MESSAGE))
    calls_only = with_calls and options.calls_forced and not options.content_before_forced_calls
    # With a forced call and no content allowed before it, only thinking blocks may come first.
    kinds = (_thinking(options, opened=False),) if calls_only else (_thinking(options, opened=False), text, plain)
    blocks = zero_or_more(choice(*kinds))
    lead_text = content(until_one_of([TEXT, *stops])) + optional(END_MESSAGE)
    head: Parser = _thinking(options, opened=True) if options.thinking_forced_open else optional(lead_text)
    tail = gap() + optional(END_SAMPLING) + gap() + end()
    if not with_calls:
        parser = head + blocks + tail
    else:
        call = block(tool_choice_of(options.active_tools, _call))
        more = zero_or_more(gap() + block(_header(options)) + call) if options.parallel_tool_calls else None
        # The trigger rule starts at the JSON marker (its trigger word); the first header comes before it.
        # The end-of-sampling token is inside the rule too: a lazy grammar ends where the rule does.
        calls = (call if more is None else call + more) + optional(gap() + END_SAMPLING)
        section = block(_header(options)) + trigger_rule("tool-calls", calls)
        # Calls first, so that a block's name echo is never taken for leading text; else text, then calls.
        calls_first = blocks + section
        if options.thinking_forced_open:
            calls_first = head + calls_first
        text_first = head + blocks + (section if options.calls_forced else optional(section))
        if calls_only:
            text_first = calls_first
        parser = choice(calls_first, text_first) + tail
    return FormatDefinition(
        parser=parser,
        triggers=(Trigger.word(INVOKE),),
        preserved_tokens=PRESERVED,
        tool_name_pattern=JSON_NAME_PATTERN,
        content_prefix=THINK if options.thinking_forced_open and options.reasoning_format == "none" else "",
    )
