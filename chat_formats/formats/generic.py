"""The generic fallback (``generic``): the whole reply is one JSON object, as the system prompt asks::

    {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1"}]}
    {"tool_call": {"name": "get_weather", "arguments": {"city": "Paris"}}}
    {"response": "The answer."}

``tool_calls`` (a list, ids optional) with ``parallel_tool_calls``, else ``tool_call`` (one call);
``response`` (a string, or any JSON value kept as its JSON text) is the content, not offered when a call is
forced. The grammar constrains the whole reply (it is not lazy). Without tools (or with ``tool_choice="none"``)
the reply is plain content.
"""

from __future__ import annotations

from peg import Parser, choice, end, json_string_content, literal, rest, zero_or_more
from peg import json as json_value

from ..builder import (
    ToolSpec,
    block,
    content,
    content_json_string,
    gap,
    json_seq,
    json_tool_call,
    json_ws,
    tool_choice_of,
)
from ._layout import JSON_NAME_PATTERN, FormatDefinition, FormatOptions

__all__ = ["build"]

ORDERS = (("name", "arguments", "id"), ("name", "arguments"), ("id", "name", "arguments"), ("arguments", "name"))


def _call(spec: ToolSpec) -> Parser:
    return json_tool_call(spec, id_key="id", orders=ORDERS)


def _member(key: str, value: Parser) -> Parser:
    """``{"key": value}`` with JSON whitespace."""
    return json_seq("{", f'"{key}"', ":", value, "}")


def build(options: FormatOptions) -> FormatDefinition:
    """The ``generic`` definition for ``options``."""
    if not options.calls_enabled:
        return FormatDefinition(parser=content(rest()) + end(), lazy=False)
    call = tool_choice_of(options.active_tools, _call)
    if options.parallel_tool_calls:
        calls = _member("tool_calls", json_seq("[", call + zero_or_more(json_ws() + json_seq(",", call)), "]"))
    else:
        calls = _member("tool_call", call)
    text = choice(literal('"') + content_json_string(json_string_content()) + '"', content(json_value()))
    reply = block(calls) if options.calls_forced else choice(block(calls), block(_member("response", text)))
    return FormatDefinition(
        parser=gap() + reply + gap() + end(), id_position="after_args", lazy=False, tool_name_pattern=JSON_NAME_PATTERN
    )
