"""Boolean combinations of key languages (patterns and literal names) as GBNF, through one small DFA.

Object keys in JSON Schema are classified by several regular languages at once: the ``patternProperties``
patterns a key matches, whether it is a listed property, whether it satisfies ``propertyNames``. A grammar
needs, for each class, the language "matches exactly these patterns, is not listed, ...", which involves
complements. :func:`build_key_dfa` runs the subset construction over all the languages together (a
*component* each); every DFA state knows which components accept there, so any class is the set of strings
ending in a state whose component set satisfies a predicate. :func:`emit_keys` writes that language as GBNF
rules over JSON string characters (one rule per live state).

The alphabet is code points, split into the intervals the patterns distinguish. Sizes are capped
(:data:`MAX_NFA_STATES`, :data:`MAX_DFA_STATES`); :class:`KeyDfaTooLarge` tells the caller to fall back.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import pairwise

from ..engine._native import load_core
from ._text import ANY, Charset, charset
from .regex_gbnf import RegexError, RegexNode, parse_regex, split_anchors

__all__ = ["MAX_DFA_STATES", "KeyDfa", "KeyDfaTooLarge", "build_key_dfa", "emit_keys"]

MAX_NFA_STATES = 4000
MAX_DFA_STATES = 400


class KeyDfaTooLarge(Exception):
    """The key languages need more automaton states than the caps allow."""


class _Nfa:
    def __init__(self) -> None:
        self.eps: list[list[int]] = []
        self.edges: list[list[tuple[Charset, int]]] = []
        self.final: dict[int, int] = {}  # state -> component index

    def new(self) -> int:
        if len(self.eps) >= MAX_NFA_STATES:
            raise KeyDfaTooLarge
        self.eps.append([])
        self.edges.append([])
        return len(self.eps) - 1

    def build(self, node: RegexNode, start: int) -> int:
        """Add ``node`` from ``start``; return its end state (Thompson construction, iterative per level)."""
        if node.kind == "set":
            end = self.new()
            if node.cs:
                self.edges[start].append((node.cs, end))
            return end
        if node.kind == "seq":
            cur = start
            for item in node.items:
                cur = self.build(item, cur)
            return cur
        if node.kind == "alt":
            end = self.new()
            for item in node.items:
                begin = self.new()
                self.eps[start].append(begin)
                self.eps[self.build(item, begin)].append(end)
            return end
        assert node.kind == "rep", node.kind
        inner = node.items[0]
        cur = start
        for _ in range(node.lo):
            cur = self.build(inner, cur)
        if node.hi is None:
            loop = self.new()
            self.eps[cur].append(loop)
            self.eps[self.build(inner, loop)].append(loop)
            return loop
        end = self.new()
        for _ in range(node.hi - node.lo):
            self.eps[cur].append(end)
            cur = self.build(inner, cur)
        self.eps[cur].append(end)
        return end

    def any_loop(self) -> int:
        state = self.new()
        self.edges[state].append((ANY, state))
        return state


@dataclass(frozen=True)
class KeyDfa:
    """A complete DFA over code points: ``transitions[s]`` is a list of (charset, target) with disjoint
    charsets covering every code point; ``accepts[s]`` the components that accept in state ``s``."""

    transitions: tuple[tuple[tuple[Charset, int], ...], ...]
    accepts: tuple[frozenset[int], ...]

    def run(self, text: str) -> frozenset[int]:
        """The components accepting ``text`` (cost O(len(text) × transitions per state))."""
        state = 0
        for ch in text:
            cp = ord(ch)
            for cs, target in self.transitions[state]:
                if any(lo <= cp <= hi for lo, hi in cs):
                    state = target
                    break
        return self.accepts[state]

    @cached_property
    def by_target(self) -> tuple[tuple[tuple[int, Charset], ...], ...]:
        """Per state, ``(target, characters leading there)`` in order of first appearance (computed once)."""
        out = []
        for row in self.transitions:
            grouped: dict[int, list[Charset]] = {}
            for cs, t in row:
                grouped.setdefault(t, []).append(cs)
            # (one charset is normalised already; several are merged)
            out.append(
                tuple(
                    (t, sets[0] if len(sets) == 1 else charset(r for cs in sets for r in cs))
                    for t, sets in grouped.items()
                )
            )
        return tuple(out)


def build_key_dfa(patterns: Sequence[str], names: Sequence[Sequence[str]]) -> KeyDfa:
    """The DFA of components ``patterns`` (ECMA regexes, search semantics) then ``names`` (finite sets).

    Component ``i`` is ``patterns[i]`` for i < len(patterns), then each set of literal names. Raises
    RegexError for a bad pattern and :class:`KeyDfaTooLarge` beyond the caps. Cost: O(DFA states × NFA
    states × intervals) at most, once per distinct argument (memoised: the objects of one schema often share
    their patterns and names).
    """
    built = _build_cached(tuple(patterns), tuple(tuple(group) for group in names))
    # A remembered failure is raised as a new exception: raising the cached one would attach the caller's frames
    # to it, and the cache would then keep a whole conversion (emitter, normal forms, rules) alive.
    if isinstance(built, RegexError):
        raise RegexError(built.reason, built.pattern, built.position, invalid=built.invalid)
    if isinstance(built, Exception):
        raise KeyDfaTooLarge
    return built


@lru_cache(maxsize=256)
def _build_cached(patterns: tuple[str, ...], names: tuple[tuple[str, ...], ...]) -> KeyDfa | Exception:
    try:
        return _build(patterns, names)
    except (KeyDfaTooLarge, RegexError) as exc:
        return exc


def _build(patterns: Sequence[str], names: Sequence[Sequence[str]]) -> KeyDfa:
    nfa = _Nfa()
    root = nfa.new()
    for index, pattern in enumerate(patterns):
        for bol, eol, core in split_anchors(parse_regex(pattern), pattern):
            begin = nfa.any_loop() if not bol else nfa.new()
            nfa.eps[root].append(begin)
            end = nfa.build(core, begin)
            if not eol:
                tail = nfa.any_loop()
                nfa.eps[end].append(tail)
                end = tail
            nfa.final[end] = index
    for offset, group in enumerate(names):
        index = len(patterns) + offset
        for name in group:
            cur = nfa.new()
            nfa.eps[root].append(cur)
            for ch in name:
                nxt = nfa.new()
                nfa.edges[cur].append((((ord(ch), ord(ch)),), nxt))
                cur = nxt
            nfa.final[cur] = index
    return _determinize(nfa)


def _closure(nfa: _Nfa, states: frozenset[int]) -> frozenset[int]:
    seen = set(states)
    todo = list(states)
    while todo:
        for nxt in nfa.eps[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


def _determinize(nfa: _Nfa) -> KeyDfa:
    """The subset construction (raises :class:`KeyDfaTooLarge` beyond :data:`MAX_DFA_STATES`): in C++ when the
    compiled core is built (the same states, numbering and rows), else :func:`_determinize_python`."""
    determinize = getattr(load_core(), "determinize", None)  # (None: no core, or one built before it)
    if determinize is None:
        return _determinize_python(nfa)
    finals = [-1] * len(nfa.eps)
    for state, component in nfa.final.items():
        finals[state] = component
    edges = [[(lo, hi, t) for cs, t in row for lo, hi in cs] for row in nfa.edges]
    built = determinize(nfa.eps, edges, finals, MAX_DFA_STATES)
    if built is None:
        raise KeyDfaTooLarge
    rows, accepts, by_target = built
    dfa = KeyDfa(tuple(rows), tuple(map(frozenset, accepts)))
    dfa.__dict__["by_target"] = tuple(by_target)  # (the cached property, computed in C++ the same way)
    return dfa


def _determinize_python(nfa: _Nfa) -> KeyDfa:
    """:func:`_determinize` in Python (no compiled core; the oracle of the tests)."""
    start = _closure(nfa, frozenset({0}))
    index = {start: 0}
    order = [start]
    transitions: list[tuple[tuple[Charset, int], ...]] = []
    k = 0
    while k < len(order):
        current = order[k]
        k += 1
        edges = [(cs, t) for s in current for cs, t in nfa.edges[s]]
        cuts = sorted({lo for cs, _ in edges for lo, _ in cs} | {hi + 1 for cs, _ in edges for _, hi in cs} | {0})
        # The elementary intervals between cuts, and the NFA targets of each: an edge's range covers a run of
        # consecutive intervals, found by bisection (no interval × edge product).
        bounds = [*cuts, ANY[0][1] + 1]
        if bounds[-2] > ANY[0][1]:
            bounds.pop()
        reached: list[set[int]] = [set() for _ in range(len(bounds) - 1)]
        for cs, t in edges:
            for lo, hi in cs:
                for interval in range(bisect_left(bounds, lo), bisect_left(bounds, hi + 1)):
                    reached[interval].add(t)
        # Intervals come in increasing order: each target's list is sorted, and adjacent ones are merged here,
        # so it is already a normalised charset.
        by_target: dict[frozenset[int], list[tuple[int, int]]] = {}
        for hit, (lo, nxt_lo) in zip(reached, pairwise(bounds), strict=True):
            ranges = by_target.setdefault(frozenset(hit), [])
            if ranges and ranges[-1][1] == lo - 1:
                ranges[-1] = (ranges[-1][0], nxt_lo - 1)
            else:
                ranges.append((lo, nxt_lo - 1))
        row = []
        for targets, ranges in by_target.items():
            closed = _closure(nfa, targets)
            if closed not in index:
                if len(order) >= MAX_DFA_STATES:
                    raise KeyDfaTooLarge
                index[closed] = len(order)
                order.append(closed)
            row.append((tuple(ranges), index[closed]))
        transitions.append(tuple(row))
    accepts = tuple(frozenset(nfa.final[s] for s in states if s in nfa.final) for states in order)
    return KeyDfa(tuple(transitions), accepts)


def emit_keys(
    dfa: KeyDfa,
    accept: Callable[[frozenset[int]], bool],
    char_rule: Callable[[Charset], str | None],
    new_rule: Callable[[], str],
    set_rule: Callable[[str, str], None],
) -> str | None:
    """GBNF for a JSON string (quotes included) whose decoded value ends in a state with ``accept``.

    ``char_rule(cs)`` spells one JSON character of ``cs`` (None if none); ``new_rule()`` reserves a rule
    name, ``set_rule(name, body)`` defines it. Returns None when no string qualifies. Cost: one rule per
    live state, one alternative per transition.
    """
    n = len(dfa.accepts)
    # ``accept`` asked once per distinct set of accepting components (a few, shared by hundreds of states).
    verdicts: dict[frozenset[int], bool] = {}
    accepting = [False] * n
    for s, components in enumerate(dfa.accepts):
        verdict = verdicts.get(components)
        if verdict is None:
            verdict = verdicts[components] = accept(components)
        accepting[s] = verdict
    # Live states: those from which an accepting state is reachable.
    reverse: list[list[int]] = [[] for _ in range(n)]
    for s, row in enumerate(dfa.transitions):
        for _, t in row:
            reverse[t].append(s)
    live = {s for s in range(n) if accepting[s]}
    todo = list(live)
    while todo:
        for s in reverse[todo.pop()]:
            if s not in live:
                live.add(s)
                todo.append(s)
    if 0 not in live:
        return None
    names: dict[int, str] = {}
    order = [0]
    names[0] = new_rule()
    k = 0
    while k < len(order):
        s = order[k]
        k += 1
        alts = ['"\\""'] if accepting[s] else []
        for t, chars in dfa.by_target[s]:
            if t not in live:
                continue
            rule = char_rule(chars)
            if rule is None:
                continue
            if t not in names:
                names[t] = new_rule()
                order.append(t)
            alts.append(f"{rule} {names[t]}")
        set_rule(names[s], " | ".join(alts) if alts else _NEVER)
    return f'"\\"" {names[0]}'


_NEVER = "[^\\x00-\\U0010FFFF]"
