"""Pythonic tool calls, shared by ``pythonic`` and ``lfm2``: a list of Python calls with keyword arguments::

    [get_weather(city="Paris", unit='c'), add(a=1, b=-2.5, exact=True)]

Values are Python literals — strings in either quote with Python escapes (no raw line breaks), numbers,
``True`` / ``False`` / ``None`` (JSON's ``true`` / ``false`` / ``null`` too), lists, tuples and dicts of them —
and become JSON arguments (``tool-arg-python-value``, converted by the mapper). The parser and the grammar are one
definition, so values are typed by the tool's schema in both: strings, integers, numbers, booleans, null,
enums and arrays of those are checked; other schemas accept any literal. Keyword arguments may come in any
order, each at most once, required ones enforced; a tool without declared properties accepts any keywords.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from peg import (
    Parser,
    chars,
    choice,
    json_number,
    literal,
    optional,
    peek,
    ref,
    rule,
    trigger_rule,
    zero_or_more,
)

from ..builder import (
    ToolSpec,
    block,
    gap,
    permuted_args,
    tool,
    tool_arg,
    tool_arg_close,
    tool_arg_name,
    tool_arg_open,
    tool_arg_python_value,
    tool_choice_of,
    tool_close,
    tool_name,
)
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, standard_layout, think_triggers

__all__ = ["build_layout", "python_value", "typed_value"]

ANY = "python-value"
IDENTIFIER = "[A-Za-z_]", "[A-Za-z0-9_]"


def _items(item: Parser, open_: str, close: str) -> Parser:
    """``open_ item (, item)* ,? close`` with free whitespace (an empty container too)."""
    more = zero_or_more(gap() + "," + gap() + item)
    return open_ + gap() + optional(item + more + optional(gap() + ",")) + gap() + close


def _string() -> Parser:
    def quoted(q: str) -> Parser:
        plain = chars(f"[^{q}\\x5C\\n\\r]", 0)  # \x5C: the backslash; no raw line breaks, as in Python
        return q + plain + zero_or_more("\\" + chars("[^\\n\\r]", 1, 1) + plain) + q

    return choice(quoted("'"), quoted('"'))


def _integer() -> Parser:
    return optional("-") + choice("0", chars("[1-9]", 1, 1) + chars("[0-9]", 0))


def _bool() -> Parser:
    return choice("True", "False", "true", "false")


def _none() -> Parser:
    return choice("None", "null")


@cache
def python_value() -> Parser:
    """The rule ``python-value``: any Python literal (see the module docstring). One shared rule object."""
    value = ref(ANY)
    pair = choice(_string(), json_number()) + gap() + ":" + gap() + value
    body = choice(
        _items(pair, "{", "}"),
        _items(value, "[", "]"),
        _items(value, "(", ")"),
        _string(),
        json_number(),
        _bool(),
        _none(),
    )
    return rule(ANY, body)


def _string_literals(text: str) -> list[str]:
    """``text`` as a Python string literal in double quotes and in single quotes."""
    double = json.dumps(text, ensure_ascii=False)
    single = "'" + double[1:-1].replace('\\"', '"').replace("'", "\\'") + "'"
    return [double, single]


def _constant(value: Any) -> Parser | None:
    if isinstance(value, str):
        return choice(*_string_literals(value))
    if value is None:
        return _none()
    if isinstance(value, bool):
        return choice(*(("True", "true") if value else ("False", "false")))
    if isinstance(value, int | float):
        return literal(json.dumps(value))
    return None


def typed_value(schema: Any) -> Parser:
    """A parser for a Python literal of the JSON Schema ``schema`` (any literal for what it cannot check)."""
    if not isinstance(schema, Mapping):
        return python_value()
    if "enum" in schema or "const" in schema:
        values = schema["enum"] if "enum" in schema else [schema["const"]]
        consts = [c for c in map(_constant, values) if c is not None]
        return choice(*consts) if consts and len(consts) == len(values) else python_value()
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(kinds, list) or not kinds:
        return python_value()
    simple = {"string": _string, "integer": _integer, "boolean": _bool, "null": _none, "number": json_number}
    alts: list[Parser] = []
    for kind in kinds:
        if kind in simple:
            alts.append(simple[kind]())
        elif kind == "array" and isinstance(schema.get("items"), Mapping):
            item = typed_value(schema["items"])
            alts.append(choice(_items(item, "[", "]"), _items(item, "(", ")")))
        else:
            return python_value()
    return choice(*alts)


def _arg(name: Parser, value: Parser) -> Parser:
    # An argument ends where "," or ")" follows; every argument is followed by one of them (implied).
    close = tool_arg_close(peek(gap() + choice(",", ")"), implied=True))
    return tool_arg(tool_arg_open(tool_arg_name(name) + gap() + "=") + gap() + tool_arg_python_value(value) + close)


def _call(spec: ToolSpec) -> Parser:
    if spec.properties:
        args = {k: _arg(literal(k), typed_value(spec.property_schema(k))) for k in spec.properties}
        body = permuted_args(spec, args, separator=",")
    else:
        keyword = _arg(chars(IDENTIFIER[0], 1, 1) + chars(IDENTIFIER[1], 0), python_value())
        body = optional(gap() + keyword + zero_or_more(gap() + "," + gap() + keyword))
    head = tool_name(spec.name, "(")
    return rule(spec.rule, tool(head + body + gap() + tool_close(")")))


def _call_list(options: FormatOptions) -> Parser:
    call = tool_choice_of(options.active_tools, _call)
    calls = call + zero_or_more(gap() + "," + gap() + call) if options.parallel_tool_calls else call
    return literal("[") + gap() + calls + gap() + "]"


def build_layout(
    options: FormatOptions, *, open_: str, close: str, style: ReasoningStyle | None, preserved: tuple[str, ...]
) -> FormatDefinition:
    """``reasoning? content calls end`` where the calls are a list of pythonic calls, wrapped in ``open_`` …
    ``close`` or bare (the closer optional). Content ends at ``open_`` or where a call list starts
    (``[get_weather(``), so a ``[`` in prose stays content."""
    starts = [open_, *(f"[{t.name}(" for t in options.active_tools)]
    calls = None
    if options.calls_enabled:
        listed = _call_list(options)
        section = trigger_rule("tool-calls", choice(open_ + gap() + listed + optional(gap() + close), listed))
        calls = block(section) if options.calls_forced else optional(block(section))
    return FormatDefinition(
        parser=standard_layout(options, style=style, tool_starts=starts, calls=calls),
        triggers=think_triggers(options, style, starts) if options.calls_enabled else (),
        preserved_tokens=preserved,
        content_prefix=content_prefix(options, style),
        tool_name_pattern=r"\[\s*([\w.-]+)\(",
    )
