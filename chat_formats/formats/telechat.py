"""TeleChat 4 (``telechat-4``): ``<think>`` reasoning (the prompt opens it when thinking is enabled:
``thinking_forced_open``) and calls in ``<tool_call>…</tool_call>``, written either as a JSON object or as the
tool name followed by key/value tags::

    …reasoning…</think>Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>
    <tool_call>get_weather<param_key>city</param_key><param_value>Paris</param_value></tool_call>

In the tag form string-typed values are raw text and other values JSON, typed by the tool's schema (markers read
from SGLang's ``telechat4`` reasoning and tool-call detectors).
"""

from __future__ import annotations

from dataclasses import replace

from peg import Parser, chars, choice, literal, peek

from ..builder import ToolSpec, XmlMarkers, gap, json_tool_call, tool_choice_of, xml_tool_call
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, repeat_calls, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

OPEN, CLOSE = "<tool_call>", "</tool_call>"
KEY, KEY_END, VALUE, VALUE_END = "<param_key>", "</param_key>", "<param_value>", "</param_value>"
STYLE = ReasoningStyle("<think>", "</think>", prompt_opener="<think>")
PRESERVED = ("<think>", "</think>", OPEN, CLOSE, KEY, KEY_END, VALUE, VALUE_END)
MARKERS = XmlMarkers(
    function_open=OPEN,
    # The bare name ends where whitespace or a marker starts; the grammar always continues with one (implied).
    name_suffix=peek(chars("[<\\t\\n\\r ]", 1, 1), implied=True),
    function_close=CLOSE,
    param_open=KEY,
    key_suffix=literal(KEY_END) + gap() + VALUE,
    value_ends=(VALUE_END,),
    value_newline=False,
)


def _call(spec: ToolSpec) -> Parser:
    """Either spelling of a call to ``spec`` (the JSON one under its own rule name)."""
    as_json = json_tool_call(replace(spec, rule=f"{spec.rule}-json"))
    return choice(OPEN + gap() + as_json + gap() + CLOSE, xml_tool_call(spec, MARKERS))


def build(options: FormatOptions) -> FormatDefinition:
    """The ``telechat-4`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        calls = repeat_calls(options, tool_choice_of(options.active_tools, _call))
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=[OPEN], calls=calls),
        triggers=_triggers(options, STYLE, [OPEN]),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
        tool_name_pattern=r'<tool_call>\s*(?:\{\s*"name"\s*:\s*")?([\w.-]+)',
    )
