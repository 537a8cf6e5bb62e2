"""Whole-grammar checks run once when a grammar is built.

* every referenced rule is defined and the root exists;
* which rules can match the empty string (a fixed point, not just "has an empty alternative");
* no left recursion, direct or through rules that can be empty (the NPDA would loop forever on it);
* every rule reachable from the root can finish (a rule like ``a ::= "x" a`` can never match a finite string,
  which would make "the grammar may continue" an unkeepable promise to the token-mask layer).

All passes are iterative (grammars with 10^5 rules do not hit Python's recursion limit) and linear: the rules
are split into alternatives once, and the fixed points (can be empty, can finish) are worklists that visit each
reference once, where a round-robin fixed point would sweep the grammar once per rule of a dependency chain that
runs against the rule order (minutes on large schema grammars).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from ._elements import Element, ElementType
from .errors import GrammarError

if TYPE_CHECKING:
    from ._gbnf_parser import RepetitionChain

__all__ = ["alternatives", "check_grammar", "nullable_rules"]

_E = ElementType
_END = ElementType.END
_ALT = ElementType.ALT
_REF = ElementType.RULE_REF


def alternatives(rule: Sequence[Element]) -> list[list[Element]]:
    """Split a rule's elements into its alternatives (without the ALT/END separators); cost O(len(rule))."""
    alts: list[list[Element]] = []
    start = 0
    for i, element in enumerate(rule):
        kind = element[0]
        if kind in (_END, _ALT):
            alts.append(list(rule[start:i]))
            if kind == _END:
                return alts
            start = i + 1
    alts.append(list(rule[start:]))
    return alts


#: One alternative reduced to what the checks need: ``(owner rule, references with repeats, has a terminal,
#: references before its first terminal, whether those are the whole alternative)``.
_Alternative = tuple[int, list[int], bool, list[int], bool]


def _split_all(rules: Sequence[Sequence[Element]], skip: Sequence[bool] | None = None) -> list[_Alternative]:
    """Return every alternative of every rule (but those ``skip`` marks), reduced; O(grammar size)."""
    out: list[_Alternative] = []
    append = out.append
    ref_kind, alt_kind, end_kind = _REF, _ALT, _END
    for sid, rule in enumerate(rules):
        if skip is not None and skip[sid]:
            continue
        refs: list[int] = []
        lead = refs
        for kind, value in rule:
            if kind == ref_kind:
                refs.append(value)
            elif kind in (alt_kind, end_kind):
                # ``lead is refs`` while no terminal has been seen: the leading references are all of them.
                append((sid, refs, lead is not refs, lead, lead is refs))
                if kind == end_kind:
                    break
                refs = []
                lead = refs
            elif lead is refs:
                lead = refs.copy()
        else:
            append((sid, refs, lead is not refs, lead, lead is refs))
    return out


def _users(alts: list[_Alternative]) -> dict[int, list[int]]:
    """Per rule, the indexes of the alternatives referring to it (once per reference). O(grammar size)."""
    users: dict[int, list[int]] = {}
    for index, alt in enumerate(alts):
        for ref in alt[1]:
            if ref in users:
                users[ref].append(index)
            else:
                users[ref] = [index]
    return users


def _closure(
    n_rules: int,
    alts: list[_Alternative],
    *,
    ignore_terminals: bool,
    given: Sequence[bool] | None = None,
    users: dict[int, list[int]] | None = None,
) -> list[bool]:
    """Least fixed point: a rule holds when one of its alternatives has only holding references.

    With ``ignore_terminals`` an alternative's terminals do not matter (rules that can finish); without, an
    alternative with a terminal never holds (rules that can match the empty string). Worklist algorithm, each
    reference visited once: O(grammar size). Rules marked in ``given`` hold from the start; ``users`` is
    :func:`_users` of ``alts`` when the caller has it already.
    """
    holds = list(given) if given is not None else [False] * n_rules
    if users is None:
        users = _users(alts)
    todo: list[int] = []
    # Per alternative, the references still to hold (-1: never, it has a terminal that counts).
    pending = [len(refs) if ignore_terminals or not terminal else -1 for _, refs, terminal, _, _ in alts]
    for index, count in enumerate(pending):
        if count == 0:
            owner = alts[index][0]
            if not holds[owner]:
                holds[owner] = True
                todo.append(owner)
    while todo:
        sid = todo.pop()
        for index in users.get(sid, ()):
            pending[index] -= 1
            if pending[index] == 0:
                owner = alts[index][0]
                if not holds[owner]:
                    holds[owner] = True
                    todo.append(owner)
    return holds


def nullable_rules(rules: Sequence[Sequence[Element]]) -> list[bool]:
    """Return, per rule, whether it can match the empty string. Cost O(grammar size)."""
    return _closure(len(rules), _split_all(rules), ignore_terminals=False)


