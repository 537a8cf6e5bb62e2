# cython: annotation_typing=False
"""Unwinding "need more input": the nodes a partial parse has when a leaf stops at the end of the input.

When a leaf of the packrat machine (``_packrat.py``) needs more input, that status propagates unchanged from the
leaf to the root: each frame on the way only closes what it holds (a tag or rule makes its node, marked partial;
a sequence or repetition prepends the nodes it completed; an atomic group drops its nodes; a look-ahead ends the
path where it started). The machine does not dispatch the frames one by one for that; it hands the stack here.

Design (why a feed inside a long value costs little):

* **Ropes.** Results carry their nodes as a rope (None, an AstNode, or a pair of ropes), so sequences and
  repetitions concatenate in O(1); a rope is flattened only where a node is built (:func:`flatten`). A
  repetition's accumulator grows by one pair per item: :func:`flatten_cached` reuses the flattening of the older
  half, so a feed after thousands of items copies a tuple instead of walking the rope.
* **Plans.** A stack's unwinding is a *plan* (see ``Plan``): a linked list of steps, one per frame that does
  something, whose tails are shared as the frames' are. :func:`more_plan` plans only the frames pushed since the
  stack planned last time; the machine keeps the last plan with its stack, so consecutive feeds inside one
  scanning leaf (``until``, JSON) just run it again (:func:`run_plan`): O(tags and rules on the live path).

Why a module of its own: this is the part of the machine that needs no machine. Its functions take the plain
fields they read (the stack, the flattening cache, the plan lists, the source) and return what they make; the
machine (``_packrat.Machine``) keeps the plan cache in its own fields and calls in, in one direction only, so the
two compiled modules need no circular ``cimport`` and every call between them stays a C call.
"""

from __future__ import annotations

from typing import Any

from . import _compiled
from ._compile import K_ATOMIC, K_NEGATE, K_PEEK, K_REP, K_RULE, K_SEQ, K_TAG
from .ast import AstNode, Source, make_node

__all__ = [
    "ACC_STEP",
    "DROP_STEP",
    "LOOK_STEP",
    "NODE_STEP",
    "Plan",
    "Rope",
    "fail_nodes",
    "flatten",
    "flatten_cached",
    "more_plan",
    "run_plan",
    "unwind_more",
]

_COMPILED = _compiled.COMPILED  # (a C constant once compiled)

Rope = Any  # None | AstNode | tuple[Rope, Rope]

_NODE, _DROP, _LOOK, _ACC = range(4)
# The step kinds again under public names (peg._growth reads plans): making a node, dropping the nodes of an atomic
# group, ending the path at a look-ahead, and prepending the completed nodes of a sequence or repetition.
NODE_STEP, DROP_STEP, LOOK_STEP, ACC_STEP = _NODE, _DROP, _LOOK, _ACC
# How "need more input" unwinds through a frame stack, innermost step first: a linked list of steps
# ``(kind, what, start, rest)`` (None when empty): _ACC prepends ``what`` (flattened completed nodes), _NODE makes
# the node of the tag or rule op ``what`` starting at ``start``, _DROP drops the nodes (an open atomic group),
# _LOOK ends the path at ``start`` (a look-ahead). A frame's plan is its own step (if any) then its parent's, so
# the plans of a stack's frames share their tails as the frames do.
Plan = Any


def flatten(rope: Rope) -> tuple[AstNode, ...]:
    """The nodes of a rope in order. Cost O(size), iterative."""
    if rope is None:
        return ()
    if type(rope) is AstNode:
        return (rope,)
    pair: tuple[Rope, Rope] = rope
    if type(pair[0]) is AstNode and type(pair[1]) is AstNode:
        return pair  # (two nodes: the pair is their tuple already)
    out: list[AstNode] = []
    todo = [rope]
    while todo:
        x = todo.pop()
        if type(x) is tuple:
            todo.append(x[1])
            todo.append(x[0])
        elif x is not None:
            out.append(x)
    return tuple(out)


