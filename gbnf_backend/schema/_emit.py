"""Emitting GBNF rules from the normal form of :mod:`._ir`.

The :class:`Emitter` owns the rule table. Subschemas become rules on demand (:meth:`Emitter.rule_for`) and
their bodies are produced by a work list, never by recursion, so recursive and deeply nested schemas cost
no Python stack. Rule names: the value rule is ``name``; rules of subschemas are ``name--<slug of the JSON
pointer>``; schema-independent primitives are ``{shared_prefix}json--<prim>`` with bodies that depend only
on the primitive and the whitespace mode (named in the primitive, e.g. ``json--space-llama``).

Each sub-grammar is spelled once: subschemas whose alternatives are equal share one rule, helper rules are
keyed by their body (the first owner names them), and the nodes of the "any key but the listed ones" tries
are shared across objects (``name--key-N``). Large schemas repeat members, optional-member chains and key
tries across many objects, so this shrinks the text and every later stage (parsing, checks, the automaton).
"""

from __future__ import annotations

import hashlib
import json
import re
from fractions import Fraction
from typing import Any

from .._gbnf_text import is_one_group
from ..errors import SchemaError
from ._ir import (
    Alt,
    ArrAlt,
    BoolAlt,
    Conj,
    EnumAlt,
    Normalizer,
    NullAlt,
    NumAlt,
    ObjAlt,
    StrAlt,
)
from ._numbers import int_range_expr, multiples_expr, number_range_expr, scientific_expr
from ._resolve import Sub
from ._strings import string_expr
from ._text import ANY, Charset, charset, complement, json_char_expr, json_string_literal, union
from .regex_gbnf import (
    NEVER_CLASS,
)

__all__ = ["WHITESPACE", "Emitter"]

# Whitespace allowed between tokens, by mode (see json_schema's module docstring).
WHITESPACE = {"llama": '"" | " " | "\\n"{1,2} [ \\t]{0,20}', "compact": '" "?', "none": ""}
_SEGMENT_NAMES = {
    "properties": "prop",
    "$defs": "defs",
    "definitions": "defs",
    "items": "items",
    "prefixItems": "item",
    "additionalProperties": "addl",
    "patternProperties": "pat",
    "allOf": "all",
    "anyOf": "any",
    "oneOf": "one",
    "additionalItems": "addi",
}
_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly", "$schema"}
)


def _slug(ptr: str) -> str:
    if "#" in ptr:  # a remote document: keep the pointer part, mark it remote
        ptr = "/remote/" + ptr.split("#", 1)[1].lstrip("/")
    parts = []
    segments = ptr.split("/")[1:]
    digest = ""
    if len(segments) > 10:  # deep paths: the tail plus a hash of the whole pointer keeps names short
        digest = hashlib.sha1(ptr.encode()).hexdigest()[:8]
        segments = segments[-6:]
    for seg in segments:
        seg = seg.replace("~1", "/").replace("~0", "~")
        word = _SEGMENT_NAMES.get(seg, seg)
        word = re.sub(r"[^a-zA-Z0-9]+", "-", word).strip("-")
        parts.append(word or "x")
    slug = "-".join(parts) + (f"-{digest}" if digest else "")
    if len(slug) > 60:  # deep paths: keep names short (rule names are repeated in every reference)
        digest = hashlib.sha1(ptr.encode()).hexdigest()[:8]
        slug = slug[:40].rstrip("-") + "-" + digest
    return slug


