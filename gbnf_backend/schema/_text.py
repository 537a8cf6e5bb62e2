"""GBNF text helpers for the schema converter: literals, character classes and JSON string encodings.

A *charset* is a sorted tuple of disjoint, non-adjacent inclusive code-point ranges ``((lo, hi), ...)``.
The converter reasons about *decoded* characters (what ``json.loads`` returns) while the grammar matches
the *encoded* JSON text, so :func:`json_char_expr` turns a charset into every JSON spelling of its members:
the raw character when JSON allows it raw, the short escapes (``\\n``, ``\\"``, ``\\/`` …) and ``\\uXXXX``
escapes (hex digits in either case, astral characters as surrogate pairs). Lone surrogate escapes are never
produced: they would make the length of a string ambiguous (one pair or two lone halves).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from .._gbnf_text import ANY_CHAR
from .._gbnf_text import gbnf_class as print_class
from .._gbnf_text import gbnf_literal as print_literal

__all__ = [
    "ANY",
    "Charset",
    "charset",
    "complement",
    "gbnf_class",
    "gbnf_literal",
    "intersect",
    "json_char_expr",
    "json_string_literal",
    "subtract",
    "union",
]

#: Printable ASCII but the quote and the backslash (JSON and GBNF literals write these as themselves).
_PLAIN = re.compile(r"[ !#-\[\]-~]*")
Charset = tuple[tuple[int, int], ...]
MAX_CP = 0x10FFFF
ANY: Charset = ((0, MAX_CP),)

# Characters JSON forbids raw inside strings: the quote, the backslash and C0 controls.
_MUST_ESCAPE: Charset = ((0x00, 0x1F), (0x22, 0x22), (0x5C, 0x5C))
_SHORT_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SURROGATES: Charset = ((0xD800, 0xDFFF),)


def charset(ranges: Iterable[tuple[int, int]]) -> Charset:
    """Return the normalised charset of ``ranges`` (sorted, merged); cost O(n log n)."""
    items = sorted((lo, hi) for lo, hi in ranges if lo <= hi)
    out: list[tuple[int, int]] = []
    for lo, hi in items:
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def union(*sets: Charset) -> Charset:
    """Return the union of charsets."""
    return charset(r for s in sets for r in s)


def complement(cs: Charset) -> Charset:
    """Return every code point not in ``cs``."""
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in cs:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CP:
        out.append((nxt, MAX_CP))
    return tuple(out)


def intersect(a: Charset, b: Charset) -> Charset:
    """Return the code points in both ``a`` and ``b``; cost O(len(a) + len(b))."""
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def subtract(a: Charset, b: Charset) -> Charset:
    """Return the code points of ``a`` not in ``b``."""
    return intersect(a, complement(b))


def gbnf_literal(text: str) -> str:
    """Return ``text`` as a GBNF string literal (see :mod:`._gbnf_text`); O(len(text))."""
    return print_literal(text)


def gbnf_class(cs: Charset) -> str:
    """Return a GBNF character class for a non-empty charset, negated when that is shorter."""
    if not cs:
        raise ValueError("empty charset has no class")
    neg = complement(cs)
    use_neg = len(neg) < len(cs)
    body_set = neg if use_neg else cs
    if use_neg and not body_set:
        return ANY_CHAR
    return print_class(body_set, negated=use_neg)


def _alts(parts: Sequence[str]) -> str:
    """Join alternatives; parenthesised when there are several."""
    if len(parts) == 1:
        return parts[0]
    return "(" + " | ".join(parts) + ")"


@lru_cache(maxsize=512)
def _hex_digit_class(lo: int, hi: int) -> str:
    """A class matching hex digits with values lo..hi, letters in either case."""
    ranges: list[tuple[int, int]] = []
    if lo <= 9:
        ranges.append((0x30 + lo, 0x30 + min(hi, 9)))
    if hi >= 10:
        a, b = max(lo, 10) - 10, hi - 10
        ranges.append((0x61 + a, 0x61 + b))
        ranges.append((0x41 + a, 0x41 + b))
    return gbnf_class(charset(ranges))


@lru_cache(maxsize=4096)
def hex_range_expr(lo: int, hi: int, width: int = 4) -> str:
    """Return an expression matching the ``width``-digit hex spellings of lo..hi (any letter case).

    Cost: O(width) alternatives, by the usual digit-range decomposition.
    """
    if width == 0:
        return ""
    top = 16 ** (width - 1)
    dlo, rlo = divmod(lo, top)
    dhi, rhi = divmod(hi, top)
    if width == 1:
        return _hex_digit_class(lo, hi)
    full = f"{_hex_digit_class(0, 15)}{{{width - 1}}}" if width > 2 else _hex_digit_class(0, 15)
    if dlo == dhi:
        return f"{_hex_digit_class(dlo, dlo)} {hex_range_expr(rlo, rhi, width - 1)}"
    parts: list[str] = []
    start, end = dlo, dhi
    if rlo != 0:
        parts.append(f"{_hex_digit_class(dlo, dlo)} {hex_range_expr(rlo, top - 1, width - 1)}")
        start = dlo + 1
    if rhi != top - 1:
        end = dhi - 1
    if start <= end:
        parts.append(f"{_hex_digit_class(start, end)} {full}")
    if rhi != top - 1:
        parts.append(f"{_hex_digit_class(dhi, dhi)} {hex_range_expr(0, rhi, width - 1)}")
    return _alts(parts)


def _astral_escapes(lo: int, hi: int) -> list[str]:
    """Surrogate-pair escape expressions for astral code points lo..hi (grouped by high surrogate)."""
    out: list[str] = []
    a, b = lo - 0x10000, hi - 0x10000
    ha, la = divmod(a, 0x400)
    hb, lb = divmod(b, 0x400)

    def pair(h1: int, h2: int, l1: int, l2: int) -> str:
        return f'"\\\\u" {hex_range_expr(0xD800 + h1, 0xD800 + h2)} "\\\\u" {hex_range_expr(0xDC00 + l1, 0xDC00 + l2)}'

    if ha == hb:
        return [pair(ha, ha, la, lb)]
    out.append(pair(ha, ha, la, 0x3FF))
    if ha + 1 <= hb - 1:
        out.append(pair(ha + 1, hb - 1, 0, 0x3FF))
    out.append(pair(hb, hb, 0, lb))
    return out


@lru_cache(maxsize=4096)
def json_char_expr(cs: Charset) -> str | None:
    """Return an expression matching one JSON string character whose decoded value is in ``cs``.

    Returns None when ``cs`` is empty. Cost: O(len(cs)) alternatives on first use; memoised (pure in ``cs``, and
    key automata ask for the same few sets thousands of times).
    """
    if not cs:
        return None
    parts: list[str] = []
    raw = subtract(cs, _MUST_ESCAPE)
    if raw:
        parts.append(gbnf_class(raw))
    shorts = "".join(k for k, v in _SHORT_ESCAPES.items() if intersect(cs, ((ord(v), ord(v)),)))
    if shorts:
        parts.append(f'"\\\\" {gbnf_class(charset((ord(c), ord(c)) for c in shorts))}')
    bmp = subtract(intersect(cs, ((0, 0xFFFF),)), _SURROGATES)
    if bmp:
        hexes = [hex_range_expr(lo, hi) for lo, hi in bmp]
        parts.append(f'"\\\\u" {_alts(hexes)}')
    for lo, hi in intersect(cs, ((0x10000, MAX_CP),)):
        parts.extend(_astral_escapes(lo, hi))
    return _alts(parts)


def _json_dumps_str(text: str, ascii_only: bool) -> str:
    import json

    return json.dumps(text, ensure_ascii=ascii_only)


def json_string_literal(text: str) -> str:
    """Return an expression for the JSON string ``text`` (with quotes).

    Accepts the two canonical spellings (``json.dumps`` with and without ``ensure_ascii``); other valid
    spellings (``\\u0061`` for ``a``) are not accepted, which only narrows the language.
    """
    if _PLAIN.fullmatch(text):  # printable ASCII without quote or backslash: one spelling, written as is
        return '"\\"' + text + '\\""'
    forms = dict.fromkeys((_json_dumps_str(text, False), _json_dumps_str(text, True)))
    return _alts([gbnf_literal(f) for f in forms])
