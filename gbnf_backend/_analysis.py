"""Whole-grammar checks run once when a grammar is built.

* every referenced rule is defined and the root exists;
* which rules can match the empty string (a fixed point, not just "has an empty alternative");
* no left recursion, direct or through rules that can be empty (the NPDA would loop forever on it);
* every rule reachable from the root can finish (a rule like ``a ::= "x" a`` can never match a finite string,
  which would make "the grammar may continue" an unkeepable promise to the token-mask layer).

All passes are iterative: grammars with tens of thousands of rules do not hit Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._elements import Element, ElementType, is_end_of_alternative
from .errors import GrammarError

__all__ = ["alternatives", "check_grammar", "nullable_rules", "reachable_rules"]

_E = ElementType


def alternatives(rule: Sequence[Element]) -> list[list[Element]]:
    """Split a rule's elements into its alternatives (without the ALT/END separators)."""
    alts: list[list[Element]] = [[]]
    for element in rule:
        if is_end_of_alternative(element):
            if element[0] == _E.END:
                break
            alts.append([])
        else:
            alts[-1].append(element)
    return alts


def nullable_rules(rules: Sequence[Sequence[Element]]) -> list[bool]:
    """Return, per rule, whether it can match the empty string. Cost O(iterations × grammar size)."""
    nullable = [False] * len(rules)
    split = [alternatives(rule) for rule in rules]
    changed = True
    while changed:
        changed = False
        for sid, alts in enumerate(split):
            if nullable[sid]:
                continue
            for alt in alts:
                if all(e[0] == _E.RULE_REF and nullable[e[1]] for e in alt):
                    nullable[sid] = True
                    changed = True
                    break
    return nullable


def productive_rules(rules: Sequence[Sequence[Element]]) -> list[bool]:
    """Return, per rule, whether it can match at least one finite string."""
    productive = [False] * len(rules)
    split = [alternatives(rule) for rule in rules]
    changed = True
    while changed:
        changed = False
        for sid, alts in enumerate(split):
            if productive[sid]:
                continue
            for alt in alts:
                if all(e[0] != _E.RULE_REF or productive[e[1]] for e in alt):
                    productive[sid] = True
                    changed = True
                    break
    return productive


def reachable_rules(rules: Sequence[Sequence[Element]], root: int) -> list[bool]:
    """Return, per rule, whether it is reachable from ``root``."""
    seen = [False] * len(rules)
    seen[root] = True
    todo = [root]
    while todo:
        sid = todo.pop()
        for kind, value in rules[sid]:
            if kind == _E.RULE_REF and not seen[value]:
                seen[value] = True
                todo.append(value)
    return seen


def _left_edges(rules: Sequence[Sequence[Element]], nullable: list[bool]) -> list[list[tuple[int, bool]]]:
    """Edges A → (B, tail): B can be the first thing A matches; ``tail`` when B ends its alternative.

    A cycle made only of tail edges is harmless: with tail calls it pushes nothing, so the automaton reaches a
    fixed point (``( [x]* )*`` is such a grammar). A cycle with a non-tail edge would grow the stack forever
    without consuming input: that is the left recursion we refuse.
    """
    edges: list[list[tuple[int, bool]]] = []
    for rule in rules:
        targets: list[tuple[int, bool]] = []
        for alt in alternatives(rule):
            for i, (kind, value) in enumerate(alt):
                if kind != _E.RULE_REF:
                    break
                targets.append((value, i == len(alt) - 1))
                if not nullable[value]:
                    break
        edges.append(targets)
    return edges


def _strongly_connected(edges: list[list[tuple[int, bool]]]) -> list[int]:
    """Return the strongly connected component index of every node (iterative Tarjan, O(V + E))."""
    n = len(edges)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    component = [-1] * n
    stack: list[int] = []
    counter = 0
    components = 0
    for start in range(n):
        if index[start] != -1:
            continue
        work: list[tuple[int, int]] = [(start, 0)]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack[start] = True
        while work:
            node, i = work[-1]
            if i < len(edges[node]):
                work[-1] = (node, i + 1)
                succ = edges[node][i][0]
                if index[succ] == -1:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack[succ] = True
                    work.append((succ, 0))
                elif on_stack[succ]:
                    low[node] = min(low[node], index[succ])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component[member] = components
                    if member == node:
                        break
                components += 1
    return component


def _left_recursive_cycle(edges: list[list[tuple[int, bool]]]) -> list[int] | None:
    """Return a cycle of leftmost references that contains a non-tail edge, or None."""
    component = _strongly_connected(edges)
    for source, targets in enumerate(edges):
        for target, tail in targets:
            if tail or component[source] != component[target]:
                continue
            # Recover a path target → source inside the component (BFS) to show the cycle.
            parents = {target: target}
            queue = [target]
            for node in queue:
                if node == source:
                    break
                for succ, _ in edges[node]:
                    if component[succ] == component[source] and succ not in parents:
                        parents[succ] = node
                        queue.append(succ)
            path = [source]
            while path[-1] != target:
                path.append(parents[path[-1]])
            path.reverse()
            return [source, *path[:-1]] if source != target else [source]
    return None


def check_grammar(
    text: str,
    rules: Sequence[Sequence[Element] | None],
    names: Sequence[str],
    offsets: dict[int, int],
    root: int,
) -> list[bool]:
    """Validate a parsed grammar; return the per-rule nullable flags.

    Raises :class:`GrammarError` (with the line and column of the rule concerned) for an undefined rule, left
    recursion, or a reachable rule that can never finish.
    """
    for sid, rule in enumerate(rules):
        if rule is None:
            raise GrammarError(f"undefined rule '{names[sid]}'", text=text, offset=offsets[sid], rule=names[sid])
    complete: list[Sequence[Element]] = [rule for rule in rules if rule is not None]
    nullable = nullable_rules(complete)
    cycle = _left_recursive_cycle(_left_edges(complete, nullable))
    if cycle is not None:
        shown = " -> ".join(names[s] for s in [*cycle, cycle[0]])
        first = cycle[0]
        raise GrammarError(f"left recursion: {shown}", text=text, offset=offsets[first], rule=names[first])
    productive = productive_rules(complete)
    reachable = reachable_rules(complete, root)
    for sid in range(len(complete)):
        if reachable[sid] and not productive[sid]:
            raise GrammarError(
                f"rule '{names[sid]}' can never finish: every alternative refers to a rule that cannot end",
                text=text,
                offset=offsets[sid],
                rule=names[sid],
            )
    return nullable