class Emitter:
    """Rule table plus the conversion of alternatives into GBNF expressions."""

    def __init__(self, norm: Normalizer, *, name: str, shared_prefix: str, whitespace: str) -> None:
        if whitespace not in WHITESPACE:
            raise ValueError(f"whitespace must be one of {sorted(WHITESPACE)}, not {whitespace!r}")
        self.norm = norm
        self.name = name
        self.prefix = shared_prefix
        self.mode = whitespace
        self.rules: dict[str, str] = {}
        self._names: dict[tuple[tuple[str, str], ...], str | None] = {}
        self._pending: list[tuple[str, list[Alt], Sub, tuple[object, ...] | None]] = []
        # Rule by alternatives: subschemas at different places that normalise to the same alternatives.
        self._by_content: dict[tuple[object, ...], str] = {}
        self._counter: dict[str, int] = {}
        self.key_tries: dict[tuple[str, ...], str] = {}
        self.key_nodes: dict[tuple[bool, tuple[tuple[str, str], ...]], str] = {}  # trie node -> its rule
        self.key_endings: dict[tuple[bool, Charset], str] = {}  # (name ends here, next characters) -> rule
        # Groups made by seq() that hold a plain sequence (no top-level '|'): safe to splice or unwrap.
        self._pure_groups: set[str] = set()
        self._shared: dict[str, str] = {}  # rule body -> name, see helper()
        self._charset_rules: dict[Charset, str | None] = {}  # see charset_rule()
        # Draft 6 and later count 1.0 as an integer; drafts 3 and 4 (declared by $schema) do not.
        root = norm.root
        declared = root.get("$schema") if isinstance(root, dict) else None
        old_draft = isinstance(declared, str) and ("draft-04" in declared or "draft-03" in declared)
        self.zero_fraction = "" if old_draft else _ZERO_FRACTION

    # -- rules -------------------------------------------------------------------------------------

    def fresh(self, base: str) -> str:
        """Return an unused rule name starting with ``base`` (deterministic numbering)."""
        if base not in self.rules and base not in self._counter:
            self._counter[base] = 1
            self.rules[base] = ""
            return base
        n = self._counter.get(base, 1) + 1
        while f"{base}-{n}" in self.rules:
            n += 1
        self._counter[base] = n
        self.rules[f"{base}-{n}"] = ""
        return f"{base}-{n}"

    @staticmethod
    def sub_name(owner: str, suffix: str) -> str:
        """The name of a helper of rule ``owner``: always contains ``--``."""
        return f"{owner}-{suffix}" if "--" in owner else f"{owner}--{suffix}"

    def helper(self, owner: str, suffix: str, body: str) -> str:
        """Return a helper rule with this body: the one already made with the same body (by any owner), else a
        new rule ``{owner}-{suffix}`` (numbered if taken).

        Content-keyed: a rule is its body, so equal bodies are one rule; schemas that repeat a sub-grammar (the
        same member, optional-member chain or repetition in many objects, merged by ``allOf`` or ``$ref``)
        spell it once, which shrinks the text and every later stage. Cost O(len(body)).
        """
        body = self.unwrap(body)
        name = self._shared.get(body)
        if name is None:
            name = self.fresh(self.sub_name(owner, suffix))
            self.rules[name] = body
            self._shared[body] = name
        return name

    def shared_rule(self, base: str, body: str) -> str:
        """:meth:`helper` for a rule that serves many owners: a new one is named ``base`` (numbered if taken)."""
        body = self.unwrap(body)
        name = self._shared.get(body)
        if name is None:
            name = self.fresh(base)
            self.rules[name] = body
            self._shared[body] = name
        return name

    def rule_for(self, conj: Conj, anchor: Sub) -> str | None:
        """Return the rule matching the values that satisfy every subschema in ``conj``; None if none do.

        The body is produced later by :meth:`run`. Cost: computing the conjunction's alternatives.
        """
        asked = tuple((s.base, s.ptr) for s in conj)
        if asked in self._names:  # (asked before, or asked for after following plain $refs)
            return self._names[asked]
        conj = tuple(self._deref(s) for s in conj)
        key = tuple((s.base, s.ptr) for s in conj)
        if key in self._names:
            self._names[asked] = self._names[key]
            return self._names[key]
        alts = self.norm.conj_alts(conj, conj[0] if conj else anchor)
        if not alts:
            self._names[key] = self._names[asked] = None
            return None
        content = _content_key(alts)
        name: str | None = None if content is None else self._by_content.get(content)
        if name is not None:
            pass  # another subschema with the same alternatives: the same language, spelled once
        elif _is_any(alts):
            name = self.prim("value")
        else:
            first = conj[0].ptr if conj else anchor.ptr
            slug = _slug(first) + ("-and" if len(conj) > 1 else "")
            name = self.fresh(f"{self.name}--{slug}" if slug else self.name)
            self._pending.append((name, alts, conj[0] if conj else anchor, content))
            if content is not None and self.norm.strict:
                # Strict: nothing is weakened (or the conversion fails), so sharing loses no warning.
                self._by_content[content] = name
        self._names[key] = self._names[asked] = name
        return name

    def _deref(self, sub: Sub) -> Sub:
        """Follow subschemas that are only a ``$ref`` (plus annotations), so every use shares one rule."""
        for _ in range(100):
            s = sub.schema
            if not (
                isinstance(s, dict)
                and isinstance(s.get("$ref"), str)
                and all(k == "$ref" or k in _ANNOTATIONS for k in s)
            ):
                break
            sub = self.norm.registry.resolve(s["$ref"], sub)
        return sub

    def run(self, root: Sub) -> None:
        """Emit the root rule and every rule it reaches. Cost: linear in the emitted grammar."""
        alts = self.norm.alts(root)
        self.rules[self.name] = ""
        self._names[((root.base, root.ptr),)] = self.name
        self._pending.append((self.name, alts, root, None))
        while self._pending:
            name, alts, anchor, content = self._pending.pop()
            self.norm.last_pointer = anchor.ptr
            warned = len(self.norm.warnings)
            body = self.alts_expr(alts, name, anchor)
            self.rules[name] = body if body is not None else NEVER_CLASS
            if content is not None and len(self.norm.warnings) == warned:
                # Lenient: share only rules whose emission weakened nothing (each weakening keeps its pointer).
                self._by_content.setdefault(content, name)

    # -- primitives --------------------------------------------------------------------------------

    def prim(self, what: str) -> str:
        """Return the name of a shared primitive rule, defining it (and what it uses) on first use."""
        ws_dependent = what in ("value", "object", "array", "space")
        name = f"{self.prefix}json--{what}" + (f"-{self.mode}" if ws_dependent else "")
        if name in self.rules:
            return name
        self.rules[name] = ""
        if what == "space":
            body = WHITESPACE[self.mode]
        elif what == "char":
            body = json_char_expr(ANY) or NEVER_CLASS
        elif what == "char-x":
            # Every spelling of a character that is not printable ASCII (or is '"' or '\\').
            plain = charset([(0x20, 0x7E)])
            body = json_char_expr(union(complement(plain), charset([(0x22, 0x22), (0x5C, 0x5C)]))) or NEVER_CLASS
        elif what == "string":
            body = f'"\\"" {self.prim("char")}* "\\""'
        elif what == "number":
            body = '"-"? ("0" | [1-9] [0-9]*) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?'
        elif what == "integer":
            # Draft 2020-12: a number with a zero fractional part is an integer, so 1.0 is one.
            body = f'"-"? ("0" | [1-9] [0-9]*) {_ZERO_FRACTION}'
        elif what == "integer-d4":
            body = '"-"? ("0" | [1-9] [0-9]*)'
        elif what == "value":
            body = (
                f"{self.prim('object')} | {self.prim('array')} | {self.prim('string')} | "
                f'{self.prim("number")} | "true" | "false" | "null"'
            )
        elif what == "object":
            ws, s, v = self.ws(), self.prim("string"), self.prim("value")
            member = self.seq(s, ws, '":"', ws, v, ws)
            more = self.seq('","', ws, member)
            body = self.seq('"{"', ws, f"({member} {more}*)?", '"}"')
        elif what == "array":
            ws, v = self.ws(), self.prim("value")
            first, more = self.seq(v, ws), self.seq('","', ws, v, ws)
            body = self.seq('"["', ws, f"({first} {more}*)?", '"]"')
        else:
            raise KeyError(what)
        self.rules[name] = body
        return name

    def ws(self) -> str:
        """The whitespace rule name, or "" when the mode allows none."""
        return "" if self.mode == "none" else self.prim("space")

    def seq(self, *parts: str) -> str:
        """Join non-empty parts with spaces; a parenthesised group when more than one.

        A part that is itself such a group (made here, holding no top-level ``|``) is spliced in without its
        parentheses: ``(a (b c) d)`` and ``(a b c d)`` match the same strings, and every group costs the GBNF
        parser a helper rule. Cost O(total length of the parts).
        """
        items = [p for p in parts if p]
        if len(items) == 1:
            return items[0]
        pure = self._pure_groups
        flat = True
        for k, item in enumerate(items):
            if item in pure:
                items[k] = item[1:-1]
            elif flat and "|" in item and _has_top_level_bar(item):
                flat = False
        group = "(" + " ".join(items) + ")"
        if flat:
            pure.add(group)
        return group

    def unwrap(self, expr: str) -> str:
        """``expr`` without its parentheses when it is a sequence group made by :meth:`seq`: for a rule body or
        one alternative of an alternation, where the parentheses (a helper rule each) add nothing."""
        return expr[1:-1] if expr in self._pure_groups else expr

    def charset_rule(self, cs: Charset) -> str | None:
        """A shared rule for one JSON-encoded character of ``cs`` (named by a hash of the set)."""
        if cs == ANY:
            return self.prim("char")
        known = self._charset_rules.get(cs, "")
        if known != "":
            return known
        expr = json_char_expr(cs)
        if expr is None:
            self._charset_rules[cs] = None
            return None
        digest = hashlib.sha1(repr(cs).encode()).hexdigest()[:10]
        name = f"{self.prefix}json--cs-{digest}"
        self.rules[name] = expr
        self._charset_rules[cs] = name
        return name

    # -- alternatives ------------------------------------------------------------------------------

    def alts_expr(self, alts: list[Alt], owner: str, anchor: Sub) -> str | None:
        """The expression matching what some alternative accepts; None if none accepts anything."""
        if _is_any(alts):
            return self.prim("value")
        parts: list[str] = []
        for alt in alts:
            e = self.alt_expr(alt, owner, anchor)
            if e is not None:
                e = self.unwrap(e)
                if e not in parts:
                    parts.append(e)
        return " | ".join(parts) if parts else None

    def alt_expr(self, alt: Alt, owner: str, anchor: Sub) -> str | None:
        from ._objects import array_expr, object_expr

        if isinstance(alt, NullAlt):
            return '"null"'
        if isinstance(alt, BoolAlt):
            return " | ".join(f'"{str(v).lower()}"' for v in sorted(alt.values, reverse=True))
        if isinstance(alt, EnumAlt):
            return " | ".join(dict.fromkeys(self.value_literal(v) for v in alt.values))
        if isinstance(alt, NumAlt):
            return self.number_expr(alt, owner, anchor)
        if isinstance(alt, StrAlt):
            return string_expr(self, alt, owner, anchor)
        if isinstance(alt, ArrAlt):
            return array_expr(self, alt, owner, anchor)
        assert isinstance(alt, ObjAlt)
        return object_expr(self, alt, owner, anchor)

    def value_literal(self, v: Any) -> str:
        """An expression for exactly the JSON value ``v`` (whitespace allowed between tokens)."""
        ws = self.ws()
        if isinstance(v, str):
            return json_string_literal(v)
        if isinstance(v, dict):
            members = [self.seq(json_string_literal(k), ws, '":"', ws, self.value_literal(x), ws) for k, x in v.items()]
            inner = " " + " ".join(self.seq('","', ws, m) if i else m for i, m in enumerate(members)) if members else ""
            return self.seq('"{"', ws) + inner + ' "}"'
        if isinstance(v, list):
            items = [self.seq(self.value_literal(x), ws) for x in v]
            inner = " " + " ".join(self.seq('","', ws, m) if i else m for i, m in enumerate(items)) if items else ""
            return "(" + self.seq('"["', ws) + inner + ' "]")'
        if isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer():
            # JSON Schema compares numbers by value: 2, 2.0 and 2.00 are the same constant.
            return f'("{int(v)}" ("." [0]+)?)'
        return '"' + json.dumps(v) + '"'

    def number_expr(self, alt: NumAlt, owner: str, anchor: Sub) -> str | None:
        integer = alt.integer
        modulus = 1
        for m in alt.multiples:
            if m.denominator != 1:
                self.norm.weaken(f"{anchor.ptr}/multipleOf", "multipleOf with a non-integer divisor")
                continue
            integer = True
            modulus = modulus * int(m) // _gcd(modulus, int(m))
        if modulus > 1:
            lo = None if alt.lo is None else _ceil_int(alt.lo)
            hi = None if alt.hi is None else _floor_int(alt.hi)

            def reserve(key: str, body: str | None) -> str:
                if body is None:
                    return self.fresh(self.sub_name(owner, key))
                self.rules[key] = body
                return key

            try:
                expr = multiples_expr(modulus, lo, hi, reserve)
            except ValueError:
                self.norm.weaken(f"{anchor.ptr}/multipleOf", f"multipleOf {modulus} needs too large an automaton")
            else:
                return None if expr is None else f"{_group(expr)} {self.zero_fraction}".rstrip()
        if integer:
            lo = None if alt.lo is None else _ceil_int(alt.lo)
            hi = None if alt.hi is None else _floor_int(alt.hi)
            if lo is None and hi is None:
                return self.prim("integer" if self.zero_fraction else "integer-d4")
            expr = int_range_expr(lo, hi)
            return None if expr is None else f"{_group(expr)} {self.zero_fraction}".rstrip()
        if alt.lo is None and alt.hi is None:
            return self.prim("number")

        def new_rule(key: str, body: str | None) -> str:
            if body is None:
                return self.fresh(self.sub_name(owner, key))
            self.rules[key] = body
            return key

        try:
            plain = number_range_expr(alt.lo, alt.hi, new_rule)
        except ValueError:
            raise SchemaError("numeric bound has no finite decimal expansion", pointer=anchor.ptr) from None
        if plain is None:
            return None
        scientific = scientific_expr(alt.lo, alt.hi)
        return plain if scientific is None else f"{_group(plain)} | {_group(scientific)}"


