"""``not`` and the dependency keywords as alternatives of the normal form (exact, or None to give up).

:func:`complement_alts` returns the alternatives of every value *not* accepted by a list of alternatives.
Per JSON type, the complement of a union is the intersection of the complements of its members, and the
complement of one alternative (a conjunction of constraints) is the union of the complements of its
constraints: a bound flips, a count range splits in two, a pattern becomes a forbidden pattern, a required
key becomes a forbidden one, a listed property becomes "present with a value its schema rejects" (a
synthesised ``not`` subschema), excluded strings become a forbidden set. Constraints with no such form
(``format``, ``multipleOf``, ``integer``, item and property schemas, excluded numbers) make it give up.

:func:`dependent_alts` returns, for ``dependentRequired``/``dependentSchemas``/``dependencies``, the
alternatives "the key is absent, or it is present and the dependency holds" (other types unconstrained).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ._alts import Alt, ArrAlt, BoolAlt, EnumAlt, NullAlt, NumAlt, ObjAlt, StrAlt
from ._resolve import Sub

__all__ = ["complement_alts", "discriminator_complement", "forbid_key", "other_types"]

Intersect = Callable[[list[Alt], list[Alt]], list[Alt]]
_KINDS = (NullAlt, BoolAlt, NumAlt, StrAlt, ArrAlt, ObjAlt)


def _kind_of_value(v: Any) -> type:
    if v is None:
        return NullAlt
    if isinstance(v, bool):
        return BoolAlt
    if isinstance(v, (int, float)):
        return NumAlt
    if isinstance(v, str):
        return StrAlt
    return ArrAlt if isinstance(v, list) else ObjAlt


def forbid_key(key: str, sub: Sub) -> ObjAlt:
    """Objects without ``key`` (its value schema is ``false``)."""
    # The pointer names the rule cache entry: it must not be the pointer of any real subschema.
    escaped = key.replace("~", "~0").replace("/", "~1")
    return ObjAlt(props=((key, (Sub(False, sub.base, f"{sub.ptr}/$absent/{escaped}"),)),), opaque=frozenset({key}))


def other_types(kind: type) -> list[Alt]:
    """Unconstrained alternatives of every type but ``kind``."""
    return [k() for k in _KINDS if k is not kind]


def _counts(lo: int, hi: int | None, make: Callable[[int, int | None], Alt]) -> list[Alt]:
    out = []
    if lo > 0:
        out.append(make(0, lo - 1))
    if hi is not None:
        out.append(make(hi + 1, None))
    return out


def _complement_one(alt: Alt, sub: Sub) -> list[Alt] | None:
    """Values of ``alt``'s type that ``alt`` rejects, or None if that has no exact form here."""
    if isinstance(alt, NullAlt):
        return []
    if isinstance(alt, BoolAlt):
        rest = frozenset({True, False}) - alt.values
        return [BoolAlt(rest)] if rest else []
    if isinstance(alt, NumAlt):
        if alt.integer or alt.multiples:
            return None
        out: list[Alt] = []
        if alt.lo is not None:
            out.append(NumAlt(hi=(alt.lo[0], not alt.lo[1])))
        if alt.hi is not None:
            out.append(NumAlt(lo=(alt.hi[0], not alt.hi[1])))
        return out
    if isinstance(alt, StrAlt):
        if alt.formats:
            return None
        out = _counts(alt.min_len, alt.max_len, lambda lo, hi: StrAlt(min_len=lo, max_len=hi))
        out.extend(StrAlt(not_patterns=(p,)) for p in alt.patterns)
        out.extend(StrAlt(patterns=(p,)) for p in alt.not_patterns)
        if alt.not_values:
            out.append(EnumAlt(alt.not_values))
        return out
    if isinstance(alt, ArrAlt):
        if alt.prefix or alt.items or alt.contains:
            return None
        return _counts(alt.min_items, alt.max_items, lambda lo, hi: ArrAlt(min_items=lo, max_items=hi))
    assert isinstance(alt, ObjAlt)
    if alt.patterns or alt.additional or alt.names:
        return None
    out = _counts(alt.min_props, alt.max_props, lambda lo, hi: ObjAlt(min_props=lo, max_props=hi))
    out.extend(forbid_key(k, sub) for k in sorted(alt.required))
    # A listed property present with a value its schema rejects (the schema negated as a subschema).
    for key, conj in alt.props:
        if len({part.base for part in conj}) > 1:
            return None
        inner: Any = conj[0].schema if len(conj) == 1 else {"allOf": [part.schema for part in conj]}
        # "/$not" marks the negation of exactly the subschema at the pointer before it (the validator relies
        # on that); a negated conjunction has no such pointer.
        # (A negated conjunction's pointer names all its parts: rules are keyed by pointer, and two conjunctions
        # that start alike must not share one.)
        parts = "\n".join(part.ptr for part in conj)
        whole = "" if len(conj) == 1 else "-all-" + hashlib.sha1(parts.encode()).hexdigest()[:8]
        negated = Sub({"not": inner}, conj[0].base, f"{conj[0].ptr}/$not{whole}")
        # Keywords under "not" collect no annotations: the key stays unevaluated (opaque).
        out.append(ObjAlt(props=((key, (negated,)),), required=frozenset({key}), opaque=frozenset({key})))
    return out


