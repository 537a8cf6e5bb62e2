# cython: annotation_typing=False
"""Marker runs: what the machine runs after a live literal, followed without the machine.

When a partial parse stops inside a literal cut by the end of the text (a marker being written) or a character
run touching it, the text that comes next is often more marker: the rest of the literal, the literals, spaces and
character runs after it. :func:`run_of` lists those items — the *run* — in the order the machine would run them,
and :func:`run_item` runs one of them over a text exactly as the machine does on a partial input: it stops
needing more input inside it (:data:`INSIDE`), fails (:data:`FAILS`), ends at an offset, or reaches what the run
does not follow (:data:`UNKNOWN`: then only the machine can say). :class:`peg._growth.Growth` takes text whose run
stops inside an item: the parse has not changed but for the live path ending later (and quiet nodes, below).
Where the end of the text decides, an item does what the machine does: a repetition that reaches it with its
minimum met stops without trying another iteration (so an optional item there is passed over).

An item is a leaf op (a literal, a space, a character run, ``end``, an ``until``: the last item of a list, whose
scan the machine's own function does), a choice ``(op, alternatives)`` (each alternative a tuple of items; the
first that does not fail decides), a repetition ``(op, iteration, done)`` (the iterations after ``done`` completed ones,
then the items after it), or a look-ahead ``(op, items)`` (``peek``: its items must match where it stands, and
consume nothing; while they need more input the live path ends where it stands).
A list that stops before the end of what it follows ends with a stop item; a *mark* ``(None, tag)`` (consuming
nothing) stands where a node with a marked tag closes (see :class:`QuietTags`).

Nodes. Items inside an open atomic group make no node until the group closes, so they are followed as they are
(``hidden``). Elsewhere a tag or rule opens a node where the machine enters it and closes it where it ends: such
an item is followed only through nodes whose tags the caller declared *quiet* (:class:`QuietTags`): a node may
open (``opening``) or close (``closing``) inside the text taken, and an atomic group may close when every tag
that can lie under it may appear (both). A chat stream declares the structural nodes of its formats that way
(a block, a call not named yet, an argument's name): text that only opens and closes them sends nothing, so it
need not be parsed now. Without quiet tags (the default) no node opens or closes inside a run.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from . import _compiled
from ._compile import (
    K_ATOMIC,
    K_CHARS,
    K_CHOICE,
    K_END,
    K_EPS,
    K_LIT,
    K_PEEK,
    K_REP,
    K_RULE,
    K_SEQ,
    K_SPACE,
    K_TAG,
    K_UNTIL,
    Op,
)
from ._packrat import MORE, _until, run_end

__all__ = [
    "CLOSES",
    "ENDS",
    "FAILS",
    "HELD",
    "INSIDE",
    "NO_QUIET",
    "OPENS",
    "SPACES",
    "UNKNOWN",
    "QuietTags",
    "repetition",
    "run_item",
    "run_of",
]

_SERIALS = itertools.count()
_COMPILED = _compiled.COMPILED


class QuietTags:
    """The tags of nodes that may open (``opening``) or close (``closing``) inside text that
    :meth:`peg.Stream.extend` takes: the caller does not watch them (see the module docstring). Rule nodes have
    the tag ``''``. ``marked``: tags that may close too, where the caller wants to know that they did — a take
    that closes such a node reports it (:meth:`peg.Growth.closed`); only closings on the way out of the live path
    and in the items after it in their sequences are followed (not inside an alternative or a repetition), nor
    inside an open atomic group. ``spans``: tags of nodes whose start and end a take reports too, for nodes that
    open inside the text taken (:meth:`peg.Growth.events`); with spans the runs go deeper — marks and spans inside
    alternatives and iterations are followed (not inside an open atomic group), and so are the items after an
    ``until`` (it ends where its delimiter starts) — and only :meth:`peg.Growth.events` reports those nested
    ones. Immutable; make one per caller and reuse it (what is derived from the grammar is memoised per
    instance)."""

    __slots__ = ("appearing", "closing", "deep", "marked", "opening", "serial", "spans")

    def __init__(
        self,
        opening: Iterable[str] = (),
        closing: Iterable[str] = (),
        marked: Iterable[str] = (),
        spans: Iterable[str] = (),
    ) -> None:
        self.opening = frozenset(opening)
        self.marked = frozenset(marked)
        self.closing = frozenset(closing) | self.marked
        self.spans = frozenset(spans)
        self.deep = bool(self.spans)
        self.appearing = self.opening & self.closing  # a node may open and close: made whole by a group's closing
        self.serial = next(_SERIALS)  # (the key of what is memoised on the ops for this instance)

    def __repr__(self) -> str:
        marked = f", marked={sorted(self.marked)!r}" if self.marked else ""
        spans = f", spans={sorted(self.spans)!r}" if self.spans else ""
        return f"QuietTags(opening={sorted(self.opening)!r}, closing={sorted(self.closing)!r}{marked}{spans})"


NO_QUIET = QuietTags()  # no node opens or closes inside a run

# What running items gives besides the offset where they end: it stops needing more input inside an item, at
# the end of the text (INSIDE) or, an ``until`` holding back the start of a delimiter, at HELD - the value; it
# fails; it reaches what is not followed.
_INSIDE, _FAILS, _UNKNOWN, _HELD = -1, -2, -3, -4  # (C constants once compiled; the public names are objects)
INSIDE, FAILS, UNKNOWN, HELD = _INSIDE, _FAILS, _UNKNOWN, _HELD
_STOP: tuple[Any, ...] = (None,)  # the end of a list that stops before the end of what it follows
# After the root's last item: the text ends there (the parse succeeded, looking at the end), or the parse fails.
_ROOT: tuple[Any, ...] = (None, None)
# What an event of a take says of a node (see run_items' ``out``): it opens, it ends (span marks: ``(None, tag,
# kind)`` where it opens and ends), or it closes and appears (a mark ``(None, tag)``).
_OPENS, _ENDS, _CLOSES = 0, 1, 2
OPENS, ENDS, CLOSES = _OPENS, _ENDS, _CLOSES
_SPACES = " \t\n\r\x0b\x0c"  # what peg.space() matches
SPACES = _SPACES
_LONGEST = 64  # items followed in one list (markers are a few)


def run_of(leaf: Any, frame: Any, hidden: bool, quiet: QuietTags) -> tuple[Any, ...]:
    """The live ``leaf`` (a literal or a character run; ``frame`` its frame stack, ``hidden`` whether it lies in
    an open atomic group) and the items the machine runs after it: the rest of the sequence that runs it, then,
    as each composite around it ends, what comes after — the rest of an enclosing sequence, nothing for a choice
    (the alternative that matches ends it), the next iterations of a repetition — until a node would close that
    is not quiet, a look-ahead, or an item that is not followed; once the root ends (quiet tags given), a last
    item that the text ends there. Without ``leaf``, the items after a repetition that stopped at the end of the
    text after an iteration (``frame``: its frame); ``leaf`` may also be the item of a repetition (see
    :func:`repetition`) that stopped there before its first (``frame``: its parent's). Cost O(depth of the frame
    stack) plus, the first time at a place, the items followed (memoised on the ops)."""
    run: list[Any] = [] if leaf is None else [leaf]
    pending: list[str] | None = None  # marked nodes around the leaf closed inside an open atomic group
    child = leaf[0] if type(leaf) is tuple else leaf
    while frame is not None:
        if len(run) >= _LONGEST:
            return tuple(run[:_LONGEST])
        fop = frame[0]
        k = fop.kind
        if k == K_SEQ:
            kids, i = fop.kids, frame[3]
            if i >= len(kids) or kids[i] is not child:
                return tuple(run)
            rest, whole = _rest_of(fop, i, hidden, quiet)
            run.extend(rest)
            if not whole:
                return tuple(run[:_LONGEST])
        elif k == K_REP:
            done = frame[3] + 1  # iterations complete once the current one is
            if fop.hi < 0 or done < fop.hi:
                run.append((fop, _iteration(fop, hidden, quiet), done))
        elif k in (K_TAG, K_RULE):
            if hidden:
                if fop.tag in quiet.marked:  # (it closes unseen, and appears with the outermost group)
                    if pending is None:
                        pending = []
                    pending.append(fop.tag)
            elif fop.tag not in quiet.closing:
                return tuple(run)  # its node would close
            elif fop.tag in quiet.marked:
                run.append((None, fop.tag))
        elif k == K_ATOMIC:
            if hidden and _outermost(frame[6]):  # the nodes made inside show when the outermost group closes
                if not _appears(fop, quiet):
                    return tuple(run)
                hidden = False
                if quiet.marked:
                    _marks_last(run, 0, tuple(pending or ()))  # (every item so far lies in the group)
        elif k != K_CHOICE:
            return tuple(run)  # a look-ahead
        child = fop
        frame = frame[6]
    if quiet is not NO_QUIET:
        # The root ends, and the text must end there too: the parse succeeds looking at the end (more text may
        # still come), its nodes closed (those on the way were quiet). Without quiet tags a take never does that.
        run.append(_ROOT)
    return tuple(run[:_LONGEST])


def _outermost(frame: Any) -> bool:
    """Whether no atomic group is open in the frames ``frame`` (and its parents). O(their number)."""
    while frame is not None:
        op = frame[0]
        if op.kind == K_ATOMIC:
            return False
        frame = frame[6]
    return True


def _rest_of(seq: Op, i: int, hidden: bool, quiet: QuietTags) -> tuple[tuple[Any, ...], bool]:
    """The items of the sequence ``seq`` after its ``i``-th, and whether all of it is followed; memoised on the op
    (``seq.lane``, by quiet tags then place), so arming the lane at the same marker again is two dict hits.
    O(1) after the first time."""
    cache = seq.lane
    if cache is None:
        cache = seq.lane = {}
    mine = cache.get(quiet.serial)
    if mine is None:
        mine = cache[quiet.serial] = {}
    key = 2 * i + hidden
    rest = mine.get(key)
    if rest is None:
        items: list[Any] = []
        whole = True
        budget = [_BUDGET]
        for kid in seq.kids[i + 1 :]:
            if not _follow(kid, items, hidden, 0, quiet, budget, True):
                whole = False
                break
        rest = mine[key] = (tuple(items), whole)
    return rest  # type: ignore[no-any-return]


_BUDGET = 512  # ops visited below one place, in all lists (a bound on nested choices)
_DEEPEST = 32  # nesting of ops followed (a chat format's call is ~12 deep below its repetition)


def repetition(rep: Op, done: int, quiet: QuietTags) -> tuple[Any, ...]:
    """The item of the repetition ``rep`` after ``done`` iterations (outside atomic groups)."""
    return (rep, _iteration(rep, False, quiet), done)


def _iteration(rep: Op, hidden: bool, quiet: QuietTags) -> tuple[Any, ...]:
    """The items of an iteration of the repetition ``rep`` (around the live leaf) as one list, ending with a stop item
    if not all of it is followed; memoised on the op (``rep.lane``)."""
    cache = rep.lane
    if cache is None:
        cache = rep.lane = {}
    key = 2 * quiet.serial + hidden
    found = cache.get(key)
    if found is None:
        found = cache[key] = _list(rep.kids[0], hidden, 0, quiet, [_BUDGET])
    return found  # type: ignore[no-any-return]


def _list(op: Op, hidden: bool, depth: int, quiet: QuietTags, budget: list[int]) -> tuple[Any, ...]:
    """The items of ``op`` (an alternative, an iteration), ending with a stop item if not all of it is followed.
    With deep quiet tags, outside an open atomic group, marks may stand in it (see ``_follow``'s ``top``)."""
    items: list[Any] = []
    if not _follow(op, items, hidden, depth, quiet, budget, quiet.deep and not hidden):
        items.append(_STOP)
    return tuple(items)


def _follow(op: Op, run: list[Any], hidden: bool, depth: int, quiet: QuietTags, budget: list[int], top: bool) -> bool:
    """Append the items of ``op`` to ``run``; False (some may be appended) where following stops: an item that is
    not a literal, space, character run, ``until`` (followed, then stops: what it ends with is not known),
    sequence, choice, repetition or empty match; a node that may not open, or close (see the module docstring),
    or a marked one that closes where its mark cannot stand (``top``: it can stand in ``run``, the run itself,
    or with deep quiet tags a list of it begun outside any open atomic group: an atomic group's marks move to
    where it closes in the list it lies in); the bounds on depth and size. A node whose tag has spans gets a
    span mark where it opens and one where it ends."""
    k = op.kind
    budget[0] -= 1  # (every op visited: the work below one place is bounded, whatever the nesting)
    if k in (K_LIT, K_SPACE, K_CHARS):
        run.append(op)
        return len(run) < _LONGEST and budget[0] > 0
    if k == K_EPS:
        return True
    if k == K_END:
        run.append(op)
        return len(run) < _LONGEST
    if depth > _DEEPEST or budget[0] <= 0:
        return False
    if k == K_SEQ:
        for kid in op.kids:  # noqa: SIM110 (any() of a generator costs a closure per call once compiled)
            if not _follow(kid, run, hidden, depth + 1, quiet, budget, top):
                return False
        return True
    if k in (K_TAG, K_RULE):
        tag = op.tag
        spans = tag in quiet.spans
        if hidden:
            if spans:
                run.append((None, tag, _OPENS))
            if not _follow(op.kids[0], run, hidden, depth + 1, quiet, budget, top):
                return False
            if spans:
                run.append((None, tag, _ENDS))
            if tag in quiet.marked:
                if not top:
                    return False  # (_marks_last moves the marks of the run itself only)
                run.append((None, tag))  # (moved to where the outermost group closes: the node appears there)
            return True
        if tag not in quiet.opening:
            return False
        if spans:
            run.append((None, tag, _OPENS))
        if not _follow(op.kids[0], run, hidden, depth + 1, quiet, budget, top):
            return False
        if spans:
            run.append((None, tag, _ENDS))
        if tag not in quiet.closing:
            return False
        if tag in quiet.marked:
            if not top:
                return False
            run.append((None, tag))
        return True
    if k == K_ATOMIC:
        begin = len(run)
        if not (_follow(op.kids[0], run, True, depth + 1, quiet, budget, top) and (hidden or _appears(op, quiet))):
            return False
        if not hidden and quiet.marked:
            _marks_last(run, begin, ())
        return True
    if k == K_CHOICE:
        alts = tuple([_list(kid, hidden, depth + 1, quiet, budget) for kid in op.kids])
        run.append((op, alts))
        return len(run) < _LONGEST
    if k == K_REP:
        run.append((op, _list(op.kids[0], hidden, depth + 1, quiet, budget), 0))
        return len(run) < _LONGEST
    if k == K_PEEK:
        run.append((op, _list(op.kids[0], hidden, depth + 1, quiet, budget)))
        return len(run) < _LONGEST
    if k == K_UNTIL:
        run.append(op)
        return quiet.deep and len(run) < _LONGEST  # (deep: it ends where its delimiter starts, and the run goes on)
    return False


def _marks_last(run: list[Any], begin: int, pending: tuple[str, ...]) -> None:
    """Move the marks among the items ``run[begin:]`` (those of an atomic group that closes after them) to its
    end, in order, followed by marks for ``pending`` (tags of nodes around the live leaf that closed in the
    group): the nodes inside the group appear when it closes. O(items moved over)."""
    marks: list[Any] = []
    i = begin
    while i < len(run):
        item = run[i]
        if type(item) is tuple and item[0] is None and len(item) == 2:
            marks.append(item)
            del run[i]
        else:
            i += 1
    run.extend(marks)
    for tag in pending:
        run.append((None, tag))


def _appears(group: Op, quiet: QuietTags) -> bool:
    """Whether every node that can lie under the atomic ``group`` (a tag or rule anywhere below it) may appear
    when it closes (open and close: ``quiet.appearing``); memoised on the op. O(ops below) the first time."""
    cache = group.lane
    if cache is None:
        cache = group.lane = {}
    hit = cache.get(quiet.serial)
    if hit is None:
        hit = cache[quiet.serial] = _tags_below(group, quiet.appearing)
    return hit  # type: ignore[no-any-return]


def _tags_below(group: Op, allowed: frozenset[str]) -> bool:
    """Whether the tag of every tag or rule op below ``group`` is in ``allowed`` (each op visited once)."""
    seen: set[int] = set()
    todo: list[Op] = list(group.kids)
    while todo:
        op = todo.pop()
        if op.idx in seen:
            continue
        seen.add(op.idx)
        if (op.kind == K_TAG or op.kind == K_RULE) and op.tag not in allowed:
            return False
        todo.extend(op.kids)
    return True


def run_items(run: tuple[Any, ...], text: str, p: int, out: list[Any] | None = None) -> int:
    """Run the items ``run`` in sequence over ``text`` from ``p`` as the machine would on a partial input: INSIDE
    if it stops needing more input inside one of them, FAILS if one fails, UNKNOWN if it reaches what is not
    followed, else where they end. ``out``: a list to append the events of the marks passed to, as
    ``(tag, OPENS | ENDS | CLOSES, offset)`` (not those of an alternative or iteration that failed, nor inside a
    look-ahead). Cost O(len(text)) per alternative tried."""
    for item in run:
        p = run_item(item, text, p, out)
        if p < 0:
            break
    return p


def run_item(item: Any, text: str, p: int, out: list[Any] | None = None) -> int:
    """``run_items`` for the one item ``item`` (see the module docstring). A failure never depends on the end of
    the text (a literal cut by it, a character run touching it, an ``until`` without its delimiter need more
    input), so an item that ends before the end of the text keeps its match when text is appended."""
    n = len(text)
    if type(item) is tuple:
        entry: tuple[Any, ...] = item
        if entry is _STOP:
            return _UNKNOWN
        if entry is _ROOT:
            return _INSIDE if p >= n else _UNKNOWN
        op = entry[0]
        if op is None:  # a mark: a node closes here (or, a span mark, opens or ends)
            if out is not None:
                out.append((entry[1], entry[2] if len(entry) == 3 else _CLOSES, p))
            return p
        kind = op.kind
        if kind == K_REP:
            return _repeat(entry, text, p, out)
        inner: tuple[Any, ...] = entry[1]
        if kind == K_PEEK:  # a look-ahead: its item matched or failed where it begins; the path ends there
            end = run_items(inner, text, p)
            if end in (_FAILS, _UNKNOWN):
                return end
            return p if end >= 0 else _HELD - p  # (needing more input: the live path ends where it begins)
        end = _FAILS  # a choice: the first alternative that does not fail decides
        for alt in inner:
            if out is None:
                end = run_items(alt, text, p)
                if end != _FAILS:
                    break
            else:
                begun = len(out)
                end = run_items(alt, text, p, out)
                if end != _FAILS:
                    break
                del out[begun:]
        return end
    op = item
    k = op.kind
    if k == K_LIT:
        s = op.text
        if text.startswith(s, p):
            return p + len(s)
        return _INSIDE if n - p < len(s) and s.startswith(text[p:]) else _FAILS
    if k == K_END:
        return p if p >= n else _FAILS  # (at the end of a partial text it succeeds: the parse may end there)
    if k == K_UNTIL:
        got = _until(op, text, n, p, None, True)[0]
        if got[0] != MORE:
            return got[1]  # (the start of the delimiter it stops at)
        return _INSIDE if got[1] >= n else _HELD - got[1]
    if k == K_SPACE:
        e = run_end(text, p, n, _SPACES, op.hi)
    elif _COMPILED and op.members:  # (a loop reads a short run faster than the expression, compiled)
        e = run_end(text, p, n, op.members, op.hi)
    else:
        e = op.regex.match(text, p).end()
    if k == K_CHARS:
        count = e - p
        if count != op.hi and e >= n:
            return _INSIDE  # the run may still grow: it needs more input
        if count < op.lo:
            return _FAILS
    return e  # a space always succeeds (greedy, bounded)


def _repeat(item: tuple[Any, ...], text: str, p: int, out: list[Any] | None) -> int:
    """A repetition item ``(op, iteration, done)``: iterations after ``done`` completed ones, as the machine runs
    them — at the end of the text with its minimum met it stops without trying (more text may come), an empty
    iteration or a failed one ends it, its maximum ends it."""
    op, iteration, done = item
    n = len(text)
    while True:
        if p >= n and done >= op.lo:
            return p
        begun = len(out) if out is not None else 0
        q = run_items(iteration, text, p, out)
        if q == _FAILS:
            if out is not None:
                del out[begun:]
            return p if done >= op.lo else _FAILS
        if q == p and out is not None and len(out) > begun:
            return _UNKNOWN  # (an empty iteration that passed marks: not followed)
        if q < 0 or q == p:
            return q
        done += 1
        p = q
        if done == op.hi:
            return p
