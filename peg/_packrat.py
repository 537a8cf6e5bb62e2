# cython: annotation_typing=False
"""The packrat machine: an explicit-stack interpreter of a compiled program, resumable across stream feeds.

Design (why streaming costs what is new):

* **Explicit, persistent stack.** Each frame is an immutable tuple ``(op, start, cur, i, acc, t0, parent)``
  linked to its parent, so there is no Python recursion per nesting level and the whole machine state is a
  couple of references: saving it is O(1).
* **Packrat memo.** A composite op's result is memoised by ``(op, start)`` when a repetition or a rule lies under
  it (``Op.memo``): linear time on any grammar. The others span a finite tree of ops without repetition or
  recursion, so recomputing one where it is entered again costs a bounded number of steps, as a leaf (never
  memoised) does: most of a feed's ops (a marker, a tagged value), whose memo entries were never read again.
* **End-of-input touches.** The only thing that can change when text is appended is a decision that looked at
  the end of the input (a literal cut off, ``until`` still searching, a repetition that stopped there, ...).
  The machine counts such *touches*. A memo entry whose computation touched nothing is valid forever and goes
  to the stable memo; the others are kept for this run only.
* **Resume point.** At the first touch of a run the machine saves its state (the pending leaf call with the
  leaf's own scan state, or the result being delivered to a repetition). Everything executed before that
  moment is independent of the text after the end, so the next feed restarts *there*, with the longer text,
  instead of at the root. A scanning leaf (``until``, JSON) continues its scan where it stopped. A feed thus
  costs the new text plus the unwinding of the live path, not the whole output. A run that never touched
  the end has a final result: more text cannot change it.
* **Out of the cyclic collector's sight** (compiled): the nodes, their children, memo results, the ropes in them
  and snapshots cannot be in a reference cycle, so they are untracked as they are made (see ``peg/_compiled.py``):
  a long stream's memo does not grow the collector's work, which otherwise grew with the output.
* **Unwinding in one go.** "Need more input" goes unchanged from a leaf to the root: ``peg/_unwind.py`` unwinds
  the stack by a plan, which the machine caches with its stack (``plan*`` fields; ``_unwind`` never sees them).
"""

from __future__ import annotations

from typing import Any

from . import _compiled
from ._compile import (
    COMPOSITE,
    K_ANY,
    K_ATOMIC,
    K_CHARS,
    K_CHOICE,
    K_END,
    K_EPS,
    K_JSON,
    K_LIT,
    K_PEEK,
    K_REP,
    K_RULE,
    K_SEQ,
    K_SPACE,
    K_TAG,
    K_UNTIL,
    Op,
    Program,
)
from ._json import scan_json
from ._trace import Tracer
from ._unwind import ACC_STEP, DROP_STEP, NODE_STEP, Rope, fail_nodes, flatten, flatten_cached, more_plan, unwind_more
from .ast import AstNode, Source, make_node

__all__ = [
    "ACC_STEP",
    "BEGIN",
    "CALL_MODE",
    "DROP_STEP",
    "FAIL",
    "MORE",
    "NODE_STEP",
    "NO_BAD_OFFSET",
    "SUCCESS",
    "Machine",
    "Snapshot",
    "Tracer",
    "run_end",
]

SUCCESS, FAIL, MORE = 0, 1, 2
# The statuses again under private names, which peg/_packrat.pxd makes C constants for the compiled loop.
_SUCCESS, _FAIL, _MORE = SUCCESS, FAIL, MORE
_CALL, _RET = 0, 1
_BEGIN = -1  # the status delivered to a frame that was just pushed
BEGIN = _BEGIN  # (for peg._growth, which reads a snapshot's delivered status)
_START = (_BEGIN, -1, None)
_NO = object()  # "this leaf did not touch the end of the input"
_SCANNERS = (K_UNTIL, K_JSON)  # leaves that resume a scan where the previous feed stopped
CALL_MODE = _CALL  # (for peg._growth: a snapshot entering a leaf; the plans' step kinds come from peg._unwind)
Result = tuple[int, int, Rope]  # (status, end, nodes): the nodes are a rope (see peg/_unwind.py)

_COMPILED = _compiled.COMPILED  # (a C constant once compiled: the pure path reads one global where it is checked)

#: An offset beyond any text: "no undecodable character seen" (``Machine.bad``).
NO_BAD_OFFSET = 1 << 62


