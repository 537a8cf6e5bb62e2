# cython: annotation_typing=False
"""Building a parser: resolve rule references, validate the graph, and flatten it into a program of ops.

This runs once per root node (the program is cached on it). It raises :class:`GrammarError` for a dangling
``ref``, for two different rules sharing a name, and for left recursion (a rule that can reach itself without
consuming input would loop forever in a PEG parser).
"""

from __future__ import annotations

import re
from typing import Any, assert_never

from gbnf_backend import GrammarError

from . import _nodes as n
from ._charclass import CharClass

__all__ = ["Op", "Program", "collect_rules", "compile_program"]

# Op kinds. Leaves are < COMPOSITE; composites push a frame (and are memoised: see _mark_memo).
K_EPS, K_START, K_END, K_LIT, K_ANY, K_CHARS, K_SPACE, K_UNTIL, K_JSON = range(9)
COMPOSITE = 10
K_SEQ, K_CHOICE, K_REP, K_PEEK, K_NEGATE, K_ATOMIC, K_TAG, K_RULE = range(10, 18)

_KINDS: dict[type[n.Parser], int] = {
    n.Eps: K_EPS, n.Start: K_START, n.End: K_END, n.Literal: K_LIT, n.AnyChar: K_ANY, n.Chars: K_CHARS,
    n.Space: K_SPACE, n.Until: K_UNTIL, n.Json: K_JSON, n.Sequence: K_SEQ, n.Choice: K_CHOICE,
    n.Repeat: K_REP, n.Peek: K_PEEK, n.Negate: K_NEGATE, n.Atomic: K_ATOMIC, n.Tag: K_TAG, n.Rule: K_RULE,
}  # fmt: skip


class Op:
    """One node of the compiled program (what the packrat machine interprets)."""

    __slots__ = (
        "delims", "desc", "finder", "first", "hi", "idx", "jkind", "kids", "kind", "label", "lane", "lo",
        "maxlen", "members", "memo", "name", "node", "regex", "strict", "tag", "text",
    )  # fmt: skip

    def __init__(self, node: n.Parser, kind: int, idx: int) -> None:
        self.node, self.kind, self.idx = node, kind, idx
        self.kids: tuple[Op, ...] = ()
        self.lo = self.hi = self.maxlen = 0
        self.text = self.tag = self.name = self.jkind = ""
        self.delims: tuple[str, ...] = ()
        self.strict = False
        self.memo = False  # a composite whose results the machine memoises (see _mark_memo)
        self.regex: re.Pattern[str] | None = None
        # A character run of a small ASCII class: its characters (compiled, the machine reads the run with a loop
        # instead of the regular expression); an until with delimiters: their first characters; else "".
        self.members = ""
        self.finder: re.Pattern[str] | None = None
        self.first: re.Pattern[str] | None = None
        self.desc = ""
        self.label = ""
        self.lane: Any = None  # what peg._growth derives from this op, computed on first use


class Program:
    """A compiled parser: ``root`` op, every op in ``ops`` (index = ``op.idx``), rules by name."""

    __slots__ = ("ops", "root", "rules")

    def __init__(self, root: Op, ops: list[Op], rules: dict[str, n.Rule]) -> None:
        self.root, self.ops, self.rules = root, ops, rules


def collect_rules(root: n.Parser) -> dict[str, n.Rule]:
    """Every rule reachable from ``root`` by name; raises :class:`GrammarError` on conflicts or dangling refs."""
    rules: dict[str, n.Rule] = {}
    refs: set[str] = set()
    for node in root.walk():
        if isinstance(node, n.Rule):
            other = rules.setdefault(node.name, node)
            if other is not node and (repr(other.item) != repr(node.item) or other.trigger != node.trigger):
                raise GrammarError("two different rules share this name", rule=node.name)
        elif isinstance(node, n.Ref):
            refs.add(node.name)
    for name in sorted(refs - rules.keys()):
        raise GrammarError("dangling reference: no rule of this name in the parser", rule=name)
    return rules


