"""Synthetic loops for long bounded repetitions, and the canonical position of every grammar position.

The same idea as :class:`gbnf_backend._mask_engine.MaskEngine` (whose docstrings explain it), computed here once
per grammar and vocabulary for the core: a link of a repetition chain ``S{0,n}`` with more repetitions left than
any token is long behaves, for one token, like the unit's unbounded loop ``loop ::= unit loop |``; links with fewer
left map to the link of the unit's longest chain with as many left; positions followed by identical elements share
one representative. The core then computes one mask per *canonical* state, so ``char{0,2000}`` costs what
``char*`` costs. Cost: linear in the grammar size.
"""

from __future__ import annotations

from .._elements import Element, ElementType
from ..grammar import Grammar

__all__ = ["ChainPlan", "plan_chains"]

_Unit = tuple[Element, ...]


class ChainPlan:
    """``rules``/``nullable``: the grammar's rules plus one loop rule per repeated unit (appended, so every grammar
    position keeps its number); ``canonical``: the canonical position of every position of those rules."""

    def __init__(self, rules: list[tuple[Element, ...]], nullable: list[bool], canonical: list[int]) -> None:
        self.rules = rules
        self.nullable = nullable
        self.canonical = canonical


def plan_chains(grammar: Grammar, max_token_length: int) -> ChainPlan:
    """Return the extended rules and canonical positions of ``grammar`` for tokens of at most ``max_token_length``."""
    longest: dict[_Unit, tuple[int, ...]] = {}
    for chain in grammar.chains:
        if all(k == ElementType.RULE_REF and grammar.nullable[v] for k, v in chain.unit):
            continue  # an empty-able unit lets links be skipped freely: not interchangeable counters
        unit = tuple(chain.unit)
        if len(chain.rule_ids) > len(longest.get(unit, ())):
            longest[unit] = chain.rule_ids
    rules: list[tuple[Element, ...]] = list(grammar.rules)
    nullable = list(grammar.nullable)
    loops: dict[_Unit, int] = {}
    for unit in longest:
        loops[unit] = len(rules)
        rules.append((*unit, (ElementType.RULE_REF, len(rules)), (ElementType.ALT, 0), (ElementType.END, 0)))
        nullable.append(True)
    threshold = max_token_length + 2
    rule_map: dict[int, int] = {}
    for chain in grammar.chains:
        unit = tuple(chain.unit)
        links = longest.get(unit)
        if links is None:
            continue
        n, m = len(chain.rule_ids), len(links)
        for k, link in enumerate(chain.rule_ids):
            left = n - k
            target = loops[unit] if left >= threshold else links[m - left]
            if target != link:
                rule_map[link] = target
    starts: list[int] = []
    kinds: list[int] = []
    values: list[int] = []
    rule_of: list[int] = []
    for rule_id, elements in enumerate(rules):
        starts.append(len(kinds))
        kinds.extend(int(k) for k, _ in elements)
        values.extend(int(v) for _, v in elements)
        rule_of.extend([rule_id] * len(elements))
    representative = _position_classes(kinds, values, rule_map)
    canonical = []
    for position in range(len(kinds)):
        owner = rule_of[position]
        mapped = rule_map.get(owner)
        if mapped is not None:
            position = starts[mapped] + (position - starts[owner])
        canonical.append(representative[position])
    return ChainPlan(rules, nullable, canonical)


def _position_classes(kinds: list[int], values: list[int], rule_map: dict[int, int]) -> list[int]:
    """Return, per position, the first position whose rest of alternative is identical (one backward pass)."""
    end_kinds = (int(ElementType.END), int(ElementType.ALT))
    rule_ref = int(ElementType.RULE_REF)
    classes: dict[tuple[int, int, int], int] = {}
    class_of = [0] * len(kinds)
    for position in range(len(kinds) - 1, -1, -1):
        kind = kinds[position]
        if kind in end_kinds:
            class_of[position] = -1  # every end of an alternative behaves alike (pop)
            continue
        value = values[position]
        if kind == rule_ref:
            value = rule_map.get(value, value)
        key = (kind, value, class_of[position + 1])
        class_of[position] = classes.setdefault(key, len(classes))
    first: dict[int, int] = {}
    return [position if cls == -1 else first.setdefault(cls, position) for position, cls in enumerate(class_of)]