class Snapshot:
    """Where a streaming parse resumes when more text arrives: the machine's registers at the first leaf that
    looked at the end of the input.

    Compiled, the machine's snapshots are not tracked by the cyclic garbage collector (see peg/_compiled.py): no
    reference cycle can pass through one, because nothing it holds — ops (which hold combinators, their compiled
    children and caches of ops and patterns), frames (tuples of ops, offsets and ropes of nodes), results, scan
    states and frozensets of strings — ever refers to a snapshot or to the machine that holds it."""

    __slots__ = (
        "deliver", "fail_expected", "fail_pos", "fail_stack", "mode", "op", "pos", "resume", "stack", "touches",
    )  # fmt: skip

    def __init__(
        self,
        mode: int,
        op: Any,
        pos: int,
        resume: Any,
        deliver: Any,
        stack: Any,
        touches: int,
        fail_pos: int,
        fail_expected: frozenset[str],
        fail_stack: Any,
    ) -> None:
        self.mode = mode  # _CALL (entering ``op``) or _RET (delivering ``deliver`` to the frame on ``stack``)
        self.op = op  # the Op being entered
        self.pos = pos
        self.resume = resume  # the leaf scanner's resume state (until / JSON), or None
        self.deliver = deliver  # the result to deliver in _RET mode
        self.stack = stack  # the frame stack: a linked list of frames (None at the root)
        self.touches = touches  # how many leaves have looked at the end of the input so far
        self.fail_pos = fail_pos  # the furthest failure so far ...
        self.fail_expected = fail_expected  # ... what was expected there ...
        self.fail_stack = fail_stack  # ... and the frame stack at that failure (for the nodes of a failed parse)

    def resumed(self, resume: Any) -> Snapshot:
        """This snapshot with the leaf scanner's resume state ``resume``. O(1) (once per feed in a long text: made
        field by field, which compiled skips the constructor's argument parsing)."""
        snap = Snapshot.__new__(Snapshot)
        snap.mode, snap.op, snap.pos, snap.resume, snap.deliver = self.mode, self.op, self.pos, resume, self.deliver
        snap.stack, snap.touches, snap.fail_pos = self.stack, self.touches, self.fail_pos
        snap.fail_expected, snap.fail_stack = self.fail_expected, self.fail_stack
        if _COMPILED:
            _compiled.untrack(snap)
        return snap


