"""GBNF text → rules (llama.cpp's grammar language, parsed without recursion limits).

The language: ``name ::= alternatives`` per rule; names are ``[A-Za-z0-9-]`` (we also accept ``_`` so that the
helper rules we generate, named ``base_N`` as llama.cpp does, print back and re-parse); literals ``"..."``;
classes ``[...]`` / ``[^...]`` with ranges; ``.``; groups ``( ... )``; alternation ``|``; repetition
``* + ? {m} {m,} {m,n}``; ``#`` comments; newlines are allowed inside groups and after ``|``; token references
``<[id]>`` and ``!<[id]>``.

Symbol ids are assigned as llama.cpp assigns them (first appearance, generated helpers when created), so the
encoding can be compared with llama.cpp's own test expectations. Repetitions are expanded the way llama.cpp does,
which is linear in the bounds: ``S{m,n}`` becomes ``m`` inline copies of ``S`` followed by a chain of ``n - m``
helper rules ``S'(k) ::= S S'(k-1) |``. Each chain is recorded (:class:`RepetitionChain`) so later stages can treat
its links as one counter instead of ``n`` unrelated rules.
"""

from __future__ import annotations

import re
from itertools import repeat

from ._elements import Element, ElementType, ParsedGrammar, RepetitionChain
from .errors import GrammarError

__all__ = [
    "MAX_ELEMENTS",
    "MAX_NESTED_REPETITION",
    "MAX_REPETITION_BOUND",
    "ParsedGrammar",
    "RepetitionChain",
    "parse_gbnf",
]

#: Largest ``m`` or ``n`` accepted in ``{m,n}``: each unit of a bound costs one helper rule.
MAX_REPETITION_BOUND = 100_000
#: Largest product of the upper bounds of bounded repetitions nested inside one another (``(x{0,99}){0,99}`` is
#: 9,801). Nested bounded repetitions of an ambiguous item multiply the number of live parse stacks, so this caps
#: the ambiguity a grammar can create rather than its text size.
MAX_NESTED_REPETITION = 10_000
#: Largest total number of elements after expansion, over all rules.
MAX_ELEMENTS = 4_000_000


class _E:
    """Element kinds as plain ints (equal to :class:`ElementType`'s): tuples of plain ints are left alone by the
    garbage collector, which matters for grammars with 10^5 helper rules."""

    END = int(ElementType.END)
    ALT = int(ElementType.ALT)
    RULE_REF = int(ElementType.RULE_REF)
    CHAR = int(ElementType.CHAR)
    CHAR_NOT = int(ElementType.CHAR_NOT)
    CHAR_RNG_UPPER = int(ElementType.CHAR_RNG_UPPER)
    CHAR_ALT = int(ElementType.CHAR_ALT)
    CHAR_ANY = int(ElementType.CHAR_ANY)
    TOKEN = int(ElementType.TOKEN)
    TOKEN_NOT = int(ElementType.TOKEN_NOT)


_CHAR = _E.CHAR
_REF = _E.RULE_REF
_ALT_ELEMENT: Element = (_E.ALT, 0)
_END_ELEMENT: Element = (_E.END, 0)
_HEX = "0123456789abcdefABCDEF"
_SIMPLE_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "\\": "\\", '"': '"', "[": "[", "]": "]"}


_NAME = re.compile(r"[A-Za-z0-9_-]+")
_SPACE = re.compile(r"(?:[ \t]+|#[^\r\n]*)*")
_SPACE_NEWLINES = re.compile(r"(?:[ \t\r\n]+|#[^\r\n]*)*")
#: A run of literal characters that need no decoding (no quote, backslash or line break).
_PLAIN_LITERAL = re.compile(r'[^"\\\r\n]+')
_DIGITS = re.compile(r"[0-9]+")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# Fast paths of the scanner: a reference, or a literal without escapes, with the spacing after it (``_NL``:
# line breaks allowed, inside groups).
_REF_ITEM = re.compile(r"([A-Za-z0-9_-]+)(?:[ \t]+|#[^\r\n]*)*")
_REF_ITEM_NL = re.compile(r"([A-Za-z0-9_-]+)(?:[ \t\r\n]+|#[^\r\n]*)*")
_LITERAL_ITEM = re.compile(r'"([^"\\\r\n]*)"(?:[ \t]+|#[^\r\n]*)*')
_LITERAL_ITEM_NL = re.compile(r'"([^"\\\r\n]*)"(?:[ \t\r\n]+|#[^\r\n]*)*')
# The fast path for a whole rule on one line made only of references, literals with simple escapes, '*' '+' '?'
# after them, and '|' (what the JSON Schema converter writes for most rules): the head, then the body checked by
# one match and read by one scan.
_FLAT_ITEM = r'(?:(?:[A-Za-z0-9_-]+|"[^"\\\r\n]*(?:\\[trn"\\\[\]][^"\\\r\n]*)*")[*+?]?|\|)'
_FLAT_RULE = re.compile(r"([A-Za-z0-9_-]+)[ \t]*::=[ \t]*((?:" + _FLAT_ITEM + r"[ \t]*)+)")
_FLAT_TOKEN = re.compile(r'(?:([A-Za-z0-9_-]+)|"([^"\\\r\n]*(?:\\[trn"\\\[\]][^"\\\r\n]*)*)")([*+?]?)|(\|)')
_SUFFIX_BOUNDS = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}
_ANY_SUFFIX = re.compile(r"[*+?]")  # (a quick test: may also be inside a literal)
_SIMPLE_ESCAPE = re.compile(r"\\(.)")


