"""Exact numeric ranges as GBNF: integers by digit-range decomposition, decimals by a small digit DFA.

JSON numbers have no leading zeros (``0``, ``-0``, ``12``; never ``01``). A bounded integer range becomes
alternatives grouped by digit count, each a sequence of digit classes (O(10 × digits) alternatives). A bounded
*number* range splits the value into its integer part (decomposed as above) and its fraction digits, whose
lexicographic bounds are enforced by a tiny DFA emitted as right-recursive rules. Bounded numbers are spelled
without exponents (``1e3`` is refused, which only narrows the language); unbounded ones use the full JSON
number grammar.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

__all__ = ["Bound", "int_range_expr", "multiples_expr", "number_range_expr", "scientific_expr"]

# A bound: (value, inclusive). None = unbounded on that side.
Bound = tuple[Fraction, bool] | None
# new_rule(suffix, None) reserves a fresh rule name and returns it; new_rule(name, body) sets its body.
NewRule = Callable[[str, str | None], str]

_DIGITS = "0123456789"


def _dclass(lo: int, hi: int) -> str:
    if lo == hi:
        return f"[{lo}]"
    return "[0-9]" if (lo, hi) == (0, 9) else f"[{lo}-{hi}]"


def _alts(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else "(" + " | ".join(parts) + ")"


def _fixed(x: str, y: str) -> str:
    """Digit strings of the same length as ``x``/``y`` lying in [x, y] (both given as digit strings)."""
    n = len(x)
    if n == 0:
        return ""
    if x == y:
        return f'"{x}"'
    if x == "0" * n and y == "9" * n:
        return "[0-9]" if n == 1 else f"[0-9]{{{n}}}"
    a, b = int(x[0]), int(y[0])
    if a == b:
        return f"[{a}] {_fixed(x[1:], y[1:])}"
    parts = []
    lo_first, hi_last = a, b
    if x[1:] != "0" * (n - 1):
        parts.append(f"[{a}] {_fixed(x[1:], '9' * (n - 1))}")
        lo_first = a + 1
    if y[1:] != "9" * (n - 1):
        hi_last = b - 1
    if lo_first <= hi_last:
        tail = "" if n == 1 else (" [0-9]" if n == 2 else f" [0-9]{{{n - 1}}}")
        parts.append(_dclass(lo_first, hi_last) + tail)
    if y[1:] != "9" * (n - 1):
        parts.append(f"[{b}] {_fixed('0' * (n - 1), y[1:])}")
    return _alts(parts)


def _uint_range(lo: int, hi: int | None) -> str | None:
    """Non-negative integers lo..hi (hi None = unbounded) without leading zeros; None if empty."""
    if hi is not None and hi < lo:
        return None
    parts = []
    top_len = len(str(hi)) if hi is not None else len(str(lo))
    for length in range(len(str(lo)), top_len + 1):
        a = max(lo, 10 ** (length - 1) if length > 1 else 0)
        b = 10**length - 1 if hi is None else min(hi, 10**length - 1)
        if a <= b:
            parts.append(_fixed(str(a).zfill(length), str(b).zfill(length)))
    if hi is None:
        # Every longer number: a non-zero digit then at least top_len more digits.
        parts.append(f"[1-9] [0-9]{{{top_len},}}")
    return _alts(parts)


def int_range_expr(lo: int | None, hi: int | None) -> str | None:
    """Return an expression for the JSON integers in [lo, hi] (None = unbounded); None if empty.

    ``-0`` is accepted when 0 is in range. Cost: O(10 × number of digits) alternatives.
    """
    if lo is not None and hi is not None and hi < lo:
        return None
    parts = []
    # Negative side: magnitudes |x| for x in [lo, min(hi, -1)], plus "-0" when 0 is in range.
    if lo is None or lo < 0:
        mag_lo = 1 if hi is None or hi >= -1 else -hi
        mag_hi = None if lo is None else -lo
        neg = _uint_range(mag_lo, mag_hi)
        if (lo is None or lo <= 0) and (hi is None or hi >= 0):
            neg = _alts([e for e in (neg, '"0"') if e is not None])
        if neg is not None:
            parts.append(f'"-" {neg}')
    if hi is None or hi >= 0:
        pos = _uint_range(max(lo, 0) if lo is not None else 0, hi)
        if pos is not None:
            parts.append(pos)
    return _alts(parts) if parts else None


def _split(value: Fraction) -> tuple[int, str] | None:
    """Return (integer part, fraction digits without trailing zeros) of a value ≥ 0 with a finite
    decimal expansion, or None if it has none (like 1/3)."""
    _num, den = value.numerator, value.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den != 1:
        return None
    d = Decimal(value.numerator) / Decimal(value.denominator)
    text = format(d, "f")
    whole, _, frac = text.partition(".")
    return int(whole), frac.rstrip("0")


#: One side of a fraction bound still to be read: (the unread digits, inclusive), or None once settled.
_Side = tuple[str, bool] | None


def _settle(side: _Side, low: bool) -> _Side:
    """A lower bound with nothing left, inclusive, is met by any continuation (None: settled)."""
    return None if low and side == ("", True) else side


def _accepts_end(lo_s: _Side, hi_s: _Side) -> bool:
    lo_ok = lo_s is None or (lo_s[0] == "" and lo_s[1])
    hi_ok = hi_s is None or hi_s[0] != "" or hi_s[1]
    return lo_ok and hi_ok


def _step(lo_s: _Side, hi_s: _Side, d: int) -> tuple[bool, _Side, _Side]:
    """Read digit ``d``: (still possible, the sides after it)."""
    nlo: _Side = None
    nhi: _Side = None
    if lo_s is not None:
        a = int(lo_s[0][0]) if lo_s[0] else 0
        if d < a:
            return False, None, None
        nlo = _settle((lo_s[0][1:], lo_s[1]), True) if d == a else None
    if hi_s is not None:
        b = int(hi_s[0][0]) if hi_s[0] else 0
        if d > b:
            return False, None, None
        nhi = (hi_s[0][1:], hi_s[1]) if d == b else None
        if nhi == ("", False):  # the rest would have to be below zero
            return False, None, None
    return True, nlo, nhi


class _FractionStates:
    """The states of the fraction DFA as rules (a class, not nested functions calling each other: those would form
    a reference cycle holding ``new_rule``, and through it the whole conversion, until the cyclic collector ran)."""

    def __init__(self, new_rule: NewRule) -> None:
        self.new_rule = new_rule
        self.names: dict[tuple[_Side, _Side], str] = {}

    def transitions(self, lo_s: _Side, hi_s: _Side) -> list[str]:
        groups: dict[tuple[_Side, _Side], list[int]] = {}
        for d in range(10):
            ok, nlo, nhi = _step(lo_s, hi_s, d)
            if ok:
                groups.setdefault((nlo, nhi), []).append(d)
        out = []
        for target, digits in groups.items():
            cls = "[" + "".join(str(d) for d in digits) + "]" if len(digits) < 10 else "[0-9]"
            out.append(f"{cls} {self.state(*target)}" if target != (None, None) else f"{cls} [0-9]*")
        return out

    def state(self, lo_s: _Side, hi_s: _Side) -> str:
        key = (lo_s, hi_s)
        names = self.names
        if key not in names:
            # Reserve the name first: a state may loop back to itself.
            names[key] = self.new_rule("frac", None)
            trans = self.transitions(lo_s, hi_s)
            alts = (['""'] if _accepts_end(lo_s, hi_s) else []) + trans
            self.new_rule(names[key], " | ".join(alts) or "[^\\x00-\\U0010FFFF]")
        return names[key]


def _fraction_expr(lo: tuple[str, bool] | None, hi: tuple[str, bool] | None, new_rule: NewRule) -> str | None:
    """Optional fraction (``"." digits``) whose value 0.f lies within the given digit-string bounds.

    Each bound is (digits without trailing zeros, inclusive). The DFA state is the unread rest of each
    bound (or None once that side is settled); states are emitted as right-recursive rules.
    """
    lo, hi = _settle(lo, True), _settle(hi, False)
    first = _FractionStates(new_rule).transitions(lo, hi)
    parts = ['""'] if _accepts_end(lo, hi) else []
    if first:
        parts.append('"." ' + _alts(first))
    if not parts:
        return None
    return _alts(parts)


def number_range_expr(lo: Bound, hi: Bound, new_rule: NewRule) -> str | None:
    """Return an expression for JSON numbers (no exponent) in the given range; None if empty.

    Raises ValueError when a bound has no finite decimal expansion (the caller reports it). ``new_rule``
    reserves and defines helper rules (see :data:`NewRule`). Cost: O(digits²) rules at most.
    """
    if lo is not None and hi is not None and (lo[0] > hi[0] or (lo[0] == hi[0] and not (lo[1] and hi[1]))):
        return None
    parts = []
    zero_ok = (lo is None or lo[0] < 0 or (lo[0] == 0 and lo[1])) and (
        hi is None or hi[0] > 0 or (hi[0] == 0 and hi[1])
    )
    # Non-negative values x = m in [max(lo, 0), hi].
    if hi is None or hi[0] >= 0:
        plo: Bound = lo if lo is not None and lo[0] >= 0 else (Fraction(0), True)
        pos = _magnitude(plo, hi, new_rule)
        if pos is not None:
            parts.append(pos)
    # Negative values x = -m: m in [max(-hi, 0), -lo]; "-0…" spellings are the value 0.
    if lo is None or lo[0] <= 0:
        nlo: Bound = (-hi[0], hi[1]) if hi is not None and hi[0] <= 0 else (Fraction(0), True)
        nhi: Bound = None if lo is None else (-lo[0], lo[1])
        if not zero_ok and nlo is not None and nlo[0] == 0:
            nlo = (Fraction(0), False)
        neg = _magnitude(nlo, nhi, new_rule)
        if neg is not None:
            parts.append(f'"-" {neg}')
    return _alts(parts) if parts else None


def _magnitude(lo: Bound, hi: Bound, new_rule: NewRule) -> str | None:
    """Unsigned decimals m (integer part, optional fraction) with lo ≤ m ≤ hi, lo ≥ 0 given."""
    assert lo is not None
    if hi is not None and (lo[0] > hi[0] or (lo[0] == hi[0] and not (lo[1] and hi[1]))):
        return None
    lo_split = _split(lo[0])
    hi_split = _split(hi[0]) if hi is not None else None
    if lo_split is None or (hi is not None and hi_split is None):
        raise ValueError("bound has no finite decimal expansion")
    li, lf = lo_split
    parts = []
    if hi is not None and hi_split is not None and hi_split[0] == li:
        frac = _fraction_expr((lf, lo[1]), (hi_split[1], hi[1]), new_rule)
        if frac is not None:
            parts.append(f'"{li}" {frac}'.rstrip())
        return _alts(parts) if parts else None
    frac_lo = _fraction_expr((lf, lo[1]), None, new_rule)
    if frac_lo is not None:
        parts.append(f'"{li}" {frac_lo}')
    any_frac = '("." [0-9]+)?'
    if hi is None:
        middle = _uint_range(li + 1, None)
    else:
        assert hi_split is not None
        middle = _uint_range(li + 1, hi_split[0] - 1)
        frac_hi = _fraction_expr(None, (hi_split[1], hi[1]), new_rule)
        if frac_hi is not None:
            parts.append(f'"{hi_split[0]}" {frac_hi}')
    if middle is not None:
        parts.insert(1 if frac_lo is not None else 0, f"{middle} {any_frac}")
    return _alts(parts) if parts else None


def _decade(v: Fraction) -> int:
    """The integer E with 10^E <= v < 10^(E+1), for v > 0 (exact)."""
    e = len(str(v.numerator)) - len(str(v.denominator))
    while Fraction(10) ** e > v:
        e -= 1
    while Fraction(10) ** (e + 1) <= v:
        e += 1
    return e


def _exponent_values(lo: int | None, hi: int | None) -> str | None:
    """``[eE]`` and an exponent whose value is in [lo, hi] (None = unbounded); any sign and leading zeros."""
    if lo is not None and hi is not None and hi < lo:
        return None
    parts = []
    if hi is None or hi >= 0:
        pos = _uint_range(max(lo, 0) if lo is not None else 0, hi)
        if pos is not None:
            parts.append(f'"+"? "0"* {pos}')
    if lo is None or lo <= 0:
        neg = _uint_range(max(-hi, 0) if hi is not None else 0, None if lo is None else -lo)
        if neg is not None:
            parts.append(f'"-" "0"* {neg}')
    return f"[eE] {_alts(parts)}" if parts else None


def _scientific_magnitudes(lo: Bound, hi: Bound) -> list[str]:
    """Spellings ``d.ddd e E`` (d in 1-9, the normal form ``json.dumps`` writes) of magnitudes in [lo, hi].

    A spelling with leading digit d and exponent E lies in [d·10^E, (d+1)·10^E); only (d, E) cells wholly
    inside the range are accepted, so the result is exact on the safe side (a value in a cell that straddles a
    bound is refused in this spelling; its plain decimal spelling is still accepted). ``lo`` is ≥ 0.
    """
    assert lo is not None
    if lo[0] < 0:
        lo = (Fraction(0), True)
    ten = Fraction(10)
    # Whole decades [10^E, 10^(E+1)) inside the range: E in [e_lo, e_hi].
    e_lo: int | None = None
    if lo[0] > 0:
        e = _decade(lo[0])
        e_lo = e if (ten**e == lo[0] and lo[1]) else e + 1
    e_hi: int | None = None
    if hi is not None:
        if hi[0] <= 0:
            return []
        e_hi = _decade(hi[0]) - 1
    mantissa = '[1-9] ("." [0-9]+)?'
    out = []
    whole = _exponent_values(e_lo, e_hi)
    if whole is not None:
        out.append(f"{mantissa} {whole}")
    # Cells of the neighbouring decades, digit by digit.
    edges = {
        e for e in ((e_lo - 1) if e_lo is not None else None, (e_hi + 1) if e_hi is not None else None) if e is not None
    }
    for e in sorted(edges):
        if e_lo is not None and e_hi is not None and e_lo <= e <= e_hi:
            continue
        unit = ten**e
        digits = [
            d
            for d in range(1, 10)
            if (d * unit > lo[0] or (d * unit == lo[0] and lo[1])) and (hi is None or (d + 1) * unit <= hi[0])
        ]
        if digits:
            cls = "[" + "".join(str(d) for d in digits) + "]"
            exp = _exponent_values(e, e)
            out.append(f'{cls} ("." [0-9]+)? {exp}')
    return out


def _point_spelling(v: Fraction) -> str | None:
    """Normal-form exponent spellings (``d.ddd`` then any trailing zeros, ``e±E``) of exactly ``v`` > 0."""
    split = _split(v)
    if split is None:
        return None
    whole, frac = split
    digits = (str(whole) if whole else "") + frac
    lead = len(digits) - len(digits.lstrip("0"))
    sig = digits.strip("0")
    e = len(str(whole)) - 1 if whole else -(lead + 1)
    exp = _exponent_values(e, e)
    rest = f'"." "{sig[1:]}" [0]*' if len(sig) > 1 else '("." [0]+)?'
    return f'"{sig[0]}" {rest} {exp}'


def scientific_expr(lo: Bound, hi: Bound) -> str | None:
    """Return an expression for exponent spellings of numbers in the given range, None if none is safe.

    Positive numbers as ``d.ddd[eE]±E``, negative ones with a leading ``-``; see
    :func:`_scientific_magnitudes` for which cells are accepted. Cost: O(digits of the exponent bounds).
    """
    parts: list[str] = []
    # An inclusive bound is itself valid: its own normal-form spellings (1e-06 for minimum 0.000001).
    for bound in (lo, hi):
        if bound is not None and bound[1] and bound[0] != 0:
            point = _point_spelling(abs(bound[0]))
            if point is not None:
                parts.append(point if bound[0] > 0 else f'"-" {point}')
    if hi is None or hi[0] > 0:
        parts.extend(_scientific_magnitudes(lo if lo is not None else (Fraction(0), True), hi))
    if lo is None or lo[0] < 0:
        neg_lo: Bound = (-hi[0], hi[1]) if hi is not None and hi[0] < 0 else (Fraction(0), True)
        neg_hi: Bound = None if lo is None else (-lo[0], lo[1])
        parts.extend(f'"-" {p}' for p in _scientific_magnitudes(neg_lo, neg_hi))
    if not parts:
        return None
    return _alts([p if " " not in p else f"({p})" for p in parts])


#: Most helper rules :func:`multiples_expr` may create (digit positions × tightness × remainders).
MAX_MULTIPLE_RULES = 6000


def multiples_expr(k: int, lo: int | None, hi: int | None, new_rule: NewRule) -> str | None:
    """Return an expression for the JSON integers in [lo, hi] (None = unbounded) divisible by ``k``.

    A digit automaton tracks, per position, whether the prefix still equals a bound's prefix and the
    remainder modulo ``k`` (exact). None if no integer qualifies; ValueError when it would take more than
    :data:`MAX_MULTIPLE_RULES` rules. ``-0`` is accepted when 0 is in range.
    """
    if lo is not None and hi is not None and hi < lo:
        return None
    budget = [MAX_MULTIPLE_RULES]
    parts = []
    if lo is None or lo < 0:
        mag_lo = 1 if hi is None or hi >= -1 else -hi
        neg = _uint_multiples(k, mag_lo, None if lo is None else -lo, new_rule, budget)
        zero = (lo is None or lo <= 0) and (hi is None or hi >= 0)
        options = [e for e in (neg, '"0"' if zero else None) if e is not None]
        if options:
            parts.append(f'"-" {_alts(options)}')
    if hi is None or hi >= 0:
        pos = _uint_multiples(k, max(lo, 0) if lo is not None else 0, hi, new_rule, budget)
        if pos is not None:
            parts.append(pos)
    return _alts(parts) if parts else None


class _MultiplesWalk:
    """The digit automaton of :func:`_uint_multiples` as rules, memoised by state (a class, not a nested function
    calling itself: that would form a reference cycle holding ``new_rule``, and through it the whole conversion,
    until the cyclic collector ran)."""

    def __init__(self, k: int, new_rule: NewRule, budget: list[int]) -> None:
        self.k = k
        self.new_rule = new_rule
        self.budget = budget
        self.memo: dict[tuple[str, str, int, bool, bool, int], str | None] = {}

    def rule(self, body: str) -> str:
        self.budget[0] -= 1
        if self.budget[0] < 0:
            raise ValueError("multipleOf automaton too large")
        name = self.new_rule("mul", None)
        self.new_rule(name, body)
        return name

    def walk(self, x: str, y: str, i: int, tight_lo: bool, tight_hi: bool, r: int) -> str | None:
        """Digits i.. of a length-len(x) number in [x, y] (prefix so far tight as flagged), remainder r."""
        if i == len(x):
            return '""' if r == 0 else None
        key = (x, y, i, tight_lo, tight_hi, r)
        memo = self.memo
        if key in memo:
            return memo[key]
        d_lo = int(x[i]) if tight_lo else 0
        d_hi = int(y[i]) if tight_hi else 9
        groups: dict[str, list[int]] = {}
        for d in range(d_lo, d_hi + 1):
            rest = self.walk(x, y, i + 1, tight_lo and d == d_lo, tight_hi and d == d_hi, (10 * r + d) % self.k)
            if rest is not None:
                groups.setdefault(rest, []).append(d)
        alts = [f"[{''.join(map(str, ds))}]" + ("" if rest == '""' else f" {rest}") for rest, ds in groups.items()]
        result = None if not alts else self.rule(" | ".join(alts)) if len(alts) > 1 or " " in alts[0] else alts[0]
        memo[key] = result
        return result


def _uint_multiples(k: int, a: int, b: int | None, new_rule: NewRule, budget: list[int]) -> str | None:
    """Non-negative integers in [a, b] divisible by k, without leading zeros."""
    if b is not None and b < a:
        return None
    walker = _MultiplesWalk(k, new_rule, budget)
    parts = []
    top = len(str(b)) if b is not None else len(str(a))
    for length in range(len(str(a)), top + 1):
        x = max(a, 10 ** (length - 1) if length > 1 else 0)
        y = 10**length - 1 if b is None else min(b, 10**length - 1)
        if x <= y:
            e = walker.walk(str(x), str(y), 0, True, True, 0)
            if e is not None:
                parts.append(e)
    if b is None:
        # Longer numbers: a non-zero digit, then at least ``top`` digits; remainders tracked throughout.
        spend = (top + 1) * k
        budget[0] -= spend
        if budget[0] < 0:
            raise ValueError("multipleOf automaton too large")
        tail = [new_rule("mod", None) for _ in range(k)]
        for r in range(k):
            alts = (['""'] if r == 0 else []) + _digit_steps(k, r, tail)
            new_rule(tail[r], " | ".join(alts))
        level = tail
        for _ in range(top):
            names = [new_rule("mod", None) for _ in range(k)]
            for r in range(k):
                new_rule(names[r], " | ".join(_digit_steps(k, r, level)))
            level = names
        lead: dict[int, list[int]] = {}
        for d in range(1, 10):
            lead.setdefault(d % k, []).append(d)
        parts.extend(f"[{''.join(map(str, ds))}] {level[r]}" for r, ds in sorted(lead.items()))
    return _alts(parts) if parts else None


def _digit_steps(k: int, r: int, targets: list[str]) -> list[str]:
    """Alternatives ``[digits] targets[(10 r + d) mod k]`` grouped by target."""
    groups: dict[int, list[int]] = {}
    for d in range(10):
        groups.setdefault((10 * r + d) % k, []).append(d)
    return [f"[{''.join(map(str, ds))}] {targets[t]}" for t, ds in sorted(groups.items())]
