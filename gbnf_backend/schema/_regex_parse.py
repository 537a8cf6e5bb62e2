"""Parsing the ECMA-262 pattern subset of JSON Schema into :class:`RegexNode` trees (see :mod:`.regex_gbnf`).

The parser is a recursive descent over the pattern (depth capped), with character classes as code-point
sets; nested repetitions are merged when exact and refused beyond :data:`MAX_NESTED_REPETITION`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..errors import PegchatError
from ._text import Charset, charset, complement, union

__all__ = ["MAX_COUNT", "MAX_NESTED_REPETITION", "RegexError", "RegexNode", "parse_regex"]


class RegexError(PegchatError, ValueError):
    """A pattern is malformed or uses a construct with no exact GBNF form; ``position`` is its offset.

    ``invalid`` is True when the pattern is not a valid ECMA-262 (``u`` flag) regular expression at all (a
    schema using it is invalid), False when it is valid but not supported (lookarounds, back-references,
    ``\\p{...}``, repetition bounds beyond the limits).
    """

    def __init__(self, message: str, pattern: str, position: int, *, invalid: bool = True) -> None:
        self.reason = message
        self.pattern = pattern
        self.position = position
        self.invalid = invalid
        super().__init__(f"{message} at position {position} of pattern {pattern!r}")


@dataclass(frozen=True)
class RegexNode:
    """One node of a parsed pattern.

    ``kind`` is ``set`` (``cs``), ``seq``/``alt`` (``items``), ``rep`` (``items[0]`` repeated ``lo``..``hi``
    times, ``hi`` None = unbounded), ``bol`` or ``eol``. ``pos`` is the source offset (for errors).
    """

    kind: str
    pos: int
    cs: Charset = ()
    items: tuple[RegexNode, ...] = ()
    lo: int = 0
    hi: int | None = 0


_DIGIT = charset([(0x30, 0x39)])
_WORD = charset([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
_SPACE = charset(
    [
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ]
)
_LINE_TERMINATORS = charset([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
_DOT = complement(_LINE_TERMINATORS)
_CLASS_ESCAPES = {
    "d": _DIGIT,
    "D": complement(_DIGIT),
    "w": _WORD,
    "W": complement(_WORD),
    "s": _SPACE,
    "S": complement(_SPACE),
}
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
# Nesting cap: deeper patterns are refused rather than risking Python's recursion limit.
_MAX_DEPTH = 200
_ASCII_DIGITS = "0123456789"
_HEX_DIGITS = "0123456789abcdefABCDEF"
#: Largest product of the upper bounds of bounded repetitions nested inside one another (after merging what
#: can be merged exactly). Each level multiplies the parse stacks an ambiguous item can create; helper rules
#: hide the nesting from the GBNF parser's own check, so the translator applies the same limit.
MAX_NESTED_REPETITION = 10_000
#: Largest repetition bound a pattern, ``maxLength`` or ``maxItems`` may use (larger ones are refused).
MAX_COUNT = 10**15


class _Parser:
    """Recursive-descent parser over one pattern; each method consumes input and returns a node."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.depth = 0

    def error(self, message: str, pos: int | None = None) -> RegexError:
        """A syntax error: the pattern is not a valid regular expression."""
        return RegexError(message, self.p, self.i if pos is None else pos)

    def unsupported(self, message: str, pos: int | None = None) -> RegexError:
        """A valid construct this translator does not support."""
        return RegexError(message, self.p, self.i if pos is None else pos, invalid=False)

    def peek(self) -> str:
        return self.p[self.i] if self.i < len(self.p) else ""

    def parse(self) -> RegexNode:
        node = self.alternation()
        if self.i < len(self.p):
            raise self.error("unbalanced ')'")
        return node

    def alternation(self) -> RegexNode:
        start = self.i
        branches = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.sequence())
        return branches[0] if len(branches) == 1 else RegexNode("alt", start, items=tuple(branches))

    def sequence(self) -> RegexNode:
        start = self.i
        items: list[RegexNode] = []
        while self.i < len(self.p) and self.peek() not in "|)":
            atom = self.atom()
            items.append(self.quantified(atom))
        return items[0] if len(items) == 1 else RegexNode("seq", start, items=tuple(items))

    def quantified(self, atom: RegexNode) -> RegexNode:
        c = self.peek()
        start = self.i
        if c in ("*", "+", "?"):
            self.i += 1
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        elif c == "{" and (bounds := self._braces()) is not None:
            lo, hi = bounds
        else:
            return atom
        if atom.kind in ("bol", "eol"):
            raise self.error("quantifier after an anchor", start)
        if self.peek() == "?":  # lazy: same language
            self.i += 1
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self._looks_like_braces()):
            raise self.error("nothing to repeat")
        if atom.kind == "rep":
            merged = _merge_repetitions(atom, lo, hi, start)
            if merged is not None:
                return merged
        node = RegexNode("rep", start, items=(atom,), lo=lo, hi=hi)
        inner_weight = _nesting_weight(atom)
        if inner_weight > 1 and hi is not None and inner_weight * hi > MAX_NESTED_REPETITION:
            raise self.unsupported(
                f"nested repetitions multiply to more than {MAX_NESTED_REPETITION} (an ambiguous grammar)", start
            )
        return node

    def _looks_like_braces(self) -> bool:
        save = self.i
        ok = self._braces() is not None
        self.i = save
        return ok

    def _braces(self) -> tuple[int, int | None] | None:
        """Parse ``{m}``, ``{m,}``, ``{m,n}`` at the cursor; None (cursor unchanged) if it is not one."""
        j = self.i + 1
        k = j
        while k < len(self.p) and self.p[k] in _ASCII_DIGITS:
            k += 1
        if k == j:
            return None
        lo = int(self.p[j:k])
        hi: int | None = lo
        if k < len(self.p) and self.p[k] == ",":
            k += 1
            m = k
            while k < len(self.p) and self.p[k] in _ASCII_DIGITS:
                k += 1
            hi = int(self.p[m:k]) if k > m else None
        if k >= len(self.p) or self.p[k] != "}":
            return None
        if hi is not None and hi < lo:
            raise self.error("numbers out of order in {} quantifier")
        if max(lo, hi or 0) > MAX_COUNT:
            raise self.unsupported(f"repetition bound above {MAX_COUNT}")
        self.i = k + 1
        return lo, hi

    def atom(self) -> RegexNode:
        start = self.i
        c = self.p[self.i]
        if c == "(":
            return self.group()
        if c == "[":
            return RegexNode("set", start, cs=self.char_class())
        if c == ".":
            self.i += 1
            return RegexNode("set", start, cs=_DOT)
        if c == "^":
            self.i += 1
            return RegexNode("bol", start)
        if c == "$":
            self.i += 1
            return RegexNode("eol", start)
        if c == "\\":
            return RegexNode("set", start, cs=self.escape(in_class=False))
        if c in "*+?":
            raise self.error("nothing to repeat")
        if c == "{" and self._looks_like_braces():
            raise self.error("nothing to repeat")
        self.i += 1
        return RegexNode("set", start, cs=((ord(c), ord(c)),))

    def group(self) -> RegexNode:
        start = self.i
        self.i += 1
        if self.p.startswith("?:", self.i):
            self.i += 2
        elif self.p.startswith("?<", self.i) and not self.p.startswith(("?<=", "?<!"), self.i):
            end = self.p.find(">", self.i)
            if end < 0:
                raise self.error("unterminated group name")
            self.i = end + 1
        elif self.peek() == "?":
            raise self.unsupported("lookaround or group flags are not supported", start)
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise self.unsupported("groups nested too deeply")
        inner = self.alternation()
        self.depth -= 1
        if self.peek() != ")":
            raise self.error("missing ')'", start)
        self.i += 1
        return inner if inner.kind != "seq" or inner.items else RegexNode("seq", start)

    def escape(self, *, in_class: bool) -> Charset:
        """Parse an escape at the cursor (a backslash) and return the charset it denotes."""
        start = self.i
        self.i += 1
        if self.i >= len(self.p):
            raise self.error("pattern ends with a backslash", start)
        c = self.p[self.i]
        self.i += 1
        if c in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[c]
        if c in _CONTROL_ESCAPES:
            return _single(_CONTROL_ESCAPES[c])
        if c == "b":
            if in_class:
                return _single(0x08)
            raise self.unsupported("word boundary \\b is not supported", start)
        if c == "B":
            raise self.unsupported("word boundary \\B is not supported", start)
        if c == "0" and self.peek() not in _ASCII_DIGITS:
            return _single(0)
        if c in _ASCII_DIGITS:
            raise self.unsupported("back-references are not supported", start)
        if c == "c" and self.peek().isalpha():
            self.i += 1
            return _single(ord(self.p[self.i - 1]) % 32)
        if c == "x":
            return _single(self._hex(2, start))
        if c == "u":
            if self.peek() == "{":
                end = self.p.find("}", self.i)
                if end < 0:
                    raise self.error("unterminated \\u{...}", start)
                digits = self.p[self.i + 1 : end]
                if not digits or any(d not in _HEX_DIGITS for d in digits):
                    raise self.error("bad \\u{...} escape", start)
                cp = int(digits, 16)
                if cp > 0x10FFFF:
                    raise self.error("\\u{...} escape above U+10FFFF", start)
                self.i = end + 1
                return _single(cp)
            cp = self._hex(4, start)
            if 0xD800 <= cp <= 0xDBFF and self.p.startswith("\\u", self.i):
                # A surrogate pair spells one astral character (ECMA-262 with the u flag, which JSON Schema
                # patterns follow; JSON-escaped patterns spell astral characters this way).
                low = self.p[self.i + 2 : self.i + 6]
                if len(low) == 4 and all(d in _HEX_DIGITS for d in low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
                    self.i += 6
                    return _single(0x10000 + ((cp - 0xD800) << 10) + (int(low, 16) - 0xDC00))
            return _single(cp)
        if c in "pPk":
            raise self.unsupported(f"\\{c} escapes are not supported", start)
        if c.isalnum():
            raise self.error(f"unknown escape \\{c}", start)
        return _single(ord(c))

    def _hex(self, width: int, start: int) -> int:
        digits = self.p[self.i : self.i + width]
        if len(digits) != width or any(d not in _HEX_DIGITS for d in digits):
            raise self.error("bad hex escape", start)
        self.i += width
        return int(digits, 16)

    def char_class(self) -> Charset:
        start = self.i
        self.i += 1
        negate = self.peek() == "^"
        if negate:
            self.i += 1
        ranges: list[Charset] = []
        first = True
        while True:
            if self.i >= len(self.p):
                raise self.error("unterminated character class", start)
            if self.peek() == "]" and not first:
                self.i += 1
                break
            if self.peek() == "]":  # ECMA: '[]' is the empty class, '[^]' any character
                self.i += 1
                break
            first = False
            lo_set = self.class_atom()
            if self.peek() == "-" and self.i + 1 < len(self.p) and self.p[self.i + 1] != "]":
                dash = self.i
                self.i += 1
                hi_set = self.class_atom()
                if len(lo_set) != 1 or len(hi_set) != 1 or lo_set[0][0] != lo_set[0][1] or hi_set[0][0] != hi_set[0][1]:
                    raise self.error("class escape used as a range bound", dash)
                if hi_set[0][0] < lo_set[0][0]:
                    raise self.error("range out of order in character class", dash)
                ranges.append(((lo_set[0][0], hi_set[0][0]),))
            else:
                ranges.append(lo_set)
        cs = union(*ranges) if ranges else ()
        return complement(cs) if negate else cs

    def class_atom(self) -> Charset:
        if self.peek() == "\\":
            return self.escape(in_class=True)
        c = self.p[self.i]
        self.i += 1
        return _single(ord(c))


def _single(cp: int) -> Charset:
    return ((cp, cp),)


def _merge_repetitions(inner: RegexNode, c: int, d: int | None, pos: int) -> RegexNode | None:
    """Return ``(Y{a,b}){c,d}`` as one repetition ``Y{lo,hi}`` when that is the same language, else None.

    The outer repetition matches Y^n for n in the union of [k·a, k·b] over k in c..d; when consecutive
    intervals touch (always when a ≤ 1), that union is the single interval [c·a, d·b]. Merging removes the
    ambiguity of nested repetitions (``((a?){0,99}){0,99}`` would otherwise split a run of ``a`` in ~10^4 ways).
    """
    a, b, y = inner.lo, inner.hi, inner.items[0]
    if d == c:
        if c == 0:
            return RegexNode("seq", pos)
        return RegexNode("rep", pos, items=(y,), lo=a * c, hi=None if b is None else b * c)
    # Consecutive intervals [k·a, k·b] and [(k+1)·a, (k+1)·b] touch iff a - 1 + k·(a - b) <= 0; the left
    # side decreases in k, so checking k = c suffices (with b unbounded, only k = 0 → 1 can leave a gap).
    if b is not None and a - 1 + c * (a - b) > 0:
        return None
    if b is None and c == 0 and a > 1:  # k = 0 gives only Y^0, k = 1 starts at Y^a: a gap (``(a{3,})?``)
        unbounded = RegexNode("rep", pos, items=(y,), lo=a, hi=None)
        return RegexNode("rep", pos, items=(unbounded,), lo=0, hi=1)  # all of it: (Y{a,})?
    lo = c * a
    hi: int | None
    if b == 0:
        hi = 0
    elif b is None or d is None:
        hi = None
    else:
        hi = b * d
    if max(lo, hi or 0) > MAX_COUNT:
        return None
    return RegexNode("rep", pos, items=(y,), lo=lo, hi=hi)


def _nesting_weight(node: RegexNode) -> int:
    """The product of the upper bounds of bounded repetitions nested in ``node`` (as the GBNF parser counts)."""
    if node.kind == "rep":
        inner = _nesting_weight(node.items[0])
        return inner * node.hi if node.hi is not None and node.hi > 1 else inner
    return max((_nesting_weight(i) for i in node.items), default=1)


def parse_regex(pattern: str) -> RegexNode:
    """Parse ``pattern``; returns the node tree (immutable) or raises :class:`RegexError`.

    Cost O(len(pattern)) on first use, then memoised: large schemas repeat one pattern in many objects.
    """
    parsed = _parse_cached(pattern)
    if isinstance(parsed, RegexError):
        raise RegexError(parsed.reason, parsed.pattern, parsed.position, invalid=parsed.invalid)
    return parsed


@lru_cache(maxsize=1024)
def _parse_cached(pattern: str) -> RegexNode | RegexError:
    try:
        return _Parser(pattern).parse()
    except RegexError as exc:
        return exc
