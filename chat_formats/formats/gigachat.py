"""Sber GigaChat 3 / 3.1 (``gigachat-3``) and GigaChat 3.5 (``gigachat-3.5``).

GigaChat 3 writes a call as a new message of the role ``function call``, its body one JSON object; GigaChat 3.1
writes the same object after one ``<|function_call|>`` token::

    Checking.<|message_sep|>

    function call<|role_sep|>
    {"name": "get_weather", "arguments": {"city": "Paris"}}

    Checking.<|function_call|>{"name": "get_weather", "arguments": {"city": "Paris"}}

An end-of-sequence ``</s>`` the output may keep after the call is framing. GigaChat 3 has no reasoning block.

GigaChat 3.5 reasons in ``<think>…</think>`` (the blank line after it is framing) and writes calls in GCML
tags, string-typed arguments raw and others as JSON (the ``string`` attribute says which; both are read)::

    <think>…</think>

    <｜GCML｜tool_calls>
    <｜GCML｜invoke name="get_weather">
    <｜GCML｜parameter name="city" string="true">Paris</｜GCML｜parameter>
    </｜GCML｜invoke>
    </｜GCML｜tool_calls>
"""

from __future__ import annotations

from peg import Parser, choice, optional, trigger_rule, zero_or_more

from ..builder import XmlMarkers, block, gap, json_tool_call, tool_choice_of, xml_tool_call
from ._layout import (
    JSON_NAME_PATTERN,
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    content_prefix,
    repeat_calls,
    standard_layout,
)
from ._layout import think_triggers as _triggers
from .phrases import phrase_reasoning

__all__ = ["build_v3", "build_v35"]

MESSAGE_CALL, FUNCTION_CALL = "<|message_sep|>\n\nfunction call<|role_sep|>\n", "<|function_call|>"
EOS = "</s>"
V3_PRESERVED = ("<|message_sep|>", "<|role_sep|>", FUNCTION_CALL)

GCML = "｜GCML｜"
CALLS_OPEN, CALLS_CLOSE = f"<{GCML}tool_calls>", f"</{GCML}tool_calls>"
STYLE = ReasoningStyle("<think>", "</think>")
MARKERS = XmlMarkers(
    function_open=f'<{GCML}invoke name="',
    name_suffix='">',
    function_close=f"</{GCML}invoke>",
    param_open=f'<{GCML}parameter name="',
    key_suffix=choice('" string="true">', '" string="false">'),
    value_ends=(f"</{GCML}parameter>",),
    value_newline=False,
)
V35_PRESERVED = ("<think>", "</think>", CALLS_OPEN, CALLS_CLOSE, MARKERS.function_open, MARKERS.function_close)


def build_v3(options: FormatOptions) -> FormatDefinition:
    """The ``gigachat-3`` definition for ``options``: a JSON call after either call marker."""
    starts = [MESSAGE_CALL, FUNCTION_CALL]
    calls = None
    if options.calls_enabled:
        call = choice(*starts) + gap() + tool_choice_of(options.active_tools, json_tool_call)
        calls = repeat_calls(options, call + optional(gap() + EOS))
    return FormatDefinition(
        parser=standard_layout(options, style=None, tool_starts=starts, calls=calls),
        triggers=_triggers(options, None, starts),
        preserved_tokens=V3_PRESERVED,
        tool_name_pattern=JSON_NAME_PATTERN,
    )


def build_v35(options: FormatOptions) -> FormatDefinition:
    """The ``gigachat-3.5`` definition for ``options``: ``<think>`` reasoning, GCML calls."""
    calls: Parser | None = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, lambda spec: xml_tool_call(spec, MARKERS))
        body = call + zero_or_more(gap() + call) if options.parallel_tool_calls else call
        section = block(trigger_rule("tool-calls", CALLS_OPEN + gap() + body + gap() + CALLS_CLOSE))
        calls = section if options.calls_forced else optional(section)
    layout = standard_layout(options, style=None, tool_starts=[CALLS_OPEN], calls=calls)
    # The answer follows the reasoning after a blank line, which is framing.
    lead = phrase_reasoning(options, [STYLE.open], [STYLE.close], after=optional("\n\n"))
    return FormatDefinition(
        parser=layout if lead is None else lead + layout,
        triggers=_triggers(options, STYLE, [CALLS_OPEN]),
        preserved_tokens=V35_PRESERVED,
        content_prefix=content_prefix(options, STYLE),
        tool_name_pattern=r'<｜GCML｜invoke name="([\w.-]+)"',
    )
