"""K2 Horizon / K2-V3 (``k2-horizon``): ``<ifm|…>`` tags, reasoning and XML-style calls in one section::

    <ifm|think>…</ifm|think>Checking.<ifm|tool_calls><ifm|tool_call>get_weather
    <ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call></ifm|tool_calls>

The reasoning block has one spelling per reasoning effort (``<ifm|think>``, ``<ifm|think_fast>``,
``<ifm|think_faster>``), each closed by its own closer or by ``</ifm|think>`` (which small models write for every
effort). An argument may carry a type tag (``<ifm|arg_type>integer</ifm|arg_type>``: a JSON Schema type name, as the
prompt asks, or its Python spelling) before its value; the tool's schema types the value, so the tag is checked,
not kept — a damaged tag makes the call content with a warning rather than vanish. String values are raw text,
other values JSON.
"""

from __future__ import annotations

from peg import Parser, chars, choice, literal, optional, peek, trigger_rule, zero_or_more

from ..builder import XmlMarkers, block, gap, tool_choice_of, xml_tool_call
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, standard_layout
from .phrases import phrase_reasoning, phrase_triggers

__all__ = ["build"]

EFFORTS = ("think_faster", "think_fast", "think")  # longest first: "<ifm|think" starts all three
OPENERS = tuple(f"<ifm|{e}>" for e in EFFORTS)
CLOSERS = tuple(f"</ifm|{e}>" for e in EFFORTS)
SECTION, SECTION_END = "<ifm|tool_calls>", "</ifm|tool_calls>"
CALL, CALL_END = "<ifm|tool_call>", "</ifm|tool_call>"
KEY, KEY_END, TYPE, TYPE_END, VALUE, VALUE_END = (
    "<ifm|arg_key>",
    "</ifm|arg_key>",
    "<ifm|arg_type>",
    "</ifm|arg_type>",
    "<ifm|arg_value>",
    "</ifm|arg_value>",
)
STYLE = ReasoningStyle(OPENERS[-1], CLOSERS[-1])
PRESERVED = (*OPENERS, *CLOSERS, SECTION, SECTION_END, CALL, CALL_END, KEY, KEY_END, TYPE, TYPE_END, VALUE, VALUE_END)

# JSON Schema's type names and the Python spellings small models also write; longest first, as "int" starts "integer".
TYPE_NAMES = (
    *("integer", "boolean", "string", "number", "object", "array", "null"),
    *("float", "bool", "dict", "list", "int", "str"),
)
_TYPE_TAG = optional(TYPE + choice(*(literal(t) for t in TYPE_NAMES)) + TYPE_END + gap())
MARKERS = XmlMarkers(
    function_open=CALL,
    # The bare name ends where whitespace or a marker starts; the grammar always continues with one (implied).
    name_suffix=peek(chars("[<\\t\\n\\r ]", 1, 1), implied=True),
    function_close=CALL_END,
    param_open=KEY,
    key_suffix=literal(KEY_END) + gap() + _TYPE_TAG + VALUE,
    value_ends=(VALUE_END,),
    value_newline=False,
)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``k2-horizon`` definition for ``options``."""
    calls: Parser | None = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, lambda spec: xml_tool_call(spec, MARKERS))
        body = call + zero_or_more(gap() + call) if options.parallel_tool_calls else call
        section = block(trigger_rule("tool-calls", SECTION + gap() + body + gap() + SECTION_END))
        calls = section if options.calls_forced else optional(section)
    layout = standard_layout(options, style=None, tool_starts=[SECTION], calls=calls)
    lead = phrase_reasoning(options, OPENERS, CLOSERS)
    return FormatDefinition(
        parser=layout if lead is None else lead + layout,
        triggers=phrase_triggers(options, OPENERS, CLOSERS, [SECTION]),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
        tool_name_pattern=r"<ifm\|tool_call>\s*([\w.-]+)",
    )