class Machine:
    """The state of one (possibly streaming) parse of a growing text by one program."""

    def __init__(self, program: Program, tracer: Tracer | None = None) -> None:
        self.program = program
        self.source = Source()  # the text, shared with the nodes (a stream grows it in place)
        self.bad = NO_BAD_OFFSET  # offset of the first undecodable character (a lone surrogate), if any
        self.memo: dict[int, Result] = {}
        self.memo_top = -1  # the largest start of a memo entry (none starts after it)
        self.tracer = tracer
        self.snapshot: Snapshot | None = _snapshot(_CALL, program.root, 0, None, None, None, 0, -1, frozenset(), None)
        self.final: tuple[Result, int, frozenset[str]] | None = None
        self.plan_stack: Any = None  # the stack whose "need more input" unwinding is cached in self.plan
        self.plan: Any = None  # (a plan of peg._unwind)
        self.plan_frames: list[Any] = []  # the frames of plan_stack, root first, and their plans (see more_plan)
        self.plans: list[Any] = []
        self.flat_cache: dict[int, tuple[Rope, tuple[AstNode, ...]]] = {}
        # After a run that needed more input where every leaf that looked at the end before the last one was a
        # space: (the last leaf, its position, its frame stack, whether such spaces came first), for peg._growth.
        self.live: tuple[Any, int, Any, bool] | None = None
        # What peg._growth derives from ``plan`` (the live path's nodes), kept while the plan stays the same object.
        self.live_nodes: Any = None

    @property
    def text(self) -> str:
        """Everything fed so far."""
        return self.source.text

    @text.setter
    def text(self, text: str) -> None:
        self.source.text = text

    def append(self, more: str) -> None:
        """Append ``more`` to the text. Amortised O(len(more)): the source holds the only reference to the text
        (nodes hold the source), so CPython's in-place concatenation grows it without copying it."""
        source = self.source
        text = source.text
        source.text = ""
        text += more
        source.text = text

    def run(self, partial: bool) -> tuple[Result, int, frozenset[str]]:
        """Run from the saved resume point over ``self.text``; return (result, furthest fail, expected).

        After a run, ``self.snapshot`` is the new resume point, or ``None`` with ``self.final`` set when the
        run never looked at the end of the input.
        """
        saved = self.snapshot
        self.live = None
        if saved is None:
            assert self.final is not None
            return self.final
        source = self.source
        text = source.text
        n = len(text)
        op = saved.op
        if partial and saved.mode == _CALL and saved.stack is not None and self.tracer is None:
            at = saved.pos
            if op.kind in _SCANNERS:
                # The common feed: resume the scanning leaf (until, JSON) that stopped at the end last time. If it
                # stops at the end again, the result is its "need more input" unwound through the same stack:
                # exactly what the loop below computes, without its set-up and dispatch.
                if op.kind == K_UNTIL:
                    got, where = _until(op, text, n, at, saved.resume, partial)
                    again = got[0] == _MORE and not at <= self.bad < got[1]
                else:
                    st, e, where, _desc = scan_json(op.jkind, text, at, saved.resume, partial)
                    again, got = st == _MORE, (st, e, None)
                if again:
                    self.snapshot = saved.resumed(where)
                    return _unwind_more(self, saved.stack, got[1], None), saved.fail_pos, saved.fail_expected
            elif op.kind == K_LIT and n - at < len(op.text) and op.text.startswith(text[at:]):
                # A marker still cut by the end: the same, and the resume point stays as it is (the loop below
                # would make an equal one); the marker is the live leaf (see ``self.live``).
                self.live = (op, at, saved.stack, False)
                return _unwind_more(self, saved.stack, n, None), saved.fail_pos, saved.fail_expected
        bad, memo, nops, tracer, memo_top = self.bad, self.memo, len(self.program.ops), self.tracer, self.memo_top
        volatile: dict[int, Result] | None = None  # (made at its first entry: most runs keep none)
        # The expected set is a frozenset, replaced (not mutated) on change: snapshots share it for free.
        mode, op, pos, rs, stack = saved.mode, saved.op, saved.pos, saved.resume, saved.stack
        touches, fpos, fexp, fstack = saved.touches, saved.fail_pos, saved.fail_expected, saved.fail_stack
        # The result being delivered, in three registers (status, end, nodes; status _BEGIN: a frame was just
        # pushed): no tuple per step. Memo entries and snapshots hold it as a tuple.
        rst, rend, rn = saved.deliver if mode == _RET else _START
        boxed_touches: Any = touches  # (the frames' copy: boxed when it changes, not per frame, once compiled)
        untracking = compiled = _COMPILED
        snap: Snapshot | None = None
        depth = 0
        flat = False
        spaces = others = 0  # the leaves that looked at the end: spaces, and the others
        while True:
            if mode == _CALL:
                k = op.kind
                if k >= COMPOSITE:
                    # No memo entry starts after ``memo_top``: a call there (most calls of a feed: new text) looks
                    # up nothing, unless this run has kept entries that looked at the end.
                    hit = None
                    if op.memo and (pos <= memo_top or volatile is not None):
                        key = pos * nops + op.idx
                        if pos <= memo_top:
                            hit = memo.get(key)
                        if hit is None and volatile is not None:
                            hit = volatile.get(key)
                            if hit is not None:
                                touches += 1  # reusing a result that looked at the end counts as looking
                                boxed_touches = touches
                    if hit is None:
                        boxed_pos = pos  # (boxed once for both fields, once compiled)
                        stack = (op, boxed_pos, boxed_pos, 0, None, boxed_touches, stack)
                        rst, rn = _BEGIN, None
                        if tracer is not None:
                            tracer.call(op.label, pos, depth)
                            depth += 1
                    else:
                        rst, rend, rn = hit
                        if tracer is not None:
                            tracer.memo(op.label, pos, depth, hit)
                    mode = _RET
                    continue
                # ---- leaves ----
                touched: Any = _NO
                desc = op.desc
                rn = None
                if k == K_LIT:
                    s = op.text
                    if text.startswith(s, pos):
                        rst, rend = _SUCCESS, pos + len(s)
                    elif n - pos < len(s) and s.startswith(text[pos:]):
                        touched = None
                        if partial:
                            rst, rend = _MORE, n
                        else:
                            rst, rend = _FAIL, pos
                    else:
                        rst, rend = _FAIL, pos
                elif k == K_SPACE:
                    # Most runs are empty or one character: those need no regular expression.
                    e = pos
                    if e < n and op.hi != 0 and text[e] in " \t\n\r\x0b\x0c":
                        e += 1
                        if e < n and op.hi != 1 and text[e] in " \t\n\r\x0b\x0c":
                            e = op.regex.match(text, pos).end()
                    if e >= n and e - pos != op.hi:
                        touched = None  # the run may still grow
                    rst, rend = _SUCCESS, e
                elif k == K_UNTIL:
                    got, touched = _until(op, text, n, pos, rs, partial)
                    rst, rend = got[0], got[1]
                    if bad < rend and bad >= pos:
                        rst, rend, desc = _FAIL, bad, "valid UTF-8"
                elif k == K_JSON:
                    rst, rend, touched, desc = scan_json(op.jkind, text, pos, rs, partial)
                    if touched is None:
                        touched = _NO
                elif k == K_CHARS:
                    # An unbounded run resumes where it stopped; a bounded one is re-matched (it is short).
                    at = pos if rs is None or op.hi != -1 else rs
                    if compiled and op.members:  # (a loop reads a short run faster than the expression, compiled)
                        e = run_end(text, at, n, op.members, op.hi)
                    else:
                        e = op.regex.match(text, at).end()
                    count = e - pos
                    if count != op.hi and e >= n:
                        # The run may still grow: like a JSON number, it needs more input on a partial parse.
                        touched = e
                        if partial:
                            rst, rend = _MORE, n
                        else:
                            rst, rend = (_SUCCESS if count >= op.lo else _FAIL), e
                    else:
                        rst, rend = (_SUCCESS if count >= op.lo else _FAIL), e
                elif k == K_EPS:
                    rst, rend = _SUCCESS, pos
                elif k == K_END:
                    if pos >= n:
                        touched = None
                        rst, rend = _SUCCESS, pos
                    else:
                        rst, rend = _FAIL, pos
                elif k == K_ANY:
                    if pos >= n:
                        touched = None
                        if partial:
                            rst, rend = _MORE, n
                        else:
                            rst, rend = _FAIL, pos
                    elif pos == bad:
                        rst, rend, desc = _FAIL, pos, "valid UTF-8"
                    else:
                        rst, rend = _SUCCESS, pos + 1
                else:  # K_START
                    rst, rend = (_SUCCESS if pos == 0 else _FAIL), pos
                if touched is not _NO:
                    if snap is None:
                        snap = _snapshot(_CALL, op, pos, touched, None, stack, touches, fpos, fexp, fstack)
                    touches += 1
                    boxed_touches = touches
                    if k == K_SPACE:
                        spaces += 1
                    else:
                        others += 1
                if rst == _FAIL:
                    if rend > fpos:
                        fpos, fexp, fstack = rend, frozenset((desc,)), stack
                    elif rend == fpos:
                        fexp = fexp | {desc}
                if tracer is not None:
                    tracer.leaf(op.label, pos, depth, (rst, rend, rn))
                rs = None
                mode = _RET
                continue

            # ---- deliver the result (rst, rend, rn) to the frame on top of the stack ----
            if stack is None:
                break
            if rst == _MORE and tracer is None:
                # "Need more input" propagates unchanged to the root: unwind in one tight loop.
                rst, rend, rn = _unwind_more(self, stack, rend, rn)
                flat = True
                if others == 1:  # the leaf that needs more input is the only non-space leaf that looked
                    self.live = (op, pos, stack, spaces > 0)
                break
            fop, boxed_start, cur, i, acc, t0, parent = stack
            start = boxed_start  # (a C integer once compiled; the frames below reuse the boxed one)
            k = fop.kind
            done = True  # the frame returns (rst, rend, rn), as updated below
            if k == K_SEQ:
                kids = fop.kids
                if rst == _BEGIN:
                    if kids:
                        op, pos, mode, done = kids[0], start, _CALL, False
                    else:
                        rst, rend = _SUCCESS, start
                elif rst == _SUCCESS:
                    if acc is None:
                        acc = rn
                    elif rn is not None:
                        acc = (acc, rn)
                        if untracking:
                            _compiled.untrack(acc)
                    i += 1
                    if i == len(kids):
                        rn = acc
                    else:
                        # (The frame is remade with the same start and touches objects: nothing to box. A sequence
                        # never reads its ``cur`` slot, which keeps the start too.)
                        stack = (fop, boxed_start, boxed_start, i, acc, t0, parent)
                        op, pos, mode, done = kids[i], rend, _CALL, False
                elif rst == _MORE:
                    rn = rn if acc is None else (acc if rn is None else (acc, rn))
            elif k == K_CHOICE:
                if rst in (_BEGIN, _FAIL):
                    if rst != _BEGIN:
                        i += 1
                    if i < len(fop.kids):
                        if rst != _BEGIN:
                            stack = (fop, boxed_start, boxed_start, i, None, t0, parent)
                        op, pos, mode, done = fop.kids[i], start, _CALL, False
                    elif rst == _BEGIN:
                        rst, rend = _FAIL, start
            elif k == K_REP:
                stop = False
                if rst == _BEGIN:
                    count = 0
                elif rst == _SUCCESS:
                    if rn is not None:
                        if acc is None:
                            acc = rn
                        else:
                            acc = (acc, rn)
                            if untracking:
                                _compiled.untrack(acc)
                    if rend == cur:
                        # An empty match: repeating it changes nothing, so it satisfies the minimum.
                        count, stop = max(i + 1, fop.lo), True
                    else:
                        cur, count = rend, i + 1
                elif rst == _FAIL:
                    count, stop = i, True
                else:
                    count = i
                    rn = rn if acc is None else (acc if rn is None else (acc, rn))
                    stop = True  # (returns "need more input" as it is)
                if rst != _MORE:
                    if not stop and count != fop.hi:
                        if cur < n or count < fop.lo:
                            stack = (fop, boxed_start, cur, count, acc, t0, parent)
                            op, pos, mode, done = fop.kids[0], cur, _CALL, False
                        else:
                            # At the end with the minimum met: stop without trying (more text may come).
                            if snap is None:
                                snap = _snapshot(
                                    _RET, None, 0, None, (rst, rend, rn), stack, touches, fpos, fexp, fstack
                                )
                            touches += 1
                            boxed_touches = touches
                            others += 2  # a repetition stopped at the end: more text may continue it
                            stop = True
                    else:
                        stop = True
                    if stop:
                        if count >= fop.lo:
                            rst, rend, rn = _SUCCESS, cur, acc
                        else:
                            rst, rn = _FAIL, None
            elif rst == _BEGIN:
                op, pos, mode, done = fop.kids[0], start, _CALL, False
            elif k in (K_TAG, K_RULE):
                if rst != _FAIL:
                    node = make_node(fop.tag, fop.name, start, rend, rst == _MORE, flatten(rn), source)
                    rn = node
            elif k == K_ATOMIC:
                if rst == _MORE:
                    rn = None
            elif k == K_PEEK:
                if rst != _FAIL:
                    rend, rn = start, None
            else:  # K_NEGATE
                if rst == _SUCCESS:
                    rst, rend, rn = _FAIL, start, None
                    if start > fpos:
                        fpos, fexp, fstack = start, frozenset((fop.desc,)), parent
                    elif start == fpos:
                        fexp = fexp | {fop.desc}
                elif rst == _FAIL:
                    rst, rend, rn = _SUCCESS, start, None
                else:
                    rend, rn = start, None
            if done:
                if rst != _MORE and fop.memo:
                    key = start * nops + fop.idx
                    if t0 == touches:
                        entry = (rst, rend, rn)
                        if untracking:
                            _compiled.untrack(entry)  # (kept for good, and no cycle runs through a result)
                        memo[key] = entry
                        if start > memo_top:
                            memo_top = start
                    else:
                        if volatile is None:
                            volatile = {}
                        volatile[key] = (rst, rend, rn)
                if tracer is not None:
                    depth -= 1
                    tracer.ret(fop.label, start, depth, (rst, rend, rn))
                stack = parent
                mode = _RET
        self.snapshot = snap
        self.memo_top = memo_top
        if rst == _FAIL:
            # The nodes of the path that got furthest, closed as if the input ended where it failed.
            nodes = fail_nodes(fstack, fpos, source) if fstack is not None and fpos >= rend else ()
            out: tuple[Result, int, frozenset[str]] = ((_FAIL, rend, nodes), fpos, fexp)
        elif not flat:
            out = ((rst, rend, flatten_cached(self.flat_cache, rn)), fpos, fexp)
        else:  # _unwind_more returns the nodes already flattened
            out = ((rst, rend, rn), fpos, fexp)
        if snap is None:
            self.final = out
        return out