def _complement_values(kind: type, values: list[Any]) -> list[list[Alt]] | None:
    """Values of type ``kind`` other than ``values``, as lists of alternatives to intersect."""
    if kind is NullAlt:
        return [[]]
    if kind is BoolAlt:
        rest = frozenset({True, False}) - {v for v in values if isinstance(v, bool)}
        return [[BoolAlt(rest)] if rest else []]
    if kind is StrAlt:
        return [[StrAlt(not_values=tuple(dict.fromkeys(values)))]]
    if kind is NumAlt:
        # x != v is x < v or x > v (1 and 1.0 are the same number, and so are these bounds).
        out: list[list[Alt]] = []
        for v in values:
            if not math.isfinite(v):
                return None
            f = Fraction(repr(v)) if isinstance(v, float) else Fraction(v)
            out.append([NumAlt(hi=(f, False)), NumAlt(lo=(f, False))])
        return out
    return None


def complement_alts(alts: list[Alt], sub: Sub, intersect: Intersect) -> list[Alt] | None:
    """Alternatives accepting exactly the values ``alts`` rejects; None when that is not expressible."""
    out: list[Alt] = []
    for kind in _KINDS:
        typed = [a for a in alts if isinstance(a, kind)]
        values = [v for a in alts if isinstance(a, EnumAlt) for v in a.values if _kind_of_value(v) is kind]
        result: list[Alt] = [kind()]
        parts: list[list[Alt] | None] = [_complement_one(a, sub) for a in typed]
        if values:
            excluded = _complement_values(kind, values)
            if excluded is None:
                return None
            parts.extend(excluded)
        for part in parts:
            if part is None:
                return None
            result = intersect(result, part)
            if not result:
                break
        out.extend(result)
    return out


def _is_discriminator(conj: tuple[Sub, ...]) -> bool:
    return (
        len(conj) == 1 and isinstance(conj[0].schema, dict) and ("const" in conj[0].schema or "enum" in conj[0].schema)
    )


def discriminator_complement(alt: Alt, sub: Sub) -> list[Alt] | None:
    """Values ``alt`` rejects, as far as its discriminators tell: a subset of the complement, or None.

    For an object alternative: every other type, objects without a required const/enum-valued key, and
    objects whose const/enum-valued key holds another value. Other alternatives: their exact complement.
    """
    if isinstance(alt, EnumAlt):
        return None
    if not isinstance(alt, ObjAlt):
        exact = _complement_one(alt, sub)
        return None if exact is None else exact + other_types(type(alt))
    out: list[Alt] = other_types(ObjAlt)
    found = False
    for key, conj in alt.props:
        if not _is_discriminator(conj):
            continue
        found = True
        if key in alt.required:
            out.append(forbid_key(key, sub))
        negated = Sub({"not": conj[0].schema}, conj[0].base, f"{conj[0].ptr}/$not")
        out.append(ObjAlt(props=((key, (negated,)),), required=frozenset({key}), opaque=frozenset({key})))
    return out if found else None
