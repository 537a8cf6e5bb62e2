"""Mistral tool calls, two generations.

``mistral-nemo`` (Mistral Nemo, Small 3.1 and older): one JSON array after ``[TOOL_CALLS]``, ids of 9
alphanumerics after the arguments::

    [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]

``magistral`` (Magistral Small/Medium 1.x): reasoning in ``[THINK]…[/THINK]``, then Mistral Nemo calls::

    [THINK]…[/THINK][TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]

``ministral-3`` (Ministral 3, Magistral/Mistral Small 3.2+, Devstral): every call prefixed by ``[TOOL_CALLS]``,
an optional ``[CALL_ID]`` before ``[ARGS]`` (``[ARGS]`` itself is optional, as in mistral-common v11
outputs), reasoning in ``[THINK]…[/THINK]``::

    [THINK]…[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}
"""

from __future__ import annotations

from peg import Parser, chars, choice, literal, optional, peek, rule, schema, space, trigger_rule, zero_or_more
from peg import json as json_value

from ..builder import ToolSpec, json_tool_call, tool, tool_args, tool_choice_of, tool_id, tool_name
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, repeat_calls, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build_magistral", "build_ministral3", "build_nemo"]

TOOL_CALLS, ARGS, CALL_ID = "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"
THINK = ReasoningStyle("[THINK]", "[/THINK]")
NEMO_ORDERS = (("name", "arguments", "id"), ("name", "arguments"), ("arguments", "name", "id"), ("arguments", "name"))


def _nemo_call(spec: ToolSpec) -> Parser:
    return json_tool_call(spec, id_key="id", id_value=chars("[a-zA-Z0-9]", 9, 9), orders=NEMO_ORDERS)


def build_nemo(options: FormatOptions) -> FormatDefinition:
    """``[TOOL_CALLS][{…}, …]`` with model-written ids after the arguments."""
    return _nemo_layout(options, None)


def build_magistral(options: FormatOptions) -> FormatDefinition:
    """``[THINK]…[/THINK]`` reasoning, then Mistral Nemo's ``[TOOL_CALLS][{…}, …]``."""
    return _nemo_layout(options, THINK)


def _nemo_layout(options: FormatOptions, style: ReasoningStyle | None) -> FormatDefinition:
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, _nemo_call)
        items = call + _more(call) if options.parallel_tool_calls else call
        calls = _section(options, literal(TOOL_CALLS) << "[" << items << "]")
    think = () if style is None else (style.open, style.close)
    return FormatDefinition(
        parser=standard_layout(options, style=style, tool_starts=[TOOL_CALLS], calls=calls),
        triggers=() if style is None else _triggers(options, style, [TOOL_CALLS]),
        preserved_tokens=(*think, TOOL_CALLS),
        id_position="after_args",
        content_prefix=content_prefix(options, style),
    )


def _more(call: Parser) -> Parser:
    return zero_or_more(space() + "," << call)


def _section(options: FormatOptions, section: Parser) -> Parser:
    rule_ = trigger_rule("tool-calls", section)
    return rule_ if options.calls_forced else optional(rule_)


def _ministral_call(spec: ToolSpec) -> Parser:
    # What follows the name ([CALL_ID], [ARGS] or the JSON object) always starts with "[" or "{": implied.
    name = tool_name(spec.name, peek(choice("[", "{"), implied=True))
    # A run of id characters at the end of a partial input needs more input: the atomic id waits for its end.
    call_id = optional(CALL_ID + tool_id(chars("[a-zA-Z0-9]", 1, 64)))
    args = tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))
    return rule(spec.rule, tool(name + call_id + optional(ARGS) + args))


def build_ministral3(options: FormatOptions) -> FormatDefinition:
    """``[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`` per call, ``[THINK]`` reasoning."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, _ministral_call)
        calls = repeat_calls(options, TOOL_CALLS + call)
    return FormatDefinition(
        parser=standard_layout(options, style=THINK, tool_starts=[TOOL_CALLS], calls=calls),
        triggers=_triggers(options, THINK, [TOOL_CALLS]),
        preserved_tokens=("[THINK]", "[/THINK]", TOOL_CALLS, ARGS, CALL_ID),
        id_position="before_args",
        content_prefix=content_prefix(options, THINK),
    )
