"""Strings as GBNF: lengths, ``pattern`` (one, several, or negated), ``format`` and excluded values.

One pattern becomes a translated regular expression, with ``minLength``/``maxLength`` folded into it when the
pattern's shape allows (:func:`_fit_lengths`); several patterns, negated ones, excluded values or lengths that do
not fold become one automaton over decoded characters (:mod:`._keys`), when it is small enough. Anything else is a
weakening (refused in strict mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import SchemaError
from ._formats import format_rules
from ._ir import StrAlt
from ._keys import KeyDfaTooLarge, build_key_dfa, emit_keys
from ._resolve import Sub
from ._text import ANY
from .regex_gbnf import RegexError, RegexNode, counted_repeat, length_bounds, parse_regex, translate_regex

if TYPE_CHECKING:
    from ._emit import Emitter

__all__ = ["string_expr"]


def string_expr(em: Emitter, alt: StrAlt, owner: str, anchor: Sub) -> str | None:
    """Expression for the strings ``alt`` accepts (quotes included); None if none is."""
    lo, hi = alt.min_len, alt.max_len
    if hi is not None and hi < lo:
        return None
    formats = dict.fromkeys(f for f, _ in alt.formats)
    patterns = dict.fromkeys(p for p, _ in alt.patterns)
    ptr = (alt.patterns or alt.formats or (("", anchor.ptr),))[0][1]
    if len(formats) > 1:
        em.norm.weaken(ptr, "two different formats")
    negated = bool(alt.not_patterns or alt.not_values)
    if formats and (patterns or negated or lo > 0 or hi is not None):
        em.norm.weaken(ptr, "format combined with pattern or length limits")
    if not formats and (len(patterns) > 1 or negated):
        found, expr = _string_automaton(em, alt, owner, ptr)
        if found:
            return expr
    if len(patterns) > 1:
        em.norm.weaken(ptr, "several patterns (their intersection is too large to compute)")
    if negated:
        em.norm.weaken(ptr, "'not' of a pattern (automaton too large)")
    if formats and not patterns:
        name, rules = format_rules(next(iter(formats)), em.prefix)
        em.rules.update(rules)
        return f'"\\"" {name} "\\""'
    parsed: RegexNode | None = None
    if patterns:
        try:
            parsed = parse_regex(next(iter(patterns)))
        except RegexError as exc:
            if exc.invalid:  # an invalid schema, not a construct to drop
                raise SchemaError(f"invalid pattern: {exc}", pointer=ptr) from None
            em.norm.weaken(ptr, f"pattern: {exc}")  # raises SchemaError in strict mode
    if parsed is not None:
        pattern = next(iter(patterns))
        node = _fit_lengths(parsed, lo, hi)
        if node is None:
            found, expr = _string_automaton(em, alt, owner, ptr)
            if found:
                return expr
            em.norm.weaken(ptr, "pattern combined with minLength/maxLength")
            node = parsed
        char = em.prim("char")
        body = translate_regex(
            pattern,
            node=node,
            char_expr=em.charset_rule,
            any_star=f"{char}*",
            new_rule=lambda b: em.helper(owner, "re", b),
        )
        if body is None:
            return None
        return f'"\\"" {body} "\\""'
    char = em.prim("char")
    rep = counted_repeat(char, lo, hi, lambda b: em.helper(owner, "rep", b))
    return f'"\\"" {rep} "\\""' if rep else '"\\"\\""'


def _string_automaton(em: Emitter, alt: StrAlt, owner: str, ptr: str) -> tuple[bool, str | None]:
    """Strings matching every pattern, no negated pattern or excluded value, within the length limits.

    One DFA over all of them (see :mod:`._keys`); returns (False, None) when it would be too large
    (lengths count as a pattern ``^[\\s\\S]{lo,hi}$``, so long limits are too large too).
    """
    lo, hi = alt.min_len, alt.max_len
    required = list(dict.fromkeys(p for p, _ in alt.patterns))
    if lo > 0 or hi is not None:
        if max(lo, hi or 0) > _MAX_AUTOMATON_LENGTH:
            return False, None
        required.append(f"^[\\s\\S]{{{lo},{'' if hi is None else hi}}}$")
    forbidden = list(dict.fromkeys(p for p, _ in alt.not_patterns))
    try:
        dfa = build_key_dfa(required + forbidden, [list(alt.not_values)])
    except KeyDfaTooLarge:
        return False, None
    except RegexError as exc:
        if exc.invalid:
            raise SchemaError(f"invalid pattern: {exc}", pointer=ptr) from None
        em.norm.weaken(ptr, f"pattern: {exc}")
        return False, None
    need = frozenset(range(len(required)))
    banned = frozenset(range(len(required), len(required) + len(forbidden) + 1))

    def new_rule() -> str:
        return em.fresh(em.sub_name(owner, "s"))

    def set_rule(name: str, body: str) -> None:
        em.rules[name] = body

    expr = emit_keys(dfa, lambda acc: need <= acc and not (banned & acc), em.charset_rule, new_rule, set_rule)
    return True, expr


#: Longest minLength/maxLength folded into a string automaton (one state per character).
_MAX_AUTOMATON_LENGTH = 256


def _fit_lengths(node: RegexNode, lo: int, hi: int | None) -> RegexNode | None:
    """Return a pattern tree whose matches also have lo..hi characters, or None if not derivable.

    Works when the pattern, made explicit with ``.*``-like items on unanchored sides, is one sequence in
    which a single item varies in length and that item repeats a character set: its bounds absorb the
    limits. The result is a tree with both anchors, so translation must not add ``any*`` around it.
    """
    if lo == 0 and hi is None:
        return node
    branches = node.items if node.kind == "alt" else (node,)
    if len(branches) != 1:
        return None
    items = list(node.items) if node.kind == "seq" else [node]
    bol = bool(items) and items[0].kind == "bol"
    eol = bool(items) and items[-1].kind == "eol"
    core = [i for i in items if i.kind not in ("bol", "eol")]
    if len(core) + bol + eol != len(items):
        return None
    anyrep = RegexNode("rep", 0, items=(RegexNode("set", 0, cs=ANY),), lo=0, hi=None)
    seq = ([] if bol else [anyrep]) + core + ([] if eol else [anyrep])
    variable = []
    fixed = 0
    for k, item in enumerate(seq):
        a, b = length_bounds(item)
        if a == b:
            fixed += a
        else:
            variable.append(k)
    if not variable:
        if fixed < lo or (hi is not None and fixed > hi):
            return RegexNode("seq", 0, items=(RegexNode("bol", 0), RegexNode("set", 0, cs=()), RegexNode("eol", 0)))
        return RegexNode("seq", 0, items=(RegexNode("bol", 0), *seq, RegexNode("eol", 0)))
    if len(variable) != 1:
        return None
    k = variable[0]
    item = seq[k]
    if item.kind != "rep" or item.items[0].kind != "set":
        return None
    new_lo = max(item.lo, lo - fixed)
    new_hi = item.hi if hi is None else (hi - fixed if item.hi is None else min(item.hi, hi - fixed))
    if new_hi is not None and new_hi < new_lo:
        seq[k] = RegexNode("set", 0, cs=())
    else:
        seq[k] = RegexNode("rep", item.pos, items=item.items, lo=new_lo, hi=new_hi)
    return RegexNode("seq", 0, items=(RegexNode("bol", 0), *seq, RegexNode("eol", 0)))
