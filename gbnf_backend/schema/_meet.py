"""The algebra of schema alternatives: intersection, exact membership, and disjointness for ``oneOf``.

:class:`AltAlgebra` is the half of the normaliser (:class:`._ir.Normalizer`) that works on
alternatives already computed: ``allOf`` intersects them type by type, ``enum`` values are filtered by
:meth:`AltAlgebra.accepts` (exact, jsonschema for nested subschemas), and ``oneOf`` branches are proven
disjoint or made exclusive with complements and discriminators.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from ..errors import SchemaError
from ._alts import Alt, ArrAlt, BoolAlt, Bound, Conj, EnumAlt, NullAlt, NumAlt, ObjAlt, StrAlt
from ._complement import complement_alts, discriminator_complement
from ._resolve import Registry, Sub

__all__ = ["MAX_ALTS", "AltAlgebra", "item_conj", "json_equal", "value_conj"]

MAX_ALTS = 64


class AltAlgebra:
    """Operations on alternatives; the normaliser subclasses it and supplies the hooks below."""

    registry: Registry

    def weaken(self, ptr: str, message: str) -> None:
        """Raise (strict) or record that ``message`` was dropped at ``ptr``."""
        raise NotImplementedError

    def valid(self, sub: Sub, value: Any) -> bool:
        """Whether ``value`` is valid under ``sub`` (jsonschema, references resolved)."""
        raise NotImplementedError

    def conj_alts(self, conj: Conj, sub: Sub) -> list[Alt]:
        """Alternatives of a conjunction of subschemas (all must hold)."""
        raise NotImplementedError

    # -- oneOf ------------------------------------------------------------------------------------

    def _exclusive(
        self, branches: list[list[Alt]], sub: Sub, raw: list[list[Alt]] | None = None
    ) -> list[list[Alt]] | None:
        """Each branch minus the branches it may overlap: B_i ∧ ⋀ N_j with N_j ⊆ ¬B_j, or None.

        N_j is the exact complement when it is small, else what a discriminator of B_j excludes (a required
        key with a const/enum value absent, or present with another value). Since N_j ⊆ ¬B_j the result
        only accepts values valid under exactly one branch (exact when every N_j is the exact complement).
        ``raw[j]``, when given, is branch j before the sibling keywords S were intersected in (B_j = S ∧ b_j):
        since B_i ⊆ S, B_i ∧ ¬b_j = B_i ∧ ¬B_j, and ¬b_j is usually far smaller than ¬B_j.
        """
        out = []
        for i, own in enumerate(branches):
            kept = own
            for j, other in enumerate(branches):
                if i == j or not kept or all(self._alt_disjoint(x, y, sub, 2) for x in kept for y in other):
                    continue
                excluded = self._excluder(raw[j], sub) if raw is not None else None
                if excluded is None:
                    excluded = self._excluder(other, sub)
                if excluded is None:
                    return None
                try:
                    kept = self.intersect_lists(kept, excluded, sub)
                except SchemaError:
                    return None
            out.append(kept)
        return out

    def _excluder(self, alts: list[Alt], sub: Sub) -> list[Alt] | None:
        """Alternatives accepting only values ``alts`` rejects (all of them when small), or None."""

        def intersect(a: list[Alt], b: list[Alt]) -> list[Alt]:
            return self.intersect_lists(a, b, sub)

        try:
            exact = complement_alts(alts, sub, intersect)
        except SchemaError:
            exact = None
        if exact is not None and len(exact) <= 8:
            return exact
        result: list[Alt] = [NullAlt(), BoolAlt(), NumAlt(), StrAlt(), ArrAlt(), ObjAlt()]
        for alt in alts:
            part = discriminator_complement(alt, sub)
            if part is None:
                return None
            result = intersect(result, part)
        return result

    def _disjoint(self, branches: list[list[Alt]], sub: Sub) -> bool:
        """Whether no value can satisfy two of the branches (a sufficient test, not a complete one)."""
        for i, a in enumerate(branches):
            for b in branches[i + 1 :]:
                if not all(self._alt_disjoint(x, y, sub, 2) for x in a for y in b):
                    return False
        return True

    def _alt_disjoint(self, x: Alt, y: Alt, sub: Sub, depth: int) -> bool:
        if isinstance(y, EnumAlt) and not isinstance(x, EnumAlt):
            x, y = y, x
        if isinstance(x, EnumAlt):
            return not any(self.accepts(y, v) for v in x.values)
        if type(x) is not type(y):
            return True
        if isinstance(x, BoolAlt) and isinstance(y, BoolAlt):
            return not (x.values & y.values)
        if isinstance(x, NumAlt) and isinstance(y, NumAlt):
            lo = _tighter(x.lo, y.lo, True)
            hi = _tighter(x.hi, y.hi, False)
            return lo is not None and hi is not None and (lo[0] > hi[0] or (lo[0] == hi[0] and not (lo[1] and hi[1])))
        if isinstance(x, StrAlt) and isinstance(y, StrAlt):
            return _ranges_disjoint(x.min_len, x.max_len, y.min_len, y.max_len)
        if isinstance(x, ArrAlt) and isinstance(y, ArrAlt):
            return _ranges_disjoint(x.min_items, x.max_items, y.min_items, y.max_items)
        if isinstance(x, ObjAlt) and isinstance(y, ObjAlt):
            if _ranges_disjoint(x.min_props, x.max_props, y.min_props, y.max_props):
                return True
            # A key one branch requires and the other forbids (a discriminator by presence).
            for a, b in ((x, y), (y, x)):
                for key in sorted(a.required):
                    if not self.conj_alts(value_conj(b, key), sub):
                        return True
            if depth > 0:
                # A key both require, with values no value satisfies in both (a const/enum/type discriminator).
                for key in sorted(x.required & y.required):
                    xa = self.conj_alts(value_conj(x, key), sub)
                    ya = self.conj_alts(value_conj(y, key), sub)
                    if all(self._alt_disjoint(p, q, sub, depth - 1) for p in xa for q in ya):
                        return True
        return False

    # -- intersection -----------------------------------------------------------------------------

    def intersect_lists(self, a: list[Alt], b: list[Alt], sub: Sub) -> list[Alt]:
        """Return the alternatives accepting what some of ``a`` and some of ``b`` accept."""
        out: list[Alt] = []
        for x in a:
            for y in b:
                z = self.intersect(x, y, sub)
                if z is not None:
                    out.append(z)
        if len(out) > MAX_ALTS:
            raise SchemaError(f"more than {MAX_ALTS} alternatives after combining allOf/anyOf", pointer=sub.ptr)
        return out

    def intersect(self, x: Alt, y: Alt, sub: Sub) -> Alt | None:
        if isinstance(y, EnumAlt) and not isinstance(x, EnumAlt):
            x, y = y, x
        if isinstance(x, EnumAlt):
            kept = tuple(v for v in x.values if self.accepts(y, v))
            return EnumAlt(kept) if kept else None
        if type(x) is not type(y):
            return None
        if isinstance(x, NullAlt):
            return x
        if isinstance(x, BoolAlt) and isinstance(y, BoolAlt):
            vals = x.values & y.values
            return BoolAlt(vals) if vals else None
        if isinstance(x, NumAlt) and isinstance(y, NumAlt):
            return NumAlt(
                x.integer or y.integer,
                _tighter(x.lo, y.lo, True),
                _tighter(x.hi, y.hi, False),
                x.multiples + y.multiples,
            )
        if isinstance(x, StrAlt) and isinstance(y, StrAlt):
            return StrAlt(
                max(x.min_len, y.min_len),
                _min_opt(x.max_len, y.max_len),
                x.patterns + y.patterns,
                x.formats + y.formats,
                x.not_patterns + y.not_patterns,
                x.not_values + y.not_values,
            )
        if isinstance(x, ArrAlt) and isinstance(y, ArrAlt):
            n = max(len(x.prefix), len(y.prefix))
            prefix = tuple(item_conj(x, i) + item_conj(y, i) for i in range(n))
            return ArrAlt(
                prefix,
                x.items + y.items,
                max(x.min_items, y.min_items),
                _min_opt(x.max_items, y.max_items),
                x.contains + y.contains,
            )
        assert isinstance(x, ObjAlt) and isinstance(y, ObjAlt)
        return self._intersect_objects(x, y, sub)

    def _intersect_objects(self, x: ObjAlt, y: ObjAlt, sub: Sub) -> ObjAlt:
        # A key's value must satisfy, in each operand, that operand's property schema, or its matching
        # patterns, or its additionalProperties. Merging is exact unless patterns meet another operand's
        # additionalProperties (the set of keys "not matching p" is not tracked).
        if (x.patterns and (y.additional or y.patterns)) or (y.patterns and x.additional):
            self.weaken(sub.ptr, "allOf merges patternProperties with other object keywords")
        names = dict.fromkeys([k for k, _ in x.props] + [k for k, _ in y.props])
        listed_x, listed_y = _first_by_key(x.props), _first_by_key(y.props)  # (value_conj for listed keys, O(1))
        props = tuple(
            (
                k,
                (listed_x[k] if k in listed_x else value_conj(x, k))
                + (listed_y[k] if k in listed_y else value_conj(y, k)),
            )
            for k in names
        )
        return ObjAlt(
            props,
            x.required | y.required,
            x.patterns + y.patterns,
            x.additional + y.additional,
            max(x.min_props, y.min_props),
            _min_opt(x.max_props, y.max_props),
            x.ptr or y.ptr,
            x.explicit_additional or y.explicit_additional,
            x.names + y.names,
            (x.opaque - _annotated(y)) | (y.opaque - _annotated(x)),
        )

    def accepts(self, alt: Alt, v: Any) -> bool:
        """Whether the (non-enum) alternative ``alt`` accepts the JSON value ``v`` (exact)."""
        if isinstance(alt, EnumAlt):
            return any(json_equal(v, w) for w in alt.values)
        if isinstance(alt, NullAlt):
            return v is None
        if isinstance(alt, BoolAlt):
            return isinstance(v, bool) and v in alt.values
        if isinstance(alt, NumAlt):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                return False
            f = Fraction(repr(v)) if isinstance(v, float) else Fraction(v)
            if alt.integer and f.denominator != 1:
                return False
            if alt.lo is not None and (f < alt.lo[0] or (f == alt.lo[0] and not alt.lo[1])):
                return False
            if alt.hi is not None and (f > alt.hi[0] or (f == alt.hi[0] and not alt.hi[1])):
                return False
            return all((f / m).denominator == 1 for m in alt.multiples)
        if isinstance(alt, StrAlt):
            if not isinstance(v, str) or len(v) < alt.min_len:
                return False
            if alt.max_len is not None and len(v) > alt.max_len:
                return False
            if v in alt.not_values or any(self.registry.valid_schema({"pattern": p}, v) for p, _ in alt.not_patterns):
                return False
            return all(self.registry.valid_schema({"pattern": p}, v) for p, _ in alt.patterns) and all(
                self.registry.valid_schema({"format": f}, v) for f, _ in alt.formats
            )
        if isinstance(alt, ArrAlt):
            if not isinstance(v, list) or len(v) < alt.min_items:
                return False
            if alt.max_items is not None and len(v) > alt.max_items:
                return False
            for conj, least, _ in alt.contains:
                if sum(all(self.valid(s, item) for s in conj) for item in v) < least:
                    return False
            return all(all(self.valid(s, item) for s in item_conj(alt, i)) for i, item in enumerate(v))
        assert isinstance(alt, ObjAlt)
        if not isinstance(v, dict) or len(v) < alt.min_props or not alt.required <= v.keys():
            return False
        if alt.max_props is not None and len(v) > alt.max_props:
            return False
        if not all(self.valid(s, k) for s in alt.names for k in v):
            return False
        return all(all(self.valid(s, item) for s in value_conj(alt, k)) for k, item in v.items())


def _first_by_key(props: tuple[tuple[str, Conj], ...]) -> dict[str, Conj]:
    """The listed properties by key (the first one if a key is listed twice, as :func:`value_conj` reads)."""
    out: dict[str, Conj] = {}
    for key, conj in props:
        out.setdefault(key, conj)
    return out


def value_conj(o: ObjAlt, key: str) -> Conj:
    """The schemas a value under ``key`` must satisfy in object alternative ``o``."""
    for k, conj in o.props:
        if k == key:
            return conj
    matched: Conj = ()
    for pattern, conj, _ in o.patterns:
        try:
            if re.search(pattern, key):
                matched += conj
        except re.error:
            pass
    return matched if matched else o.additional


def item_conj(a: ArrAlt, i: int) -> Conj:
    """The schemas item ``i`` of an array must satisfy in alternative ``a``."""
    return a.prefix[i] if i < len(a.prefix) else a.items


def _annotated(o: ObjAlt) -> frozenset[str]:
    """Listed keys of ``o`` that an annotating keyword (properties) evaluates."""
    return frozenset(k for k, _ in o.props) - o.opaque


def _ranges_disjoint(a_lo: int, a_hi: int | None, b_lo: int, b_hi: int | None) -> bool:
    """Whether the count ranges [a_lo, a_hi] and [b_lo, b_hi] (None = unbounded) share no value."""
    return (a_hi is not None and a_hi < b_lo) or (b_hi is not None and b_hi < a_lo)


def _min_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)


def _tighter(a: Bound, b: Bound, lower: bool) -> Bound:
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0]:
        return (a[0], a[1] and b[1])
    return a if (a[0] > b[0]) == lower else b


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality as jsonschema sees it (1 == 1.0, but true != 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)
