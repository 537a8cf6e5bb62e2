"""Cohere Command 4 / Command A / Cohere2-MoE "North Code" (``cohere-command-4``, alias ``cohere2-moe``) and
Command R+ (``command-r-plus``).

Command 4 reasons in ``<|START_THINKING|>…<|END_THINKING|>`` (its prompt usually opens the block:
``thinking_forced_open``), answers in ``<|START_TEXT|>…<|END_TEXT|>`` and calls tools with one JSON array in
an action block::

    <|START_THINKING|>…<|END_THINKING|><|START_ACTION|>[
        {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}
    ]<|END_ACTION|><|END_OF_TURN_TOKEN|>

The model's ``tool_call_id`` ("0", "1", …) is the call's id, as the template renders it back with the tool
result; a call written without one gets a generated id. A text or action marker also ends an unclosed thinking
block; the text markers and the end-of-turn token are framing, never content.

Command R+ writes its calls after an ``Action:`` line, as a fenced JSON array (its replies may keep the
``<|CHATBOT_TOKEN|>`` / ``<|END_OF_TURN_TOKEN|>`` framing, which is dropped)::

    Action:
    ```json
    [{"tool_name": "get_weather", "parameters": {"city": "Paris"}}]
    ```
"""

from __future__ import annotations

from peg import (
    Parser,
    choice,
    end,
    literal,
    optional,
    trigger_rule,
    until_one_of,
    zero_or_more,
)

from ..builder import (
    ToolSpec,
    block,
    content,
    gap,
    json_seq,
    json_tool_call,
    json_ws,
    reasoning,
    tool_choice_of,
)
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, think_triggers

__all__ = ["build_command4", "build_command_r_plus"]

THINK, END_THINK = "<|START_THINKING|>", "<|END_THINKING|>"
TEXT, END_TEXT = "<|START_TEXT|>", "<|END_TEXT|>"
ACTION, END_ACTION = "<|START_ACTION|>", "<|END_ACTION|>"
CHATBOT, END_TURN = "<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>"
STYLE = ReasoningStyle(THINK, END_THINK, prompt_opener=THINK)
COMMAND4_PRESERVED = (THINK, END_THINK, TEXT, END_TEXT, ACTION, END_ACTION, END_TURN)

R_PLUS_STARTS = ("Action:\n```json", "Action: ```json", "Action:\n```")
TOOL_NAME_PATTERN = r'"tool_name"\s*:\s*"([\w.-]+)'
R_PLUS_PRESERVED = (CHATBOT, END_TURN)


def _command4_call(spec: ToolSpec) -> Parser:
    """``{"tool_call_id": "…", "tool_name": N, "parameters": {…}}``; the id member is optional and, when
    written, becomes the call's id (the template renders it back in the next turn's tool results)."""
    return json_tool_call(
        spec,
        name_key="tool_name",
        args_key="parameters",
        id_key="tool_call_id",
        orders=(("id", "name", "arguments"), ("name", "arguments")),
    )


def _command4_thinking(options: FormatOptions) -> Parser | None:
    """The thinking block: ended by its closer or by a text/action marker (the closer then optional)."""
    ends = [END_THINK, TEXT, ACTION]
    if options.reasoning_format == "none":
        body: Parser = content(until_one_of(ends))
        opener: Parser = content(literal(THINK))
        closer: Parser = optional(content(literal(END_THINK)))
    else:
        body, opener, closer = reasoning(until_one_of(ends)), literal(THINK), optional(END_THINK)
    if options.thinking_forced_open:
        return block(optional(gap() + opener) + body + closer)
    return optional(block(gap() + opener + body + closer))


def build_command4(options: FormatOptions) -> FormatDefinition:
    """The ``cohere-command-4`` definition for ``options``."""
    with_calls = options.calls_enabled
    stops = [END_TEXT, END_TURN, *([ACTION] if with_calls else [])]
    # The text markers are framing; a reply without them is content too.
    text = gap() + optional(TEXT) + content(until_one_of(stops)) + optional(END_TEXT)
    if with_calls and options.calls_forced and not options.content_before_forced_calls:
        text = gap()  # the output is the thinking, then the call(s)
    parser = text if (lead := _command4_thinking(options)) is None else lead + text
    if with_calls:
        call = tool_choice_of(options.active_tools, _command4_call)
        parser = parser + gap() + _action_calls(options, (ACTION,), call, END_ACTION, end_turn=True)
    parser = parser + gap() + optional(END_TURN) + gap() + end()
    return FormatDefinition(
        parser=parser,
        triggers=think_triggers(options, STYLE, [ACTION]),
        preserved_tokens=COMMAND4_PRESERVED,
        tool_name_pattern=TOOL_NAME_PATTERN,
        content_prefix=THINK if options.thinking_forced_open and options.reasoning_format == "none" else "",
    )


def _action_calls(
    options: FormatOptions, openers: tuple[str, ...], call: Parser, closer: str, *, end_turn: bool
) -> Parser:
    """``opener[call, …]closer`` as :func:`~chat_formats.formats._layout.array_calls` builds it, with the
    end-of-turn token the model writes next inside the trigger rule (a lazy grammar ends with the rule)."""
    items = call + zero_or_more(json_ws() + json_seq(",", call)) if options.parallel_tool_calls else call
    body = json_seq(choice(*openers), "[", items, "]")
    body = body + optional(gap() + closer)
    if end_turn:
        body = body + optional(gap() + END_TURN)
    section = trigger_rule("tool-calls", body)
    return section if options.calls_forced else optional(section)


def _r_plus_call(spec: ToolSpec) -> Parser:
    return json_tool_call(spec, name_key="tool_name", args_key="parameters")


def build_command_r_plus(options: FormatOptions) -> FormatDefinition:
    """The ``command-r-plus`` definition for ``options``."""
    with_calls = options.calls_enabled
    stops = [END_TURN, *(R_PLUS_STARTS if with_calls else ())]
    parser = optional(CHATBOT) + content(until_one_of(stops))
    if with_calls and options.calls_forced and not options.content_before_forced_calls:
        parser = optional(CHATBOT) + gap()  # the output is the call(s)
    if with_calls:
        call = tool_choice_of(options.active_tools, _r_plus_call)
        parser = parser + _action_calls(options, R_PLUS_STARTS, call, "```", end_turn=True)
    parser = parser + gap() + optional(END_TURN) + gap() + end()
    return FormatDefinition(
        parser=parser,
        triggers=think_triggers(options, None, R_PLUS_STARTS),
        preserved_tokens=R_PLUS_PRESERVED,
        tool_name_pattern=TOOL_NAME_PATTERN,
    )
