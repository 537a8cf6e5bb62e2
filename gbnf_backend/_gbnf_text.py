"""The one GBNF printer: how literals, character classes, quantifiers and rule lines are written.

Every GBNF text pegchat produces (``Grammar.to_gbnf``, the ``peg`` emitter, the JSON Schema and regex
converters, the chat formats' grammars) is written through these functions, so it reads the same in llama.cpp,
in our parser, in xgrammar and in llguidance without a second pass over the text:

* a character is written as itself when it is printable (ASCII or not: GBNF text is UTF-8), astral characters
  always (llguidance reads ``\\U0001F600`` as ``\\U1F600``, an invalid regex);
* ``"`` and ``\\`` in literals, ``]``, ``[``, ``\\``, ``-`` and ``^`` in classes, and ``\\n \\r \\t`` get their
  short escapes; other characters below U+0100 as ``\\xHH``; a few invisible ones above as ``\\uHHHH`` only when
  the first digit is not 0 (llguidance drops leading zeros: ``\\u00E9`` becomes ``\\uE9``); other invisible
  characters (U+0100–U+0FFF) as themselves; lone surrogates (never valid UTF-8) as ``\\uHHHH``;
* a hex digit right after a ``\\xHH`` escape is escaped too, because xgrammar reads every hex digit after ``\\x``
  (``"\\x01a"`` is one character to it);
* "any character" is the class :data:`ANY_CHAR` rather than ``.``, which xgrammar does not know.

>>> gbnf_literal('say "hi"\\n'), gbnf_class([(0x2D, 0x2D), (0x61, 0x7A)], negated=True)
('"say \\\\"hi\\\\"\\\\n"', '[^\\\\x2D\\\\x61-z]')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "ANY_CHAR",
    "EMPTY",
    "NO_CHAR",
    "gbnf_class",
    "gbnf_literal",
    "gbnf_quantifier",
    "gbnf_rules",
    "is_one_group",
]

MAX_CODE_POINT = 0x10FFFF
#: Every code point, as a class (the last one written as itself: see the module docstring).
ANY_CHAR = "[\\x00-" + chr(MAX_CODE_POINT) + "]"
#: The empty string.
EMPTY = '""'
#: No code point at all: the spelling of the empty language.
NO_CHAR = "[^\\x00-" + chr(MAX_CODE_POINT) + "]"

_LITERAL_ESCAPES = {0x22: '\\"', 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}
_CLASS_ESCAPES = {0x5D: "\\]", 0x5B: "\\[", 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}
_CLASS_ESCAPES |= {0x2D: "\\x2D", 0x5E: "\\x5E"}  # '-' and '^' mean something depending on where they stand
_HEX_DIGITS = frozenset(map(ord, "0123456789abcdefABCDEF"))
#: Printable ASCII but the quote and the backslash: characters every literal writes as themselves.
_PLAIN_ASCII = re.compile(r"[ !#-\[\]-~]*")


def _char(cp: int, escapes: dict[int, str], after_hex: bool) -> str:
    """One code point inside a literal or class; ``after_hex``: the text so far ends with a ``\\xHH`` escape."""
    special = escapes.get(cp)
    if special is not None:
        return special
    if 0x20 <= cp < 0x7F:
        return f"\\x{cp:02X}" if after_hex and cp in _HEX_DIGITS else chr(cp)
    if 0xD800 <= cp <= 0xDFFF:
        return f"\\u{cp:04X}"
    if cp >= 0x10000 or (cp >= 0xA0 and chr(cp).isprintable()):
        return chr(cp)
    if cp < 0x100:
        return f"\\x{cp:02X}"
    return f"\\u{cp:04X}" if cp >= 0x1000 else chr(cp)


def _chars(code_points: Iterable[int], escapes: dict[int, str]) -> str:
    out: list[str] = []
    after_hex = False
    for cp in code_points:
        piece = _char(cp, escapes, after_hex)
        out.append(piece)
        after_hex = piece.startswith("\\x")
    return "".join(out)


def gbnf_literal(text: str) -> str:
    """Return ``text`` as a GBNF string literal (quoted and escaped as the module docstring says); O(len(text))."""
    if _PLAIN_ASCII.fullmatch(text):  # the common case, written as is (what _chars would write, without its loop)
        return '"' + text + '"'
    return '"' + _chars(map(ord, text), _LITERAL_ESCAPES) + '"'


def gbnf_class(members: Iterable[tuple[int, int]], *, negated: bool = False, as_ranges: bool = False) -> str:
    """Return the GBNF class of ``members`` (inclusive code-point ranges, written in the order given).

    A range of one code point is written as that character, a longer one as ``lo-hi``; with ``as_ranges`` every
    member is written ``lo-hi`` unless it was given as ``(cp, -1)`` (one character): element-exact printing of
    parsed rules, where ``[9-9]`` and ``[9]`` are different elements. Refuses nothing: an empty positive class
    (``[]``) is the caller's business. Cost O(len(members)).
    """
    points: list[int] = []
    dashes: set[int] = set()  # indexes in ``points`` after which a range dash is written
    for lo, hi in members:
        if as_ranges and hi < 0:
            points.append(lo)
        elif hi > lo or as_ranges:
            dashes.add(len(points))
            points.extend((lo, hi))
        else:
            points.append(lo)
    out: list[str] = []
    after_hex = False
    for index, cp in enumerate(points):
        piece = _char(cp, _CLASS_ESCAPES, after_hex)
        out.append(piece)
        after_hex = piece.startswith("\\x")
        if index in dashes:
            out.append("-")
            after_hex = False
    return "[" + ("^" if negated else "") + "".join(out) + "]"


def gbnf_quantifier(lo: int, hi: int | None) -> str:
    """Return the suffix repeating an item ``lo`` to ``hi`` times (``None``: unbounded): ``?``, ``*``, ``+``,
    ``""`` for exactly once, else ``{lo}``, ``{lo,}`` or ``{lo,hi}``."""
    short = {(0, 1): "?", (0, None): "*", (1, None): "+", (1, 1): ""}.get((lo, hi))
    if short is not None:
        return short
    if hi is None:
        return f"{{{lo},}}"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"


def gbnf_rules(rules: Iterable[tuple[str, str]]) -> str:
    """Return the grammar text of ``(name, body)`` pairs, one ``name ::= body`` line each, in the order given.

    An empty body is written ``""`` (a bare ``::=`` followed by the next line would read that line as the body).
    """
    return "".join(f"{name} ::= {body or EMPTY}\n" for name, body in rules)


def is_one_group(expr: str) -> bool:
    """Whether ``expr`` is one parenthesised group ``( … )`` holding no literal or class (so no bracket inside a
    string can confuse the count). Cost O(len(expr))."""
    if not (expr.startswith("(") and expr.endswith(")")) or '"' in expr or "[" in expr:
        return False
    depth = 0
    for k, ch in enumerate(expr):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and k < len(expr) - 1:
            return False
    return True