class _Frame:
    """One rule or group being parsed: its elements so far and the state of its current alternative."""

    __slots__ = ("elements", "last_start", "last_weight", "nested", "opened_at", "sequence_weight", "sid", "weight")

    def __init__(self, sid: int, nested: bool, opened_at: int) -> None:
        self.sid = sid
        self.nested = nested
        self.opened_at = opened_at
        self.elements: list[Element] = []
        self.weight = 1  # the largest repetition weight of its alternatives so far
        self.start_sequence()

    def start_sequence(self) -> None:
        self.last_start = len(self.elements)
        self.last_weight = 1
        self.sequence_weight = 1


class _Parser:
    """A scanner over the grammar text; methods return the new offset.

    References, escape-free literals and spacing are matched by compiled regular expressions (no per-character
    Python work); escapes, classes and operators are read character by character.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.out = ParsedGrammar(text=text)
        self.n = len(text)
        # Names that appear anywhere in the text: generated helper names must never collide with them.
        self._generated_counter = 0
        # Rules first referenced in a one-line rule: the span of that rule's body (see _locate_references).
        self._first_seen_in: dict[int, tuple[int, int]] = {}

    # ---- errors and small scanners ------------------------------------------------------------------------
    def fail(self, message: str, offset: int, rule: str | None = None) -> GrammarError:
        return GrammarError(message, text=self.text, offset=offset, rule=rule)

    def char_at(self, pos: int) -> str:
        return self.text[pos] if pos < self.n else ""

    def skip_space(self, pos: int, newline_ok: bool) -> int:
        """Return the offset after spaces, tabs, comments (and line breaks when ``newline_ok``) from ``pos``."""
        return (_SPACE_NEWLINES if newline_ok else _SPACE).match(self.text, pos).end()  # type: ignore[union-attr]

    def scan_name(self, pos: int) -> int:
        """Return the offset just past the rule name at ``pos``; raise if there is none."""
        match = _NAME.match(self.text, pos)
        if match is None:
            shown = repr(self.char_at(pos)) if pos < self.n else "end of input"
            raise self.fail(f"expecting a rule name, found {shown}", pos)
        return match.end()

    def scan_int(self, pos: int) -> tuple[int, int]:
        """Return ``(value, offset after it)`` for the decimal integer at ``pos``."""
        match = _DIGITS.match(self.text, pos)
        if match is None:
            raise self.fail("expecting an integer", pos)
        end = match.end()
        if end - pos > 9:
            raise self.fail(f"repetition bound too large (limit {MAX_REPETITION_BOUND})", pos)
        return int(self.text[pos:end]), end

    def scan_char(self, pos: int) -> tuple[int, int]:
        """Return ``(code point, new offset)`` for one possibly escaped character."""
        text = self.text
        if pos >= self.n:
            raise self.fail("unexpected end of input", pos)
        c = text[pos]
        if c != "\\":
            return ord(c), pos + 1
        esc = self.char_at(pos + 1)
        if esc in ("x", "u", "U"):
            size = {"x": 2, "u": 4, "U": 8}[esc]
            digits = text[pos + 2 : pos + 2 + size]
            if len(digits) != size or any(d not in _HEX for d in digits):
                raise self.fail(f"expecting {size} hex digits after \\{esc}", pos)
            value = int(digits, 16)
            if value > 0x10FFFF:
                raise self.fail(f"code point \\{esc}{digits} is beyond U+10FFFF", pos)
            return value, pos + 2 + size
        if esc in _SIMPLE_ESCAPES:
            return ord(_SIMPLE_ESCAPES[esc]), pos + 2
        if esc == "":
            raise self.fail("unexpected end of input after '\\'", pos)
        raise self.fail(f"unknown escape '\\{esc}'", pos)

    # ---- symbols ------------------------------------------------------------------------------------------
    def symbol_id(self, name: str, offset: int) -> int:
        ids = self.out.symbol_ids
        sid = ids.get(name)
        if sid is None:
            sid = len(ids)
            ids[name] = sid
            self.out.rules.append(None)
            self.out.offsets[sid] = offset
        return sid

    def generate_symbol(self, base: str, offset: int) -> int:
        ids = self.out.symbol_ids
        sid = len(ids)
        name = f"{base}_{sid}"
        while name in ids or name in self.reserved_names:
            self._generated_counter += 1
            name = f"{base}_{sid}_{self._generated_counter}"
        ids[name] = sid
        self.out.rules.append(None)
        self.out.offsets[sid] = offset
        self.out.generated.add(sid)
        return sid

    def add_rule(self, sid: int, elements: list[Element]) -> None:
        self.out.element_count += len(elements)
        if self.out.element_count > MAX_ELEMENTS:
            raise self.fail(f"grammar expands to more than {MAX_ELEMENTS} elements", self.out.offsets[sid])
        self.out.rules[sid] = elements

    # ---- grammar structure ----------------------------------------------------------------------------------
    def parse(self) -> ParsedGrammar:
        text = self.text
        self.reserved_names = _names_in(text)
        pos = self.skip_space(0, True)
        while pos < self.n:
            pos = self.parse_rule(pos)
        self._locate_references()
        return self.out

    def _locate_references(self) -> None:
        """Give each rule that is referenced but never defined, first seen in a one-line rule, the exact offset
        of that first reference (what the general path records), for the "undefined rule" error."""
        out = self.out
        names = {sid: name for name, sid in out.symbol_ids.items() if sid in self._first_seen_in}
        for sid, (start, end) in self._first_seen_in.items():
            if sid in out.defined:
                continue
            for item in _FLAT_TOKEN.finditer(self.text, start, end):
                if item.group(1) == names[sid]:
                    out.offsets[sid] = item.start()
                    break

    def parse_flat_rule(self, pos: int) -> int | None:
        """Parse the rule at ``pos`` if it is one line of references and literals (simple escapes only), each
        perhaps followed by ``*``, ``+`` or ``?``, and ``|`` (not ending in ``|``, which would continue on the
        next line); return the offset of the next rule, or None to leave the rule to the general path. Same
        elements, symbol ids, offsets and errors as the general path, without its per-item dispatch."""
        text = self.text
        rule = _FLAT_RULE.match(text, pos)
        if rule is None:
            return None
        start, end = rule.span(2)
        if end < self.n and text[end] not in "\r\n":
            return None
        # (name, literal, suffix, bar): a name or a literal (perhaps "") with its suffix, or a bar.
        tokens = _FLAT_TOKEN.findall(text, start, end)
        if tokens[-1][3]:
            return None
        suffix_at: list[int] = []
        if _ANY_SUFFIX.search(text, start, end) and any(suffix for _, _, suffix, _ in tokens):
            if any(suffix and not name and not literal for name, literal, suffix, _ in tokens):
                return None  # a repeated empty literal: the general path reports it
            if self.out.element_count + 4 * (end - start) + 64 > MAX_ELEMENTS:
                return None  # near the size limit: the general path reports where it is crossed
            suffix_at = [m.start(3) for m in _FLAT_TOKEN.finditer(text, start, end) if m.group(3)]
            suffix_at.reverse()
        name = rule.group(1)
        out = self.out
        ids = out.symbol_ids
        sid = ids.get(name)
        if sid is None:
            sid = self.symbol_id(name, pos)
        elif sid in out.defined:
            return None  # the general path reports the duplicate
        out.defined.add(sid)
        out.offsets[sid] = pos
        elements: list[Element] = []
        append = elements.append
        item_start = 0
        for ref_name, literal, suffix, bar in tokens:
            if suffix_at:
                item_start = len(elements)
            if ref_name:
                ref = ids.get(ref_name)
                if ref is None:
                    # First seen here: the offset of this reference matters only if the rule is never defined,
                    # so it is found then (see _locate_references); the rule's body stands in until then.
                    ref = self.symbol_id(ref_name, start)
                    self._first_seen_in[ref] = (start, end)
                append((_REF, ref))
            elif bar:
                append(_ALT_ELEMENT)
            elif len(literal) == 1:
                append((_CHAR, ord(literal)))
            elif literal:
                if "\\" in literal:
                    literal = _SIMPLE_ESCAPE.sub(_unescape, literal)
                elements.extend(zip(repeat(_CHAR), map(ord, literal)))
            if suffix:
                self.repeat(elements, item_start, _SUFFIX_BOUNDS[suffix], name, suffix_at.pop(), 1)
        append(_END_ELEMENT)
        self.add_rule(sid, elements)
        if end < self.n:
            end += 2 if text.startswith("\r\n", end) else 1
        return _SPACE_NEWLINES.match(text, end).end()  # type: ignore[union-attr]  # (always matches)

    def parse_rule(self, pos: int) -> int:
        fast = self.parse_flat_rule(pos)
        if fast is not None:
            return fast
        name_end = self.scan_name(pos)
        name = self.text[pos:name_end]
        sid = self.symbol_id(name, pos)
        if sid in self.out.defined:
            first = self.out.offsets[sid]
            from .errors import line_column

            line, column = line_column(self.text, first)
            raise self.fail(f"rule '{name}' is defined twice (first at {line}:{column})", pos, name)
        self.out.defined.add(sid)
        self.out.offsets[sid] = pos
        after = self.skip_space(name_end, False)
        if self.text[after : after + 3] != "::=":
            raise self.fail(f"expecting '::=' after rule name '{name}'", after, name)
        body = self.skip_space(after + 3, True)
        end, _weight = self.parse_alternates(body, name, sid, nested=False)
        c = self.char_at(end)
        if c == "\r":
            end += 2 if self.char_at(end + 1) == "\n" else 1
        elif c == "\n":
            end += 1
        elif c == ")":
            raise self.fail("unbalanced ')'", end, name)
        elif c:
            raise self.fail(f"unexpected {c!r}: expecting newline or end of rule", end, name)
        return self.skip_space(end, True)

    def parse_alternates(self, pos: int, rule_name: str, sid: int, nested: bool) -> tuple[int, int]:
        """Parse ``seq ('|' seq)*`` into rule ``sid``; return (offset, repetition weight).

        Groups are parsed with an explicit stack of frames, not recursion: nesting depth is limited by memory only
        (5,000 nested parentheses are fine).
        """
        frames = [_Frame(sid, nested, pos)]
        while True:
            frame = frames[-1]
            pos, group_at = self.parse_sequence(pos, rule_name, frame)
            if group_at is not None:  # an opening parenthesis: parse the group's alternatives first
                sub = self.generate_symbol(rule_name, group_at)
                frames.append(_Frame(sub, True, group_at))
                pos = self.skip_space(group_at + 1, True)
                continue
            frame.weight = max(frame.weight, frame.sequence_weight)
            if self.char_at(pos) == "|":
                frame.elements.append((_E.ALT, 0))
                frame.start_sequence()
                pos = self.skip_space(pos + 1, True)
                continue
            frame.elements.append((_E.END, 0))
            self.add_rule(frame.sid, frame.elements)
            frames.pop()
            if not frames:
                return pos, frame.weight
            if self.char_at(pos) != ")":
                raise self.fail("unbalanced '(': expecting ')'", frame.opened_at, rule_name)
            self.out.weights[frame.sid] = frame.weight
            parent = frames[-1]
            parent.last_start = len(parent.elements)
            parent.elements.append((_E.RULE_REF, frame.sid))
            parent.last_weight = frame.weight
            parent.sequence_weight = max(parent.sequence_weight, frame.weight)
            pos = self.skip_space(pos + 1, parent.nested)

    def parse_sequence(self, pos: int, rule_name: str, frame: _Frame) -> tuple[int, int | None]:
        """Parse (the rest of) one alternative into ``frame``; return ``(offset, None)`` at its end, or
        ``(offset, offset of '(')`` when a group opens (the caller parses it, then calls again)."""
        text = self.text
        ids = self.out.symbol_ids
        nested = frame.nested
        elements = frame.elements
        ref_item = _REF_ITEM_NL if nested else _REF_ITEM
        literal_item = _LITERAL_ITEM_NL if nested else _LITERAL_ITEM
        last_start = frame.last_start  # start of the last item, the operand of a following repetition
        last_weight = frame.last_weight  # repetition weight of the last item
        weight = frame.sequence_weight
        while pos < self.n:
            c = text[pos]
            if c in _NAME_CHARS:
                item = ref_item.match(text, pos)
                assert item is not None  # c is a name character
                name = item.group(1)
                ref = ids.get(name)
                if ref is None:
                    ref = self.symbol_id(name, pos)
                last_start = len(elements)
                elements.append((_REF, ref))
                last_weight = 1
                pos = item.end()
                continue
            if c == '"' and (item := literal_item.match(text, pos)) is not None:
                last_start = len(elements)
                elements.extend([(_CHAR, ord(ch)) for ch in item.group(1)])
                last_weight = 1
                pos = item.end()
                continue
            if c == '"':
                start = pos
                pos += 1
                last_start = len(elements)
                while True:
                    plain = _PLAIN_LITERAL.match(text, pos)
                    if plain is not None:
                        pos = plain.end()
                        elements.extend([(_CHAR, ord(ch)) for ch in plain.group()])
                    if pos >= self.n:
                        raise self.fail("unterminated literal", start, rule_name)
                    if text[pos] == '"':
                        break
                    if text[pos] in "\r\n":
                        raise self.fail("unterminated literal (newline inside)", start, rule_name)
                    value, pos = self.scan_char(pos)
                    elements.append((_CHAR, value))
                last_weight = 1
                pos = self.skip_space(pos + 1, nested)
            elif c == "[":
                start = pos
                pos += 1
                start_type = _E.CHAR
                if self.char_at(pos) == "^":
                    pos += 1
                    start_type = _E.CHAR_NOT
                last_start = len(elements)
                while True:
                    if pos >= self.n:
                        raise self.fail("unterminated character class", start, rule_name)
                    if text[pos] == "]":
                        break
                    if text[pos] in "\r\n":
                        raise self.fail("unterminated character class (newline inside)", start, rule_name)
                    value, pos = self.scan_char(pos)
                    kind = _E.CHAR_ALT if len(elements) > last_start else start_type
                    elements.append((kind, value))
                    if self.char_at(pos) == "-" and self.char_at(pos + 1) not in ("]", ""):
                        upper, pos = self.scan_char(pos + 1)
                        if upper < value:
                            raise self.fail("character range is out of order", pos - 1, rule_name)
                        elements.append((_E.CHAR_RNG_UPPER, upper))
                if len(elements) == last_start:
                    raise self.fail("empty character class", start, rule_name)
                last_weight = 1
                pos = self.skip_space(pos + 1, nested)
            elif c == "<" or (c == "!" and self.char_at(pos + 1) == "<"):
                kind = _E.TOKEN
                start = pos
                if c == "!":
                    kind = _E.TOKEN_NOT
                    pos += 1
                if text[pos : pos + 2] != "<[":
                    raise self.fail(
                        "token references must be written <[id]> (token text needs a vocabulary)", start, rule_name
                    )
                token_id, pos = self.scan_int(pos + 2)
                if text[pos : pos + 2] != "]>":
                    raise self.fail("expecting ']>' to close a token reference", pos, rule_name)
                last_start = len(elements)
                elements.append((kind, token_id))
                last_weight = 1
                pos = self.skip_space(pos + 2, nested)
            elif c == "(":
                frame.last_start, frame.last_weight, frame.sequence_weight = last_start, last_weight, weight
                return pos, pos
            elif c == ".":
                last_start = len(elements)
                elements.append((_E.CHAR_ANY, 0))
                last_weight = 1
                pos = self.skip_space(pos + 1, nested)
            elif c in "*+?":
                op_at = pos
                pos = self.skip_space(pos + 1, nested)
                bounds = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[c]
                last_weight = self.repeat(elements, last_start, bounds, rule_name, op_at, last_weight)
            elif c == "{":
                op_at = pos
                pos = self.skip_space(pos + 1, nested)
                if not self.char_at(pos).isdigit():
                    raise self.fail("expecting an integer after '{'", pos, rule_name)
                low, pos = self.scan_int(pos)
                pos = self.skip_space(pos, nested)
                high = low
                if self.char_at(pos) == ",":
                    pos = self.skip_space(pos + 1, nested)
                    high = -1
                    if self.char_at(pos).isdigit():
                        high, pos = self.scan_int(pos)
                        pos = self.skip_space(pos, nested)
                if self.char_at(pos) != "}":
                    raise self.fail("expecting '}' to close a repetition", pos, rule_name)
                if high != -1 and high < low:
                    raise self.fail(f"repetition {{{low},{high}}} has its maximum below its minimum", op_at, rule_name)
                if low > MAX_REPETITION_BOUND or high > MAX_REPETITION_BOUND:
                    raise self.fail(f"repetition bound above the limit of {MAX_REPETITION_BOUND}", op_at, rule_name)
                pos = self.skip_space(pos + 1, nested)
                last_weight = self.repeat(elements, last_start, (low, high), rule_name, op_at, last_weight)
            else:
                break
            if last_weight > weight:
                weight = last_weight
        frame.last_start, frame.last_weight, frame.sequence_weight = last_start, last_weight, weight
        return pos, None

    def repeat(
        self,
        elements: list[Element],
        last_start: int,
        bounds: tuple[int, int],
        rule_name: str,
        op_at: int,
        unit_weight: int,
    ) -> int:
        """Expand a repetition of ``elements[last_start:]`` in place; return the new item's weight."""
        if last_start == len(elements):
            raise self.fail("a repetition operator needs an item before it", op_at, rule_name)
        low, high = bounds
        unit = elements[last_start:]
        weight = unit_weight * (high if high > 1 else 1)
        if unit_weight > 1 and high > 1 and weight > MAX_NESTED_REPETITION:
            raise self.fail(
                f"nested bounded repetitions multiply to {weight}, above the limit of {MAX_NESTED_REPETITION}",
                op_at,
                rule_name,
            )
        if len(unit) * low > MAX_ELEMENTS:
            raise self.fail(f"grammar expands to more than {MAX_ELEMENTS} elements", op_at)
        if low == 0:
            del elements[last_start:]
        else:
            for _ in range(1, low):
                elements.extend(unit)
        optional_count = 1 if high < 0 else high - low
        if optional_count == 0:
            return weight
        # One helper rule per optional copy, created in a batch: ids, names and bodies as generate_symbol and
        # add_rule would make them, with the size limit checked before anything is allocated.
        out = self.out
        ids, rules, offsets, generated = out.symbol_ids, out.rules, out.offsets, out.generated
        reserved = self.reserved_names
        # Each link is the unit, a reference to the next link (none in the innermost bounded one), ALT and END.
        out.element_count += optional_count * (len(unit) + 3) - (1 if high >= 0 else 0)
        if out.element_count > MAX_ELEMENTS:
            raise self.fail(f"grammar expands to more than {MAX_ELEMENTS} elements", op_at)
        first = len(ids)
        stop = first + optional_count
        names = [f"{rule_name}_{sid}" for sid in range(first, stop)]
        if reserved.isdisjoint(names) and ids.keys().isdisjoint(names):
            ids.update(zip(names, range(first, stop), strict=True))
        else:  # rare: a name is taken; add a counter, one name at a time so that they stay distinct
            for sid in range(first, stop):
                name = f"{rule_name}_{sid}"
                while name in ids or name in reserved:
                    self._generated_counter += 1
                    name = f"{rule_name}_{sid}_{self._generated_counter}"
                ids[name] = sid
        offsets.update(dict.fromkeys(range(first, stop), op_at))
        generated.update(range(first, stop))
        unit_elements = tuple(unit)
        tail = (_ALT_ELEMENT, _END_ELEMENT)
        if high < 0:
            rules.append((*unit_elements, (_REF, first), *tail))
        else:
            # The innermost link first; each later one refers to the one before it.
            rules.append(unit_elements + tail)
            refs = zip(repeat(_REF), range(first, stop - 1))
            rules.extend([(*unit_elements, ref, _ALT_ELEMENT, _END_ELEMENT) for ref in refs])
        last_rule = stop - 1
        chain = range(first, stop)
        elements.append((_REF, last_rule))
        if high > 1 and high - low > 1:
            # Outermost link first: the one referenced from the expansion site.
            self.out.chains.append(RepetitionChain(tuple(reversed(chain)), tuple(unit)))
        return weight


def _unescape(match: re.Match[str]) -> str:
    return _SIMPLE_ESCAPES[match.group(1)]


def _names_in(text: str) -> set[str]:
    """Return every maximal run of name characters in ``text`` (a superset of the rule names), O(len)."""
    return set(_NAME.findall(text))


def parse_gbnf(text: str) -> ParsedGrammar:
    """Parse GBNF ``text``; return the rules (undefined references are checked by the caller).

    Raises :class:`GrammarError` with line and column on any syntax error. Cost: linear in the text plus the
    expanded size of repetitions (a repetition's helper rules are made in one batch, about 1 µs each).
    """
    return _Parser(text).parse()
