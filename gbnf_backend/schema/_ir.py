"""Normal form of a JSON Schema for the converter: a union of per-type alternatives.

:func:`Normalizer.alts` turns a subschema into a list of *alternatives*, each constraining one JSON type
(``null``, ``boolean``, ``number``, ``string``, ``array``, ``object``) or listing finitely many values
(``enum``). A value is valid iff some alternative accepts it. ``allOf`` and sibling keywords intersect the
lists type by type, ``anyOf`` unions them, ``oneOf`` unions them only when the branches provably exclude
each other. Keywords without ``type`` constrain only values of their own type, which falls out of this
form. Nested subschemas (property values, items) are kept as :data:`Conj` (a tuple of subschemas that must
all hold) and converted lazily, so recursive schemas terminate.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..errors import SchemaError
from ._alts import (
    _ALL_TYPES,
    _TYPE_OF,
    Alt,
    ArrAlt,
    BoolAlt,
    Bound,
    Conj,
    EnumAlt,
    NullAlt,
    NumAlt,
    ObjAlt,
    StrAlt,
)
from ._complement import complement_alts, forbid_key, other_types
from ._keywords import check_keywords, count_keyword
from ._meet import MAX_ALTS, AltAlgebra
from ._resolve import Registry, Sub, declared_draft

__all__ = [
    "MAX_ALTS",
    "Alt",
    "ArrAlt",
    "BoolAlt",
    "Conj",
    "EnumAlt",
    "Normalizer",
    "NullAlt",
    "NumAlt",
    "ObjAlt",
    "StrAlt",
]

#: Keywords that never reject a value.
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
)


def _uses_identifiers(schema: Any) -> bool:
    """Return whether ``schema`` has a ``$``-keyword other than ``$comment`` anywhere ($ref, $id, $schema …)."""
    todo = [schema]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if any(isinstance(k, str) and k.startswith("$") and k != "$comment" for k in node):
                return True
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return False


#: Formats outside the specification that jsonschema still checks (with an optional dependency): refused,
#: since ignoring them would accept what a validator rejects. Other unknown formats are annotations.
_CHECKED_ELSEWHERE = frozenset({"color"})

# Keywords that assert something we cannot express exactly.
UNSUPPORTED = (
    "$dynamicRef",
    "$recursiveRef",
    "uniqueItems",
)
MAX_DEPTH = 120


class Normalizer(AltAlgebra):
    """Computes alternatives for subschemas; records weakenings when ``strict`` is False."""

    def __init__(
        self, registry: Registry, root: Any, *, strict: bool, forbid_additional: bool, formats: tuple[str, ...]
    ) -> None:
        self.registry = registry
        self.root = root
        self.strict = strict
        self.forbid_additional = forbid_additional
        self.formats = formats
        self.warnings: list[str] = []
        self._active: list[int] = []
        self._pointers: list[str] = []
        self.last_pointer = ""
        self._valid: Callable[[Sub, Any], bool] | None = None
        self._memo: dict[tuple[int, str, str], tuple[Any, tuple[Alt, ...]]] = {}  # see alts()
        self._conj_memo: dict[object, tuple[Conj, tuple[Alt, ...]]] = {}  # see conj_alts()
        # A document declaring drafts 3-7 follows that draft where it differs from 2020-12 in a way that
        # matters to real schemas: "$ref" replaces its siblings, and drafts before 7 have no "if".
        draft = declared_draft(root)
        self.ref_replaces_siblings = draft is not None and draft <= 7
        self.knows_if = draft is None or draft >= 7

    def weaken(self, ptr: str, message: str) -> None:
        """Raise (strict) or record that ``message`` was dropped at ``ptr``."""
        if self.strict:
            raise SchemaError(message, pointer=ptr)
        self.warnings.append(f"{ptr or '#'}: {message}")

    def valid(self, sub: Sub, value: Any) -> bool:
        if self._valid is None:
            self._valid = self.registry.validator(self.root)
        return self._valid(sub, value)

    def alts(self, sub: Sub) -> list[Alt]:
        """Return the alternatives of ``sub``. Cost: proportional to the keywords inlined (refs, allOf), once per
        subschema (then memoised: the same subschema is asked for again by every ``$ref`` to it, every
        conjunction it joins and every ``oneOf`` disjointness test)."""
        memo_key = (id(sub.schema), sub.base, sub.ptr)
        done = self._memo.get(memo_key)
        if done is not None:
            return list(done[1])
        key = id(sub.schema)
        if (
            key in self._active
            and isinstance(sub.schema, dict)
            and ("$ref" in sub.schema or "allOf" in sub.schema or "anyOf" in sub.schema or "oneOf" in sub.schema)
        ):
            raise SchemaError("reference cycle that never reaches a value (infinite recursion)", pointer=sub.ptr)
        if len(self._active) > MAX_DEPTH:
            raise SchemaError("schema nested too deeply", pointer=sub.ptr)
        self._active.append(key)
        self._pointers.append(sub.ptr)
        self.last_pointer = sub.ptr
        try:
            result = self._alts(sub)
            # The schema is kept with the result so that its id() cannot be reused by another (synthesised) one.
            self._memo[memo_key] = (sub.schema, tuple(result))
            return result
        except SchemaError as exc:
            if exc.pointer:
                raise
            raise SchemaError(exc.reason, pointer=sub.ptr) from None
        except (TypeError, AttributeError, KeyError, ValueError, IndexError, OverflowError) as exc:
            raise SchemaError(f"malformed schema: {exc!r}"[:200], pointer=sub.ptr) from None
        finally:
            self._active.pop()
            self._pointers.pop()

    @property
    def current_pointer(self) -> str:
        """The pointer of the subschema being converted (for errors raised outside a keyword check)."""
        return self._pointers[-1] if self._pointers else self.last_pointer

    def _alts(self, sub: Sub) -> list[Alt]:
        s = sub.schema
        if s is True:
            return [self._typed(sub, t, {}) for t in _ALL_TYPES]
        if s is False:
            return []
        if not isinstance(s, dict):
            raise SchemaError("a schema must be an object or a boolean", pointer=sub.ptr)
        check_keywords(s, sub.ptr)
        if self.ref_replaces_siblings and isinstance(s.get("$ref"), str):
            return self.alts(self.registry.resolve(s["$ref"], sub))
        if "enum" in s or "const" in s:
            return self._enum(sub)
        finite = self._finite(sub)
        if finite is not None:
            return finite
        for kw in UNSUPPORTED:
            if kw in s:
                if kw == "uniqueItems" and (s[kw] is False or s.get("maxItems", 2) <= 1):
                    continue
                self.weaken(f"{sub.ptr}/{kw}", f"'{kw}' cannot be enforced by a grammar")
        types = self._types(sub)
        result: list[Alt] = [self._typed(sub, t, s) for t in types]
        result = [a for a in result if a is not None]
        if "$ref" in s:
            result = self.intersect_lists(result, self.alts(self.registry.resolve(s["$ref"], sub)), sub)
        for i, _ in enumerate(s.get("allOf", [])):
            result = self.intersect_lists(result, self.alts(sub.child("allOf", i)), sub)
        if "anyOf" in s:
            union: list[Alt] = []
            for i, _ in enumerate(s["anyOf"]):
                union.extend(self.alts(sub.child("anyOf", i)))
            result = self.intersect_lists(result, union, sub)
        if "oneOf" in s:
            raw = [self.alts(sub.child("oneOf", i)) for i, _ in enumerate(s["oneOf"])]
            branches = [self.intersect_lists(result, own, sub) for own in raw]
            if not self._disjoint(branches, sub):
                exclusive = self._exclusive(branches, sub, raw)
                if exclusive is None:
                    self.weaken(f"{sub.ptr}/oneOf", "oneOf branches may overlap (exactly-one cannot be enforced)")
                else:
                    branches = exclusive
            result = [a for br in branches for a in br]
        if "not" in s:
            try:
                negated = complement_alts(
                    self.alts(sub.child("not")), sub, lambda a, b: self.intersect_lists(a, b, sub)
                )
                combined = None if negated is None else self.intersect_lists(result, negated, sub)
            except SchemaError as exc:
                if not exc.reason.startswith("more than"):  # only the size cap is a weakening here
                    raise
                combined = None
            if combined is None:
                self.weaken(f"{sub.ptr}/not", "'not' of this schema cannot be enforced by a grammar")
            else:
                result = combined
        if "if" in s and ("then" in s or "else" in s) and self.knows_if:
            result = self._conditional(sub, result)
        result = self._dependencies(sub, result)
        if "unevaluatedProperties" in s or "unevaluatedItems" in s:
            result = [b for a in result if (b := self._unevaluated(a, sub)) is not None]
        return result

    def _finite(self, sub: Sub) -> list[Alt] | None:
        """When an ``allOf`` member is an ``enum``/``const``, the schema's values are finite: keep those
        jsonschema accepts under the whole schema (exact, whatever the other keywords are). Else None."""
        for member in sub.schema.get("allOf", []):
            if isinstance(member, dict) and ("enum" in member or "const" in member):
                values = [member["const"]] if "const" in member else member["enum"]
                if not isinstance(values, list):
                    return None
                kept = tuple(v for v in values if self.valid(sub, v))
                return [EnumAlt(kept)] if kept else []
        return None

    def _conditional(self, sub: Sub, result: list[Alt]) -> list[Alt]:
        """``if``/``then``/``else`` as (if ∧ then) ∨ (¬if ∧ else); needs the complement of ``if``."""
        cond = self.alts(sub.child("if"))
        negated = complement_alts(cond, sub, lambda a, b: self.intersect_lists(a, b, sub))
        if negated is None:
            self.weaken(f"{sub.ptr}/if", "'if' whose complement cannot be enforced by a grammar")
            return result
        then = self.alts(sub.child("then")) if "then" in sub.schema else None
        other = self.alts(sub.child("else")) if "else" in sub.schema else None
        branches = (cond if then is None else self.intersect_lists(cond, then, sub)) + (
            negated if other is None else self.intersect_lists(negated, other, sub)
        )
        return self.intersect_lists(result, branches, sub)

    def _dependencies(self, sub: Sub, result: list[Alt]) -> list[Alt]:
        """Apply dependentRequired/dependentSchemas/dependencies: per key, absent or present with its dependency."""
        s = sub.schema
        items: list[tuple[str, str, Any]] = []
        for kw in ("dependentRequired", "dependentSchemas", "dependencies"):
            value = s.get(kw)
            if value is None:
                continue
            if not isinstance(value, dict):
                raise SchemaError(f"'{kw}' must be an object", pointer=f"{sub.ptr}/{kw}")
            items.extend((kw, key, dep) for key, dep in value.items())
        for kw, key, dep in items:
            absent: list[Alt] = [forbid_key(key, sub), *other_types(ObjAlt)]
            present: list[Alt] = [ObjAlt(required=frozenset({key}))]
            if isinstance(dep, list):
                if not all(isinstance(k, str) for k in dep):
                    raise SchemaError(f"'{kw}' lists must hold strings", pointer=f"{sub.ptr}/{kw}/{key}")
                present = [ObjAlt(required=frozenset({key, *dep}))]
            else:
                present = self.intersect_lists(present, self.alts(sub.child(kw, key)), sub)
            result = self.intersect_lists(result, absent + present, sub)
        return result

    def _unevaluated(self, alt: Alt, sub: Sub) -> Alt | None:
        """Apply ``unevaluatedProperties``/``unevaluatedItems`` of ``sub`` to one alternative (None: no value
        of it is left).

        An alternative merges the subschemas that must all hold for it (siblings, ``allOf``, ``$ref``, one
        ``anyOf``/``oneOf`` branch), so its listed properties, patterns and additionalProperties are what
        those evaluate: a key outside them is unevaluated. When another branch also holds, jsonschema
        evaluates more keys, so this is exact or narrower, never wider. An alternative with an
        additionalProperties (or ``items``) evaluates everything: the keyword changes nothing.
        """
        s = sub.schema
        if isinstance(alt, EnumAlt):
            # Listed values: jsonschema decides each under the whole schema (a const's items or members are
            # evaluated by no keyword, so unevaluatedItems/unevaluatedProperties may reject them).
            kept = tuple(v for v in alt.values if self.valid(sub, v))
            return EnumAlt(kept) if kept else None
        if isinstance(alt, ObjAlt) and "unevaluatedProperties" in s and not alt.additional:
            uneval = sub.child("unevaluatedProperties")
            return ObjAlt(
                tuple((k, (*conj, uneval)) if k in alt.opaque else (k, conj) for k, conj in alt.props),
                alt.required,
                alt.patterns,
                (uneval,),
                alt.min_props,
                alt.max_props,
                alt.ptr,
                True,
                alt.names,
                alt.opaque,
            )
        if isinstance(alt, ArrAlt) and "unevaluatedItems" in s and not alt.items:
            # Items a "contains" matches are evaluated too; requiring the unevaluatedItems schema of every
            # item is narrower in that case, never wider.
            return ArrAlt(alt.prefix, (sub.child("unevaluatedItems"),), alt.min_items, alt.max_items, alt.contains)
        return alt

    def _types(self, sub: Sub) -> list[str]:
        t = sub.schema.get("type")
        if t is None:
            return list(_ALL_TYPES)
        names = [t] if isinstance(t, str) else t
        if not isinstance(names, list) or not names:
            raise SchemaError("'type' must be a string or a list of strings", pointer=f"{sub.ptr}/type")
        out: list[str] = []
        for n in names:
            if n not in _TYPE_OF:
                raise SchemaError(f"unknown type {n!r}", pointer=f"{sub.ptr}/type")
            out.append(n)
        if "number" in out and "integer" in out:
            out.remove("integer")
        return out

    def _enum(self, sub: Sub) -> list[Alt]:
        s = sub.schema
        own = "const" if "const" in s else "enum"
        values = [s["const"]] if own == "const" else s["enum"]
        if not isinstance(values, list):
            raise SchemaError("'enum' must be an array", pointer=f"{sub.ptr}/enum")
        # Keep the values the rest of the schema accepts. A value always satisfies its own enum/const keyword, so
        # that keyword is left out of the check: validating each of n values against an n-value enum is O(n^2)
        # (minutes for the 5,000-value enums of some SchemaStore schemas). Schemas with identifiers or
        # references go through the registry, which resolves them.
        rest = {k: v for k, v in s.items() if k != own and k not in _ANNOTATIONS}
        if not rest:
            kept = list(values)
        elif not _uses_identifiers(rest):
            check = self.registry.checker(rest)
            kept = [v for v in values if check(v)]
        else:
            kept = [v for v in values if self.valid(sub, v)]
        return [EnumAlt(tuple(kept))] if kept else []

    def _typed(self, sub: Sub, t: str, s: dict[str, Any]) -> Alt:
        ptr = sub.ptr
        if t == "null":
            return NullAlt()
        if t == "boolean":
            return BoolAlt()
        if t in ("number", "integer"):
            return self._number(sub, t == "integer", s)
        if t == "string":
            return self._string(sub, s)
        if t == "array":
            return self._array(sub, s)
        assert t == "object", ptr
        return self._object(sub, s)

    def _number(self, sub: Sub, integer: bool, s: dict[str, Any]) -> NumAlt:
        def num(key: str) -> Fraction | None:
            v = s.get(key)
            if v is None or isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                if v is not None:
                    raise SchemaError(f"'{key}' must be a finite number", pointer=f"{sub.ptr}/{key}")
                return None
            # JSON numbers are decimal: 1.1 means 11/10, not the nearest binary float.
            return Fraction(repr(v)) if isinstance(v, float) else Fraction(v)

        lo: Bound = None
        hi: Bound = None
        for key, incl in (("minimum", True), ("exclusiveMinimum", False)):
            v = num(key)
            if v is not None and (lo is None or v > lo[0] or (v == lo[0] and not incl)):
                lo = (v, incl)
        for key, incl in (("maximum", True), ("exclusiveMaximum", False)):
            v = num(key)
            if v is not None and (hi is None or v < hi[0] or (v == hi[0] and not incl)):
                hi = (v, incl)
        multiples: tuple[Fraction, ...] = ()
        m = num("multipleOf")
        if m is not None:
            if m <= 0:
                raise SchemaError("'multipleOf' must be positive", pointer=f"{sub.ptr}/multipleOf")
            multiples = (m,)
        return NumAlt(integer, lo, hi, multiples)

    def _string(self, sub: Sub, s: dict[str, Any]) -> StrAlt:
        patterns: tuple[tuple[str, str], ...] = ()
        formats: tuple[tuple[str, str], ...] = ()
        if "pattern" in s:
            patterns = ((str(s["pattern"]), f"{sub.ptr}/pattern"),)
        if "format" in s:
            fmt = s["format"]
            if fmt in self.formats:
                formats = ((fmt, f"{sub.ptr}/format"),)
            elif fmt in _CHECKED_ELSEWHERE:
                self.weaken(f"{sub.ptr}/format", f"format {fmt!r} is not supported")
            # Any other format is unknown to JSON Schema and to jsonschema: an annotation that asserts nothing.
        return StrAlt(
            count_keyword(s, "minLength", sub.ptr) or 0, count_keyword(s, "maxLength", sub.ptr), patterns, formats
        )

    def _array(self, sub: Sub, s: dict[str, Any]) -> ArrAlt:
        prefix: list[Conj] = []
        items: Conj = ()
        if isinstance(s.get("items"), list):  # the tuple form of older drafts
            prefix = [(sub.child("items", i),) for i in range(len(s["items"]))]
            if "additionalItems" in s:
                items = (sub.child("additionalItems"),)
        else:
            if "prefixItems" in s:
                prefix = [(sub.child("prefixItems", i),) for i in range(len(s["prefixItems"]))]
            if "items" in s:
                items = (sub.child("items"),)
        contains: tuple[tuple[Conj, int, str], ...] = ()
        if "contains" in s:
            least = count_keyword(s, "minContains", sub.ptr)
            if "maxContains" in s:
                count_keyword(s, "maxContains", sub.ptr)
                self.weaken(f"{sub.ptr}/maxContains", "'maxContains' cannot be enforced by a grammar")
            if least != 0:
                contains = (((sub.child("contains"),), 1 if least is None else least, f"{sub.ptr}/contains"),)
        return ArrAlt(
            tuple(prefix),
            items,
            count_keyword(s, "minItems", sub.ptr) or 0,
            count_keyword(s, "maxItems", sub.ptr),
            contains,
        )

    def _object(self, sub: Sub, s: dict[str, Any]) -> ObjAlt:
        props = tuple((k, (sub.child("properties", k),)) for k in s.get("properties", {}))
        patterns = tuple(
            (p, (sub.child("patternProperties", p),), f"{sub.ptr}/patternProperties")
            for p in s.get("patternProperties", {})
        )
        additional: Conj = ()
        explicit = "additionalProperties" in s
        if explicit:
            additional = (sub.child("additionalProperties"),)
        elif self.forbid_additional and (props or patterns):
            additional = (Sub(False, sub.base, f"{sub.ptr}/additionalProperties"),)
            explicit = True
        required = s.get("required", [])
        names: Conj = (sub.child("propertyNames"),) if "propertyNames" in s else ()
        return ObjAlt(
            props,
            frozenset(required),
            patterns,
            additional,
            count_keyword(s, "minProperties", sub.ptr) or 0,
            count_keyword(s, "maxProperties", sub.ptr),
            sub.ptr,
            explicit,
            names,
        )

    def conj_alts(self, conj: Conj, sub: Sub) -> list[Alt]:
        """Alternatives of a conjunction of subschemas (all must hold); memoised like :meth:`alts`."""
        memo_key = (tuple((id(part.schema), part.base, part.ptr) for part in conj), sub.base, sub.ptr)
        done = self._conj_memo.get(memo_key)
        if done is not None:
            return list(done[1])
        if conj:
            result = self._meet_any(sub, self.alts(conj[0]), conj[0])
            for part in conj[1:]:
                result = self.intersect_lists(result, self.alts(part), part)
        else:
            result = [self._typed(sub, t, {}) for t in _ALL_TYPES]
        self._conj_memo[memo_key] = (conj, tuple(result))  # (the schemas kept alive: their ids stay theirs)
        return result

    def _meet_any(self, sub: Sub, alts: list[Alt], part: Sub) -> list[Alt]:
        """``intersect_lists(<every type, unconstrained, at sub>, alts, part)``, building only the unconstrained
        alternatives that can meet one of ``alts`` (the others meet nothing): the same list, in the same order."""
        out: list[Alt] = []
        for t in _ALL_TYPES:
            kind = _TYPE_OF[t]
            unconstrained: Alt | None = None
            for alt in alts:
                if type(alt) is kind or isinstance(alt, EnumAlt):
                    if unconstrained is None:
                        unconstrained = self._typed(sub, t, {})
                    met = self.intersect(unconstrained, alt, part)
                    if met is not None:
                        out.append(met)
        if len(out) > MAX_ALTS:
            raise SchemaError(f"more than {MAX_ALTS} alternatives after combining allOf/anyOf", pointer=part.ptr)
        return out
