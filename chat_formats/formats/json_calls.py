"""Families whose calls are JSON objects ``{"name": …, "arguments": {…}}`` behind a plain marker: Salesforce
xLAM (``xlam``), AI21 Jamba (``jamba``), Phi-4-mini (``phi-4-mini``) and IBM Granite 20B FC
(``granite-20b-fc``). Content comes first; text after the calls does not fit (it is returned as content, with a
warning).

``xlam``: one JSON array of calls, bare or in one of the wrappers xLAM models write — a ```` ```json ````
fence, ``[TOOL_CALLS]``, or ``<tool_call>…</tool_call>``; an optional ``<think>…</think>`` block comes first::

    I'll check.
    ```json
    [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    ```

A bare array starts a call only where it reads ``[{"name": "`` (or without the space), so a ``[`` in prose stays
content; the newline before a fence is framing.

``jamba``: one array in ``<tool_calls>…</tool_calls>`` (the space Jamba's tokenizer writes before the marker is
framing, not content)::

    <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>

``phi-4-mini``: one array after ``functools`` (each call's arguments under ``arguments`` or ``parameters``)::

    functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]

``granite-20b-fc``: each call after its own ``<function_call>``::

    <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}
    <function_call> {"name": "ping", "arguments": {}}
"""

from __future__ import annotations

from dataclasses import replace

from peg import Parser, choice, optional, space, trigger_rule, zero_or_more

from ..builder import ToolSpec, gap, json_tool_call, tool_choice_of
from ._layout import (
    JSON_NAME_PATTERN,
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    array_calls,
    content_prefix,
    repeat_calls,
    standard_layout,
    think_triggers,
)

__all__ = ["build_granite_20b_fc", "build_jamba", "build_phi4_mini", "build_xlam"]

THINK = ReasoningStyle("<think>", "</think>")


# --- xlam -------------------------------------------------------------------------------------------------------
FENCES = ("\n```json", "```json")
TOOL_CALLS_TAG = "[TOOL_CALLS]"
TOOL_CALL_OPEN, TOOL_CALL_CLOSE = "<tool_call>", "</tool_call>"
BARE = ('[{"name": "', '[{"name":"')
XLAM_STARTS = (*FENCES, TOOL_CALLS_TAG, TOOL_CALL_OPEN, *BARE)


def _array(call: Parser, parallel: bool) -> Parser:
    """``[call, call, …]`` with JSON whitespace free (one element only without parallel calls)."""
    items = call + zero_or_more(space() + "," << call) if parallel else call
    return "[" << items << "]"


def build_xlam(options: FormatOptions) -> FormatDefinition:
    """The ``xlam`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        array = _array(tool_choice_of(options.active_tools, json_tool_call), options.parallel_tool_calls)
        section = trigger_rule(
            "tool-calls",
            choice(
                choice(*FENCES) + gap() + array + gap() + "```",
                TOOL_CALLS_TAG + gap() + array,
                TOOL_CALL_OPEN + gap() + array + gap() + TOOL_CALL_CLOSE,
                array,
            )
            + gap(),
        )
        calls = section if options.calls_forced else optional(section)
    return FormatDefinition(
        parser=standard_layout(options, style=THINK, tool_starts=XLAM_STARTS, calls=calls),
        triggers=think_triggers(options, THINK, XLAM_STARTS),
        preserved_tokens=(THINK.open, THINK.close, TOOL_CALLS_TAG, TOOL_CALL_OPEN, TOOL_CALL_CLOSE),
        content_prefix=content_prefix(options, THINK),
        tool_name_pattern=JSON_NAME_PATTERN,
    )


# --- jamba ------------------------------------------------------------------------------------------------------
JAMBA_OPEN, JAMBA_CLOSE = "<tool_calls>", "</tool_calls>"
JAMBA_STARTS = (" " + JAMBA_OPEN, JAMBA_OPEN)


def build_jamba(options: FormatOptions) -> FormatDefinition:
    """The ``jamba`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        calls = array_calls(options, JAMBA_STARTS, call, JAMBA_CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=None, tool_starts=JAMBA_STARTS, calls=calls),
        triggers=think_triggers(options, None, JAMBA_STARTS),
        preserved_tokens=(JAMBA_OPEN, JAMBA_CLOSE),
        tool_name_pattern=JSON_NAME_PATTERN,
    )


# --- phi-4-mini -------------------------------------------------------------------------------------------------
FUNCTOOLS = "functools"


def _phi_call(spec: ToolSpec) -> Parser:
    # Two spellings of the arguments member; the second needs its own rule name ("tool-…" never starts so).
    parameters = json_tool_call(replace(spec, rule="parameters-" + spec.rule), args_key="parameters")
    return choice(json_tool_call(spec), parameters)


def build_phi4_mini(options: FormatOptions) -> FormatDefinition:
    """The ``phi-4-mini`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        calls = array_calls(options, [FUNCTOOLS], tool_choice_of(options.active_tools, _phi_call))
    return FormatDefinition(
        parser=standard_layout(options, style=None, tool_starts=[FUNCTOOLS + "["], calls=calls),
        triggers=think_triggers(options, None, [FUNCTOOLS + "["]),
        preserved_tokens=(FUNCTOOLS,),
        tool_name_pattern=JSON_NAME_PATTERN,
    )


# --- granite-20b-fc ---------------------------------------------------------------------------------------------
FUNCTION_CALL = "<function_call>"


def build_granite_20b_fc(options: FormatOptions) -> FormatDefinition:
    """The ``granite-20b-fc`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, json_tool_call)
        # The whitespace after a call is part of the trigger rule: the lazy grammar holds only that rule and
        # must accept the newline models write after their last call.
        calls = repeat_calls(options, FUNCTION_CALL + gap() + call + gap())
    return FormatDefinition(
        parser=standard_layout(options, style=None, tool_starts=[FUNCTION_CALL], calls=calls),
        triggers=think_triggers(options, None, [FUNCTION_CALL]),
        preserved_tokens=(FUNCTION_CALL,),
        tool_name_pattern=JSON_NAME_PATTERN,
    )