def _target(node: n.Parser, rules: dict[str, n.Rule]) -> n.Parser:
    """What parses in place of ``node``: refs resolve to their rule, schema wrappers parse like their child."""
    while True:
        if isinstance(node, n.Ref):
            node = rules[node.name]
        elif isinstance(node, n.Schema):
            node = node.item
        else:
            return node


def compile_program(root: n.Parser) -> Program:
    """Compile (or fetch the cached compilation of) the graph under ``root``. Cost O(graph size), once."""
    cached = root._program
    if isinstance(cached, Program):
        return cached
    rules = collect_rules(root)
    ops: dict[int, Op] = {}
    order: list[n.Parser] = []
    todo = [_target(root, rules)]
    while todo:
        node = todo.pop()
        if id(node) in ops:
            continue
        ops[id(node)] = Op(node, _KINDS[type(node)], len(order))
        order.append(node)
        todo.extend(_target(c, rules) for c in node.children())
    for node in order:
        _configure(ops[id(node)], node, [ops[id(_target(c, rules))] for c in node.children()])
    program = Program(ops[id(_target(root, rules))], [ops[id(x)] for x in order], rules)
    _check_left_recursion(program)
    _mark_memo(program.ops)
    root._program = program
    return program


def _configure(op: Op, parser: n.Parser, kids: list[Op]) -> None:
    op.kids = tuple(kids)
    op.label = _label(parser)
    node = n.as_node(parser)
    match node:
        case n.Literal():
            op.text, op.desc = node.text, repr(node.text)
        case n.Chars():
            op.lo, op.hi = _bound(node.min), _bound(node.max)
            quant = "*" if node.max == -1 else f"{{0,{node.max}}}"
            op.regex = re.compile(node.cls.regex_body() + quant)
            op.desc = node.cls.gbnf()
            op.members = _members(node.cls)
        case n.Until():
            op.delims, op.strict = node.delimiters, node.strict
            op.maxlen = max((len(d) for d in node.delimiters), default=0)
            if len(node.delimiters) > 1:
                # Leftmost start wins; at one start the shortest delimiter wins (alternation tries it first).
                alts = sorted(node.delimiters, key=lambda d: (len(d), d))
                op.finder = re.compile("|".join(re.escape(d) for d in alts))
            if node.delimiters:
                op.first = re.compile("[" + "".join(sorted({re.escape(d[0]) for d in node.delimiters})) + "]")
                op.members = "".join(sorted({d[0] for d in node.delimiters}))
            op.desc = " or ".join(repr(d) for d in node.delimiters) or "end of input"
        case n.Space():
            op.hi = _bound(node.max)
            op.regex = re.compile("[ \\t\\n\\r\\x0b\\x0c]" + ("*" if node.max == -1 else f"{{0,{node.max}}}"))
        case n.Json():
            op.jkind = node.json_kind
        case n.Repeat():
            op.lo, op.hi = _bound(node.min), _bound(node.max)
        case n.Tag():
            op.tag = node.tag
        case n.Rule():
            op.name = node.name
        case n.End():
            op.desc = "end of input"
        case n.Start():
            op.desc = "start of input"
        case n.AnyChar():
            op.desc = "any character"
        case n.Negate():
            op.desc = f"not {node.item!r}"[:80]
        case n.Eps() | n.Sequence() | n.Choice() | n.Peek() | n.Atomic() | n.Schema() | n.Ref():
            pass  # structure only: the kind and the kids say everything
        case _:
            assert_never(node)


_HUGE = 1 << 62  # a count no parse reaches (offsets stay below it): larger bounds mean the same


def _members(cls: CharClass) -> str:
    """The characters of ``cls`` when it is a class of at most 64 ASCII characters (what a loop reads as fast as
    the regular expression once compiled), else ""."""
    if cls.negated or not cls.ranges or cls.ranges[-1][1] > 127 or sum(hi - lo + 1 for lo, hi in cls.ranges) > 64:
        return ""
    return "".join(chr(c) for lo, hi in cls.ranges for c in range(lo, hi + 1))


