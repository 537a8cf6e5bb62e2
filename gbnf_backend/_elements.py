"""The rule encoding shared by the GBNF parser, the printer and the NPDA.

A grammar is a list of rules indexed by symbol id; a rule is a flat tuple of ``(type, value)`` elements in the
spirit of llama.cpp's element arrays: alternatives are separated by ``ALT`` and the rule ends with ``END``. A
character class is a run that starts with ``CHAR`` (or ``CHAR_NOT`` when negated) and continues with ``CHAR_ALT``
(another member) and ``CHAR_RNG_UPPER`` (turns the previous member into a range). ``CHAR_ANY`` is ``.``; ``TOKEN``
and ``TOKEN_NOT`` match (or exclude) one vocabulary token by id. :class:`ParsedGrammar` is what the parser hands to
the checks (rules by symbol id plus names, offsets and the :class:`RepetitionChain` of each bounded repetition).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

__all__ = [
    "MAX_CODE_POINT",
    "Element",
    "ElementType",
    "ParsedGrammar",
    "RepetitionChain",
    "Rule",
    "char_run_end",
    "class_ranges",
    "complement_ranges",
    "is_end_of_alternative",
    "is_terminal",
    "merge_ranges",
]

MAX_CODE_POINT = 0x10FFFF


class ElementType(IntEnum):
    """Element kinds; the numbers are llama.cpp's, so encodings can be compared with its tests."""

    END = 0
    ALT = 1
    RULE_REF = 2
    CHAR = 3
    CHAR_NOT = 4
    CHAR_RNG_UPPER = 5
    CHAR_ALT = 6
    CHAR_ANY = 7
    TOKEN = 8
    TOKEN_NOT = 9


Element = tuple[int, int]
Rule = tuple[Element, ...]

_END = ElementType.END
_ALT = ElementType.ALT
_TERMINAL_STARTS = frozenset(
    {ElementType.CHAR, ElementType.CHAR_NOT, ElementType.CHAR_ANY, ElementType.TOKEN, ElementType.TOKEN_NOT}
)
_CLASS_CONTINUATIONS = frozenset({ElementType.CHAR_ALT, ElementType.CHAR_RNG_UPPER})


def is_end_of_alternative(element: Element) -> bool:
    """Return whether ``element`` closes an alternative (``ALT`` or ``END``)."""
    return element[0] == _END or element[0] == _ALT


def is_terminal(element: Element) -> bool:
    """Return whether ``element`` starts something that consumes input (a character class or a token)."""
    return element[0] in _TERMINAL_STARTS


def char_run_end(rule: Rule, index: int) -> int:
    """Return the index just past the character class starting at ``index`` (O(length of the class))."""
    index += 1
    while index < len(rule) and rule[index][0] in _CLASS_CONTINUATIONS:
        index += 1
    return index


def class_ranges(rule: Rule, index: int) -> tuple[bool, tuple[tuple[int, int], ...]]:
    """Return ``(negated, ranges)`` for the class starting at ``index``; ranges are sorted and merged.

    ``CHAR_ANY`` gives ``(False, ((0, MAX_CODE_POINT),))``. Cost O(k log k) for a class of k members.
    """
    kind = rule[index][0]
    if kind == ElementType.CHAR_ANY:
        return False, ((0, MAX_CODE_POINT),)
    negated = kind == ElementType.CHAR_NOT
    members: list[list[int]] = []
    end = char_run_end(rule, index)
    for i in range(index, end):
        element_type, value = rule[i]
        if element_type == ElementType.CHAR_RNG_UPPER:
            members[-1][1] = value
        else:
            members.append([value, value])
    return negated, merge_ranges((lo, hi) for lo, hi in members if lo <= hi)


def merge_ranges(ranges: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Return the union of inclusive ``(lo, hi)`` ranges, sorted, with touching ranges merged."""
    merged: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1][1] = hi
        else:
            merged.append([lo, hi])
    return tuple((lo, hi) for lo, hi in merged)


def complement_ranges(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """Return the code points in ``[0, MAX_CODE_POINT]`` not covered by the merged ``ranges``."""
    out: list[tuple[int, int]] = []
    next_lo = 0
    for lo, hi in ranges:
        if lo > next_lo:
            out.append((next_lo, lo - 1))
        next_lo = max(next_lo, hi + 1)
    if next_lo <= MAX_CODE_POINT:
        out.append((next_lo, MAX_CODE_POINT))
    return tuple(out)


@dataclass(frozen=True)
class RepetitionChain:
    """The helper rules of one bounded repetition ``S{m,n}``.

    ``rule_ids[0]`` is referenced from the expansion site and may still repeat ``S`` ``len(rule_ids)`` more times;
    ``rule_ids[k]`` may repeat it ``len(rule_ids) - k`` more times. ``unit`` is the repeated item's elements.
    """

    rule_ids: tuple[int, ...]
    unit: tuple[Element, ...]


@dataclass
class ParsedGrammar:
    """What :func:`parse_gbnf` returns: rules by symbol id plus naming and location data."""

    text: str
    symbol_ids: dict[str, int] = field(default_factory=dict)
    rules: list[Sequence[Element] | None] = field(default_factory=list)
    #: Offset of each rule's definition (or first reference, for undefined rules) in ``text``.
    offsets: dict[int, int] = field(default_factory=dict)
    defined: set[int] = field(default_factory=set)
    generated: set[int] = field(default_factory=set)
    chains: list[RepetitionChain] = field(default_factory=list)
    #: Repetition weight (product of nested bounded repetition maxima) of each generated group rule.
    weights: dict[int, int] = field(default_factory=dict)
    element_count: int = 0

    def name_of(self, symbol_id: int) -> str:
        for name, sid in self.symbol_ids.items():
            if sid == symbol_id:
                return name
        raise KeyError(symbol_id)
