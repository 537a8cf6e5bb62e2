"""The unwinding of "need more input" (``peg/_unwind.py``), checked as laws: the cached flattening of a growing
rope equals the plain one, and the plan a stream's machine keeps (built incrementally, frame by frame, across
feeds) equals the plan made from scratch for the same stack — both on every feed of random chunkings."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import peg
from peg import atomic, end, json, literal, optional, peek, sequence, space, tag, until, zero_or_more
from peg._compile import compile_program
from peg._packrat import ACC_STEP, DROP_STEP, FAIL, MORE, NODE_STEP, SUCCESS, Machine
from peg._unwind import LOOK_STEP, flatten, flatten_cached, more_plan
from peg.ast import AstNode, Source, make_node

_SOURCE = Source()
_SOURCE.text = "x" * 64


def _node(k: int) -> AstNode:
    return make_node("t", "r", k, k + 1, False, (), _SOURCE)


def _leaves(rope: Any) -> list[AstNode]:
    """The nodes of a rope in order, by recursion (the reference the iterative functions must agree with)."""
    if rope is None:
        return []
    if type(rope) is AstNode:
        return [rope]
    return _leaves(rope[0]) + _leaves(rope[1])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["node", "none", "pair", "fresh"]), min_size=1, max_size=300))
def test_cached_flattening_of_a_growing_rope_equals_the_plain_one(steps: list[str]) -> None:
    # A repetition's accumulator grows as (older, new): every prefix is flattened once, as feeds do, through one
    # cache (which overflows and is cleared past 256 entries); "fresh" starts a new accumulator in the same cache.
    cache: dict[int, Any] = {}
    acc: Any = None
    keep: list[Any] = []  # (the ropes stay alive, so no id in the cache is reused for another rope)
    for k, step in enumerate(steps):
        item: Any = {"node": _node(k), "none": None, "pair": (_node(k), (None, _node(k))), "fresh": None}[step]
        acc = None if step == "fresh" else (item if acc is None else (acc, item))
        keep.append(acc)
        expected = tuple(_leaves(acc))
        assert flatten(acc) == expected
        assert flatten_cached(cache, acc) == expected
        assert flatten_cached(cache, acc) == expected  # (a hit returns the same nodes)


def _calls() -> peg.Parser:
    """A chat-like format whose stacks hold every kind of plan step: tags and rules (node), an atomic group
    (drop), a look-ahead (look) and sequences and repetitions with completed items (accumulate)."""
    args = tag("args", sequence(peek(literal("{"), implied=True), json()))
    head = atomic(sequence(literal("<call>"), space(), tag("name", until(" "))))
    call = tag("call", sequence(head, " ", args, "</call>"))
    text = tag("text", until("<call>"))
    return sequence(optional(tag("think", sequence("<t>", until("</t>"), "</t>"))), text, zero_or_more(call))


_PARSER = _calls()
_STATUS = {peg.Status.SUCCESS: SUCCESS, peg.Status.NEED_MORE_INPUT: MORE, peg.Status.FAIL: FAIL}
_OUTPUT = '<t>plan: <c>all</t>Hi <ca there<call> get {"q": [1, "a</call>", {"b": null}]}</call><call> x {}</call>'


def _kept_plan_is_fresh(machine: Machine) -> set[int]:
    """Assert that the plan a machine keeps is its stack's plan made from scratch and that its kept frames are
    that stack's, root first; return the kinds of the plan's steps."""
    stack = machine.plan_stack
    fresh = more_plan(stack, {}, [], [])
    assert machine.plan == fresh
    frames = []
    while stack is not None:
        frames.append(stack)
        stack = stack[6]
    assert len(machine.plan_frames) == len(frames) == len(machine.plans)
    assert all(kept is frame for kept, frame in zip(machine.plan_frames, reversed(frames), strict=True))
    kinds = set()
    while fresh is not None:
        kinds.add(fresh[0])
        fresh = fresh[3]
    return kinds


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(_OUTPUT)), max_size=40))
def test_a_streams_kept_plan_equals_the_plan_made_from_scratch(cuts: list[int]) -> None:
    machine = Machine(compile_program(_PARSER))
    at = 0
    for cut in [*sorted(set(cuts)), len(_OUTPUT)]:
        machine.append(_OUTPUT[at:cut])
        at = cut
        (status, end, nodes), _, _ = machine.run(True)
        partial = _PARSER.parse(_OUTPUT[:cut], partial=True)
        assert (status, end, nodes) == (_STATUS[partial.status], partial.end, partial.nodes)
        _kept_plan_is_fresh(machine)


def test_one_character_feeds_unwind_through_every_kind_of_step() -> None:
    machine = Machine(compile_program(_PARSER))
    kinds: set[int] = set()
    for ch in _OUTPUT:
        machine.append(ch)
        assert machine.run(True)[0][0] != FAIL
        kinds |= _kept_plan_is_fresh(machine)
    assert kinds == {ACC_STEP, DROP_STEP, LOOK_STEP, NODE_STEP}


def test_a_failed_parse_keeps_the_nodes_of_the_path_that_got_furthest() -> None:
    # The nodes of a failure are the furthest path's stack unwound at the failure: a partial parse of the text
    # up to there, closed as if the input ended there (the open call and its arguments are partial nodes).
    whole = sequence(_calls(), end())
    bad = '<t>x</t>Hi<call> get {"q": 1]</call>'
    failed = whole.parse(bad)
    assert failed.status is peg.Status.FAIL and failed.end == bad.index("]")
    assert failed.nodes == whole.parse(bad[: failed.end], partial=True).nodes
    assert [(node.tag, node.partial) for node in failed.walk()] == [
        ("think", False), ("text", False), ("call", True), ("name", False), ("args", True),
    ]  # fmt: skip
