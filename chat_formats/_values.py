# cython: annotation_typing=False
"""The JSON text of a tool argument's value, as the mapper writes it into a call's ``arguments``.

XML-style formats write each argument's value in the clear; the mapper turns a complete value into JSON text by
its kind: a value written as JSON is typed by the tool's schema (:func:`typed_value`), a Python literal is read
as Python (:func:`python_value`), a value in a format's own syntax goes through that format's converter
(:func:`converted_value`). A value that cannot be read is kept as a JSON string and a warning names where.
:func:`json_string_text` reads the inside of a JSON string a model is still writing. Each function costs
O(length of the value).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from peg import AstNode

from .builder import TOOL_ARG_CONVERTED_VALUE, VALUE_CONVERTERS, python_literal_json

__all__ = ["converted_value", "encode", "json_string_text", "json_text", "python_value", "typed_value"]

encode = json.encoder.encode_basestring  # json.dumps of a str with ensure_ascii=False, without the dispatch
# json.dumps(value, ensure_ascii=False) without building an encoder per call (json.dumps makes a new one for any
# argument that is not a default: ~8 µs of the ~12 a closed typed value cost); same options, same text.
_dumps = json.JSONEncoder(ensure_ascii=False).encode
_decode = json.JSONDecoder().raw_decode  # json.loads' decoder (same options), without the per-call dispatch


def typed_value(raw: str, prop: Any, where: str, warnings: list[str]) -> str:
    """The JSON text of a complete XML-style value written as JSON, typed by its schema ``prop``."""
    text = raw.strip()
    if text.isascii() and text.isdigit() and (text[0] != "0" or len(text) == 1):
        # A non-negative integer as JSON writes it (the common small value): its own text, without decoding.
        if (type(prop) is dict or isinstance(prop, Mapping)) and prop.get("type") == "string":
            return encode(raw)
        return text
    try:
        # json.loads(text) without its wrapper's checks: ``text`` has no white space around it to skip.
        value, end = _decode(text)
        if end != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
    except json.JSONDecodeError:
        warnings.append(f"{where}: value {text[:40]!r} is not JSON for its schema; kept as a string")
        return encode(raw)
    if (type(prop) is dict or isinstance(prop, Mapping)) and prop.get("type") == "string" and type(value) is not str:
        return encode(raw)
    return json_text(value)


def json_text(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``: strings, integers, booleans and null directly (the encoder's
    set-up costs ~5 µs per call), anything else through the encoder."""
    kind = type(value)
    if kind is str:
        return encode(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    return _dumps(value)


def python_value(raw: str, where: str, warnings: list[str]) -> str:
    """The JSON text of a complete Python-literal value (kept as a string, with a warning, if it is none)."""
    try:
        return python_literal_json(raw)
    except ValueError:
        warnings.append(f"{where}: value {raw.strip()[:40]!r} is not a Python literal; kept as a string")
        return encode(raw)


def converted_value(node: AstNode, where: str, warnings: list[str]) -> str:
    """The JSON text of a complete value in a format's own syntax (kept as a string, with a warning, if unread)."""
    convert = VALUE_CONVERTERS[node.tag[len(TOOL_ARG_CONVERTED_VALUE) :]]
    try:
        return convert(node.text)
    except ValueError:
        warnings.append(f"{where}: value {node.text.strip()[:40]!r} could not be read; kept as a string")
        return encode(node.text)


_HALF_PAIR = re.compile(r"(\\+)u[dD][89abAB][0-9a-fA-F]{2}$")


def json_string_text(escaped: str) -> str:
    """The text of the inside of a JSON string (a prefix: a trailing escaped high surrogate is left out)."""
    m = _HALF_PAIR.search(escaped)
    if m and len(m.group(1)) % 2:  # an odd run of backslashes: the last one starts the escape
        escaped = escaped[:-6]
    return str(json.loads('"' + escaped + '"'))