def flatten_cached(cache: dict[int, tuple[Rope, tuple[AstNode, ...]]], rope: Rope) -> tuple[AstNode, ...]:
    """``flatten`` for the accumulators of repetitions and sequences, which grow by one pair per item:
    ``(older, new)`` reuses the cached flattening of ``older``, so a feed after thousands of items copies a
    tuple (C speed) instead of walking the rope."""
    if type(rope) is not tuple:
        return flatten(rope)
    hit = cache.get(id(rope))
    if hit is not None and hit[0] is rope:
        return hit[1]
    older = cache.get(id(rope[0]))
    flat = older[1] + flatten(rope[1]) if older is not None and older[0] is rope[0] else flatten(rope)
    if len(cache) > 256:
        cache.clear()
    if _COMPILED:
        _compiled.untrack(flat)  # (nodes only; kept across feeds)
    cache[id(rope)] = (rope, flat)
    return flat


def more_plan(
    stack: Any, flat_cache: dict[int, tuple[Rope, tuple[AstNode, ...]]], frames: list[Any], plans: list[Plan]
) -> Plan:
    """The plan (see ``Plan``) of ``stack``. ``frames`` and ``plans`` hold the frames of the stack planned last
    time, root first, and their plans: the frames they share with ``stack`` keep theirs, and the lists are
    updated to ``stack``'s. A feed thus makes the plans of the frames pushed since the last one only (each
    sequence or repetition's completed nodes are flattened once, when its frame is first planned), plus a walk
    down the stack. Cost O(depth) pointer steps + O(new frames)."""
    depth = 0
    frame = stack
    while frame is not None:
        depth += 1
        frame = frame[6]
    known = len(frames)
    fresh: list[Any] = []  # frames without a known plan, innermost first
    frame = stack
    while depth > 0 and not (depth <= known and frames[depth - 1] is frame):
        fresh.append(frame)
        frame = frame[6]
        depth -= 1
    # Now the ``depth`` deepest frames are the known ones.
    if len(frames) > depth:
        del frames[depth:]
        del plans[depth:]
    plan: Plan = plans[depth - 1] if depth else None
    for j in range(len(fresh) - 1, -1, -1):
        frame = fresh[j]
        fop = frame[0]
        k = fop.kind
        if k in (K_SEQ, K_REP):
            acc = frame[4]
            if acc is not None:
                plan = (_ACC, flatten_cached(flat_cache, acc), 0, plan)
        elif k in (K_TAG, K_RULE):
            plan = (_NODE, fop, frame[1], plan)
        elif k == K_ATOMIC:
            plan = (_DROP, fop, frame[1], plan)
        elif k in (K_PEEK, K_NEGATE):
            plan = (_LOOK, fop, frame[1], plan)
        frames.append(frame)
        plans.append(plan)
    return plan


def fail_nodes(stack: Any, fpos: int, source: Source) -> tuple[AstNode, ...]:
    """The nodes of a failed parse: ``stack`` (the live path when the furthest failure happened) unwound as
    "need more input" at ``fpos``, i.e. what a partial parse of ``text[:fpos]`` gives along that path."""
    return run_plan(more_plan(stack, {}, [], []), fpos, (), source)[1]


def run_plan(plan: Plan, end: int, inner: tuple[AstNode, ...], source: Source) -> tuple[int, tuple[AstNode, ...]]:
    """Unwind "need more input" ending at ``end`` with the nodes ``inner`` through ``plan``: (where the root
    result ends, its nodes). Cost O(steps + nodes made)."""
    while plan is not None:
        kind, what, start, plan = plan  # (unpacking a typed tuple: no generic iteration once compiled)
        if kind == _ACC:
            inner = what + inner if inner else what
        elif kind == _NODE:
            fop = what  # (typed once compiled: its fields are read without attribute look-ups)
            inner = (make_node(fop.tag, fop.name, start, end, True, inner, source),)
        elif kind == _DROP:
            inner = ()
        else:
            end, inner = start, ()
    return end, inner


def unwind_more(
    plan: Plan, end: int, rope: Rope, flat_cache: dict[int, tuple[Rope, tuple[AstNode, ...]]], source: Source
) -> tuple[int, tuple[AstNode, ...]]:
    """The result of "need more input" ending at ``end`` with the nodes ``rope``, unwound through ``plan`` (the
    plan of the stack it is delivered to): (where the root result ends, its nodes flattened) — what the machine's
    general loop would compute, without its dispatch. Cost O(steps + nodes made), plus flattening ``rope`` (cached)."""
    inner: tuple[AstNode, ...] = () if rope is None else flatten_cached(flat_cache, rope)
    return run_plan(plan, end, inner, source)
