"""Semantic tags: what a region of a chat output means, for the mapper (``mapper.py``).

Pieces that must never stream half (tool names, ids, markers, argument names) are wrapped in :func:`peg.atomic`,
so no AST node exists for them until they are complete; values (reasoning, content, arguments) are not, so they
stream. Also the whitespace between structural markers (:func:`gap`) and between JSON tokens (:func:`json_ws`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from peg import Parser, atomic, chars, eps, literal, space, tag

__all__ = [
    "BLOCK",
    "CONTENT",
    "CONTENT_JSON_STRING",
    "GAP_MAX",
    "JSON_WS_MAX",
    "REASONING",
    "TOOL",
    "TOOL_ARG",
    "TOOL_ARGS",
    "TOOL_ARG_CLOSE",
    "TOOL_ARG_CONVERTED_VALUE",
    "TOOL_ARG_JSON_VALUE",
    "TOOL_ARG_NAME",
    "TOOL_ARG_OPEN",
    "TOOL_ARG_PYTHON_VALUE",
    "TOOL_ARG_STRING_VALUE",
    "TOOL_CLOSE",
    "TOOL_ID",
    "TOOL_NAME",
    "TOOL_OPEN",
    "VALUE_CONVERTERS",
    "TagMaker",
    "block",
    "content",
    "content_json_string",
    "gap",
    "implied_arg_name",
    "implied_tool_name",
    "json_seq",
    "json_ws",
    "reasoning",
    "tool",
    "tool_arg",
    "tool_arg_close",
    "tool_arg_converted_value",
    "tool_arg_json_value",
    "tool_arg_name",
    "tool_arg_open",
    "tool_arg_python_value",
    "tool_arg_string_value",
    "tool_args",
    "tool_close",
    "tool_id",
    "tool_name",
    "tool_open",
]

REASONING = "reasoning"
CONTENT = "content"
CONTENT_JSON_STRING = "content-json-string"
BLOCK = "block"
TOOL = "tool"
TOOL_OPEN = "tool-open"
TOOL_CLOSE = "tool-close"
TOOL_ID = "tool-id"
TOOL_NAME = "tool-name"
TOOL_ARGS = "tool-args"
TOOL_ARG = "tool-arg"
TOOL_ARG_OPEN = "tool-arg-open"
TOOL_ARG_CLOSE = "tool-arg-close"
TOOL_ARG_NAME = "tool-arg-name"
TOOL_ARG_STRING_VALUE = "tool-arg-string-value"
TOOL_ARG_JSON_VALUE = "tool-arg-json-value"
TOOL_ARG_PYTHON_VALUE = "tool-arg-python-value"
TOOL_ARG_CONVERTED_VALUE = "tool-arg-value:"

GAP_MAX = 8
"""The most whitespace :func:`gap` allows between structural markers (real outputs use one to three characters).
Bounded in the parser and the grammar alike, so a sampler driven by the grammar cannot loop on whitespace."""

JSON_WS_MAX = 24
"""The most whitespace :func:`json_ws` allows between the JSON tokens a format writes around the arguments."""


class TagMaker(Protocol):
    """A tag helper: ``(p, terminator=None) -> Parser``; a ``terminator`` is matched right after ``p``, inside the
    atomic for atomic helpers (so e.g. a name node exists only once the text after it proves it ended)."""

    def __call__(self, p: Parser | str, terminator: Parser | str | None = None) -> Parser: ...


def _tagger(name: str, doc: str, *, whole: bool = False) -> TagMaker:
    """The helper that tags its argument ``name`` (``whole``: atomic too, so it never streams half)."""

    def make(p: Parser | str, terminator: Parser | str | None = None) -> Parser:
        inner = tag(name, p) if terminator is None else tag(name, p) + terminator
        return atomic(inner) if whole else inner

    make.__name__ = make.__qualname__ = name.replace("-", "_")
    make.__doc__ = doc
    return make


reasoning = _tagger(REASONING, "Reasoning text (streams).")
content = _tagger(CONTENT, "Content text (streams).")
content_json_string = _tagger(
    CONTENT_JSON_STRING,
    "Content written as the inside of a JSON string (streams; the mapper decodes its escapes).",
)
block = _tagger(
    BLOCK,
    "A structural unit (e.g. a harmony message with its end marker): once complete, the text it covers counts "
    "as consumed even where no other tag covers it (used to decide what unparsed text to return as content).",
)
tool = _tagger(TOOL, "One tool call (its children give id, name and arguments).")
tool_open = _tagger(TOOL_OPEN, "The opening marker of a call (atomic).", whole=True)
tool_close = _tagger(
    TOOL_CLOSE, "The closing marker of a call (atomic): the call's arguments are complete.", whole=True
)
tool_id = _tagger(
    TOOL_ID,
    "A call id written by the model (atomic: never streamed half); ``terminator`` as for tool_name.",
    whole=True,
)
tool_name = _tagger(
    TOOL_NAME,
    "A tool name (atomic). ``terminator`` (e.g. the closing quote) is matched inside the atomic, so the name "
    "node exists only once the text after the name proves the name ended. A trailing run of ``chars`` needs no "
    "terminator: at the end of a partial input it needs more input, so the atomic holds it back.",
    whole=True,
)
tool_args = _tagger(TOOL_ARGS, "JSON arguments text (streams as a prefix of the final JSON).")
tool_arg = _tagger(TOOL_ARG, "One XML-style argument (name + value).")
tool_arg_open = _tagger(TOOL_ARG_OPEN, "The opening marker of an argument (atomic).", whole=True)
tool_arg_close = _tagger(
    TOOL_ARG_CLOSE, "The closing marker of an argument (atomic): the value is complete.", whole=True
)
tool_arg_name = _tagger(
    TOOL_ARG_NAME, "An argument name (a tag; put it inside tool_arg_open so it is atomic with its markers)."
)
tool_arg_string_value = _tagger(TOOL_ARG_STRING_VALUE, "A raw string value (streams; JSON-escaped by the mapper).")
tool_arg_json_value = _tagger(
    TOOL_ARG_JSON_VALUE, "A value written as JSON (held back by the mapper until complete, then typed by the schema)."
)

tool_arg_python_value = _tagger(
    TOOL_ARG_PYTHON_VALUE,
    "A value written as a Python literal (held back by the mapper until complete, then converted to JSON).",
)


VALUE_CONVERTERS: dict[str, Callable[[str], str]] = {}
"""Value syntaxes of their own (Gemma 4's ``{k:<|"|>v<|"|>}``): converter name → function from a complete value's
text to its JSON text (raising ``ValueError`` for text it cannot read). Filled by :func:`tool_arg_converted_value`."""


def tool_arg_converted_value(p: Parser, converter: str, convert: Callable[[str], str]) -> Parser:
    """A value in a syntax of the format's own (held back by the mapper until complete, then ``convert``-ed to
    JSON; kept as a string, with a warning, if ``convert`` raises ``ValueError``). Registers ``convert`` under
    ``converter`` (one name, one function)."""
    known = VALUE_CONVERTERS.setdefault(converter, convert)
    if known is not convert:
        raise ValueError(f"value converter {converter!r} is already registered to another function")
    return tag(TOOL_ARG_CONVERTED_VALUE + converter, p)


def implied_tool_name(name: str) -> Parser:
    """A tool name the output implies without spelling it (Functionary's ``<|python_tag|>`` means the ``python``
    tool): a zero-width node tagged ``tool-name=NAME``, read by the mapper like a :func:`tool_name` node."""
    return tag(f"{TOOL_NAME}={name}", eps())


def implied_arg_name(key: str) -> Parser:
    """An argument name the output implies (raw code after ``<|python_tag|>`` is the ``code`` argument): a
    zero-width node tagged ``tool-arg-name=KEY``, read by the mapper like a :func:`tool_arg_name` node."""
    return tag(f"{TOOL_ARG_NAME}={key}", eps())


def json_ws() -> Parser:
    """Whitespace between the JSON tokens a format writes around the arguments (call objects, call arrays):
    space, tab and newline, at most :data:`JSON_WS_MAX` (grammar ``[ \\t\\n]{0,24}``), so a sampler driven by the
    grammar cannot spend its budget on whitespace (nor write ``\\v``/``\\f``). The arguments themselves are
    constrained by the schema converter's bounded whitespace."""
    return chars("[ \\t\\n]", 0, JSON_WS_MAX)


def json_seq(*parts: Parser | str) -> Parser:
    """``parts`` in sequence with :func:`json_ws` between each two (``a << b`` with bounded JSON whitespace)."""
    if not parts:
        raise ValueError("json_seq: no parts")
    out = parts[0] if isinstance(parts[0], Parser) else literal(parts[0])
    for p in parts[1:]:
        out = out + json_ws() + p
    return out


def gap() -> Parser:
    """Whitespace between structural markers (calls, arguments, section markers): at most :data:`GAP_MAX`."""
    return space(GAP_MAX)