_LITERALS_AND_CLASSES = re.compile(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]')


def _has_top_level_bar(expr: str) -> bool:
    """Whether ``expr`` has a ``|`` outside every group, literal and class (it is an alternation). O(len)."""
    depth = 0
    for ch in _LITERALS_AND_CLASSES.sub("", expr):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            return True
    return False


# An integer's optional zero fraction ("1.0", "-3.00"): the same value, so the same integer.
_ZERO_FRACTION = '("." [0]+)?'


def _group(expr: str) -> str:
    """``expr`` parenthesised unless it already is one group."""
    return expr if is_one_group(expr) else f"({expr})"


def _content_key(alts: list[Alt]) -> tuple[object, ...] | None:
    """The alternatives as a dictionary key (equal keys: the same language), or None if there is none.

    Enum values are keyed by their JSON text: Python finds ``1 == True == 1.0``, JSON does not.
    """
    try:
        key = tuple(("enum", json.dumps(a.values)) if isinstance(a, EnumAlt) else a for a in alts)
        hash(key)
    except (TypeError, ValueError):
        return None
    return key


_PLAIN_ALTS = frozenset({NullAlt(), BoolAlt(), NumAlt(), StrAlt(), ArrAlt()})


def _is_any(alts: list[Alt]) -> bool:
    """Whether the alternatives are the six unconstrained types (any JSON value)."""
    plain = _PLAIN_ALTS
    seen = set()
    for a in alts:
        if isinstance(a, EnumAlt):
            return False
        if isinstance(a, ObjAlt):
            if a.props or a.required or a.patterns or a.additional or a.names or a.min_props or a.max_props is not None:
                return False
            seen.add("object")
        elif a in plain:
            seen.add(type(a).__name__)
        else:
            return False
    return len(seen) == 6


def _gcd(a: int, b: int) -> int:
    import math

    return math.gcd(a, b)


def _ceil_int(b: tuple[Fraction, bool]) -> int:
    v, incl = b
    c = -((-v.numerator) // v.denominator)
    return c if incl or c != v else c + 1


def _floor_int(b: tuple[Fraction, bool]) -> int:
    v, incl = b
    f = v.numerator // v.denominator
    return f if incl or f != v else f - 1