def _snapshot(
    mode: int,
    op: Any,
    pos: int,
    resume: Any,
    deliver: Any,
    stack: Any,
    touches: int,
    fail_pos: int,
    fail_expected: frozenset[str],
    fail_stack: Any,
) -> Snapshot:
    """``Snapshot(...)`` made field by field (compiled, this skips the constructor's argument parsing). O(1)."""
    snap = Snapshot.__new__(Snapshot)
    snap.mode, snap.op, snap.pos, snap.resume, snap.deliver = mode, op, pos, resume, deliver
    snap.stack, snap.touches, snap.fail_pos = stack, touches, fail_pos
    snap.fail_expected, snap.fail_stack = fail_expected, fail_stack
    if _COMPILED:
        _compiled.untrack(snap)
    return snap


def run_end(text: str, p: int, n: int, members: str, hi: int) -> int:
    """Where a run of the characters ``members`` (at most ``hi`` of them; -1: any number) starting at ``p`` ends
    (``n`` is ``len(text)``): what a character run's or a space's expression matches, read by a loop.
    O(length of the run)."""
    stop = n if hi < 0 or n - p <= hi else p + hi
    while p < stop and text[p] in members:
        p += 1
    return p


def _until(op: Op, text: str, n: int, pos: int, rs: Any, partial: bool) -> tuple[Result, Any]:
    """The ``until`` leaf ``op`` at ``pos`` (its scan resumed at ``rs`` if not None): (result, touched), where
    touched is ``_NO`` or where a later scan resumes. Cost: a C-level search of the text after the scan start."""
    delims = op.delims
    if not delims:  # rest()
        return ((_MORE, n, None) if partial else (_SUCCESS, n, None)), None
    scan = pos if rs is None else rs
    if op.finder is None:
        j = text.find(delims[0], scan)
    elif _COMPILED:
        # The leftmost start of a delimiter: a C-level search for each (the later ones bounded by the best so far),
        # cheaper than a call of the alternation's expression for the few characters a feed scans.
        j = -1
        for d in delims:
            at = text.find(d, scan) if j < 0 else text.find(d, scan, j + len(d) - 1)
            if at >= 0 and (j < 0 or at < j):
                j = at
    else:
        m = op.finder.search(text, scan)
        j = -1 if m is None else m.start()
    if j >= 0:
        return (_SUCCESS, j, None), _NO
    # No complete delimiter. Starts after `safe` might still become one when text is appended.
    safe = max(pos, n - op.maxlen + 1)
    held = n
    if _COMPILED:  # (the first characters of the delimiters, by a loop over the last few characters)
        firsts = op.members
        for at in range(safe, n):
            if text[at] in firsts and _starts_one(delims, text[at:]):
                held = at
                break
    else:
        first = op.first
        assert first is not None  # compiled for every until with delimiters
        m2 = first.search(text, safe)
        while m2 is not None:
            tail = text[m2.start() :]
            if _starts_one(delims, tail):
                held = m2.start()
                break
            m2 = first.search(text, m2.start() + 1)
    if partial:
        return (_MORE, held, None), safe
    if op.strict:
        return (_FAIL, n, None), safe
    return (_SUCCESS, n, None), safe


def _starts_one(delims: tuple[str, ...], tail: str) -> bool:
    """Whether ``tail`` is the start of one of ``delims`` (a loop, not ``any()``: no generator per call)."""
    for d in delims:  # noqa: SIM110 (any() of a generator costs a closure per call once compiled)
        if d.startswith(tail):
            return True
    return False


def _unwind_more(machine: Machine, stack: Any, end: int, rope: Rope) -> tuple[int, int, tuple[AstNode, ...]]:
    """The root result (nodes flattened) when "need more input" ending at ``end`` with the nodes ``rope`` is
    delivered to ``stack``; the plan is cached with its stack, so feeds inside one leaf just rerun it (peg._unwind)."""
    if machine.plan_stack is not stack:
        machine.plan = more_plan(stack, machine.flat_cache, machine.plan_frames, machine.plans)
        machine.plan_stack = stack
    end, inner = unwind_more(machine.plan, end, rope, machine.flat_cache, machine.source)
    return (_MORE, end, inner)