def _reachable(n_rules: int, alts: list[_Alternative], root: int) -> list[bool]:
    """Return, per rule, whether it is reachable from ``root`` (O(grammar size))."""
    successors: dict[int, list[int]] = {}
    for owner, refs, _terminal, _lead, _whole in alts:
        if refs:
            successors.setdefault(owner, []).extend(refs)
    seen = [False] * n_rules
    seen[root] = True
    todo = [root]
    while todo:
        for value in successors.get(todo.pop(), ()):
            if not seen[value]:
                seen[value] = True
                todo.append(value)
    return seen


def _left_edges(alts: list[_Alternative], nullable: list[bool]) -> dict[int, list[tuple[int, bool]]]:
    """Edges A → (B, tail): B can be the first thing A matches; ``tail`` when B ends its alternative.

    A cycle made only of tail edges is harmless: with tail calls it pushes nothing, so the automaton reaches a
    fixed point (``( [x]* )*`` is such a grammar). A cycle with a non-tail edge would grow the stack forever
    without consuming input: that is the left recursion we refuse. Returns the edges of the rules that have some,
    in rule order. Cost O(grammar size).
    """
    edges: dict[int, list[tuple[int, bool]]] = {}
    for owner, _refs, _terminal, lead, whole in alts:
        if not lead:
            continue
        targets = edges.setdefault(owner, [])
        last = len(lead) - 1 if whole else -1
        for i, value in enumerate(lead):
            targets.append((value, i == last))
            if not nullable[value]:
                break
    return edges


def _strongly_connected(edges: dict[int, list[tuple[int, bool]]], n: int) -> list[int]:
    """Return the strongly connected component of each of the ``n`` nodes (iterative Tarjan, O(V + E)).

    Nodes on no edge keep component -1.
    """
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    component = [-1] * n
    stack: list[int] = []
    counter = 0
    components = 0
    no_edges: list[tuple[int, bool]] = []
    for start in edges:
        if index[start] != -1:
            continue
        work: list[tuple[int, int]] = [(start, 0)]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack[start] = True
        while work:
            node, i = work[-1]
            succs = edges.get(node, no_edges)
            if i < len(succs):
                work[-1] = (node, i + 1)
                succ = succs[i][0]
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


def _left_recursive_cycle(edges: dict[int, list[tuple[int, bool]]], n: int) -> list[int] | None:
    """Return a cycle of leftmost references (among ``n`` rules) that contains a non-tail edge, or None."""
    component = _strongly_connected(edges, n)
    for source, targets in edges.items():
        for target, tail in targets:
            if tail or component[source] != component[target]:
                continue
            # Recover a path target → source inside the component (BFS) to show the cycle.
            parents = {target: target}
            queue = [target]
            for node in queue:
                if node == source:
                    break
                for succ, _ in edges.get(node, ()):
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
    chains: Sequence[RepetitionChain] = (),
) -> list[bool]:
    """Validate a parsed grammar; return the per-rule nullable flags.

    Raises :class:`GrammarError` (with the line and column of the rule concerned) for an undefined rule, left
    recursion, or a reachable rule that can never finish. Cost O(grammar size), where the inner links of the
    repetition ``chains`` (as the parser made them: ``unit next-link | ε``) count for nothing: every link can be
    empty and can finish, and a link has the same leftmost references as the outermost one, which stands for the
    whole chain in the left-recursion check (a cycle through an inner link passes through the outermost one,
    the only link referenced from outside the chain, and that one reaches the unit's references directly).
    """
    if None in rules:
        sid = list(rules).index(None)
        raise GrammarError(f"undefined rule '{names[sid]}'", text=text, offset=offsets[sid], rule=names[sid])
    complete = cast("Sequence[Sequence[Element]]", rules)
    n_rules = len(complete)
    inner: list[bool] | None = None
    if chains:
        inner = [False] * n_rules
        for chain in chains:
            for sid in chain.rule_ids[1:]:
                inner[sid] = True
    alts = _split_all(complete, inner)
    users = _users(alts)
    nullable = _closure(n_rules, alts, ignore_terminals=False, given=inner, users=users)
    cycle = _left_recursive_cycle(_left_edges(alts, nullable), n_rules)
    if cycle is not None:
        shown = " -> ".join(names[s] for s in [*cycle, cycle[0]])
        first = cycle[0]
        raise GrammarError(f"left recursion: {shown}", text=text, offset=offsets[first], rule=names[first])
    productive = _closure(n_rules, alts, ignore_terminals=True, given=inner, users=users)
    reachable = _reachable(n_rules, alts, root)
    for sid in range(len(complete)):
        if reachable[sid] and not productive[sid]:
            raise GrammarError(
                f"rule '{names[sid]}' can never finish: every alternative refers to a rule that cannot end",
                text=text,
                offset=offsets[sid],
                rule=names[sid],
            )
    return nullable