def _bound(count: int) -> int:
    """A repetition bound as the machine holds it (a C integer once compiled): ``count``, or ``_HUGE`` for a
    larger one, which no count reaches either, so the parse is the same. -1 (no bound) stays -1."""
    return min(count, _HUGE)


def _label(node: n.Parser) -> str:
    if isinstance(node, n.Rule):
        return f"rule {node.name}"
    if isinstance(node, n.Tag):
        return f"tag {node.tag}"
    if isinstance(node, n.Sequence | n.Choice):
        return f"{node.kind}/{len(node.items)}"
    text = repr(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _mark_memo(ops: list[Op]) -> None:
    """Set ``op.memo`` on the composites that are shared (entered from more than one place) or under which a
    repetition, a rule or a shared composite lies. The others span a tree of ops (no repetition, no recursion, no
    sharing): the machine recomputes one where it is entered again, as it does leaves, at a cost bounded by that
    tree, so a parse stays linear in the text with the factor full memoisation has (the size of the grammar). A
    fixpoint (cycles pass through rules, which are marked first): O(ops) per pass, a pass or two in practice."""
    parents = [0] * len(ops)
    for op in ops:
        for kid in op.kids:
            parents[kid.idx] += 1
    for op in ops:
        op.memo = op.kind == K_REP or op.kind == K_RULE or (op.kind >= COMPOSITE and parents[op.idx] > 1)
    changed = True
    while changed:
        changed = False
        for op in reversed(ops):
            if not op.memo and op.kind >= COMPOSITE and any(kid.memo for kid in op.kids):
                op.memo = changed = True


def nullable_ops(program: Program) -> list[bool]:
    """For each op, whether it can succeed without consuming input (fixpoint over recursive rules)."""
    ops = program.ops
    null = [False] * len(ops)
    changed = True
    while changed:
        changed = False
        for op in ops:
            if null[op.idx]:
                continue
            k = op.kind
            if k in (K_EPS, K_START, K_END, K_SPACE, K_UNTIL, K_PEEK, K_NEGATE):
                v = True
            elif k == K_LIT:
                v = op.text == ""
            elif k == K_CHARS:
                v = op.lo == 0
            elif k == K_JSON:
                v = op.jkind == "string_content"
            elif k == K_SEQ:
                v = all(null[c.idx] for c in op.kids)
            elif k == K_CHOICE:
                v = any(null[c.idx] for c in op.kids)
            elif k == K_REP:
                v = op.lo == 0 or null[op.kids[0].idx]
            elif k in (K_ATOMIC, K_TAG, K_RULE):
                v = null[op.kids[0].idx]
            else:
                v = False
            if v:
                null[op.idx] = changed = True
    return null


def _check_left_recursion(program: Program) -> None:
    null = nullable_ops(program)
    # Ops each op may call at its own start position.
    first: dict[int, list[Op]] = {}
    for op in program.ops:
        if op.kind == K_SEQ:
            calls = []
            for c in op.kids:
                calls.append(c)
                if not null[c.idx]:
                    break
            first[op.idx] = calls
        else:
            first[op.idx] = list(op.kids)
    state: dict[int, int] = {}  # 1 = on the current path, 2 = done
    for top in program.ops:
        if top.idx in state:
            continue
        path: list[tuple[Op, Any]] = [(top, iter(first[top.idx]))]
        state[top.idx] = 1
        while path:
            op, it = path[-1]
            nxt = next(it, None)
            if nxt is None:
                state[op.idx] = 2
                path.pop()
            elif state.get(nxt.idx) == 1:
                names = [o.name for o, _ in path if o.kind == K_RULE] or [nxt.label]
                raise GrammarError("left recursion: this rule can call itself without consuming input", rule=names[-1])
            elif nxt.idx not in state:
                state[nxt.idx] = 1
                path.append((nxt, iter(first[nxt.idx])))
