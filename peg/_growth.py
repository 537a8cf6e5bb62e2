# cython: annotation_typing=False
"""Pure growth: text a stream can take without running the machine, because it only lengthens the live path.

Most of a model's output extends one growing text — content, reasoning, a JSON string, an XML parameter value —
that no marker the parser waits for can interrupt. After a feed whose partial result stopped *inside a text
scanner* (an ``until`` leaf or a JSON value), the result for a longer text is the same tree with the live
path's nodes ending at the new end of the text, as long as the *held* text (what the last result left out at
the end: the start of a delimiter, a dangling escape; usually nothing) followed by the new text

* for ``until``: contains no delimiter (the text before the held text holds no delimiter start, or the scan
  would have held it) and no undecodable character (a lone surrogate fails the leaf); a suffix of it that is
  the start of a delimiter is held back again;
* for a JSON value: leaves the JSON scanner, continued over it from where the machine's scan stopped (its
  resume state), still needing more input — inside a string that is one C-level match of the string body;
  the scanner's own rules say what is shown (a dangling escape, a cut literal, a number's last characters
  are held back).

The same holds inside a *literal* (a marker) cut by the end of the text, or a character run touching it: text
that continues it — through the items the machine runs next (literals, spaces, character runs, choices and
repetitions of them, a last ``until``: see :mod:`peg._runs`), opening or closing no node but those the stream's
quiet tags allow — and stops inside one of them leaves the parse as it was but for those nodes, the live path
ending later (a chat stream whose live path shows nothing then has nothing to send; it declares the nodes
whose opening and closing show nothing either). With quiet tags, ``tags`` and ``starts`` describe the live path
of the last feed. The machine records
such a leaf also when spaces before it looked at the end (``Machine.live``). When nothing but the entering of
composites (first items of sequences, first alternatives, tags, rules, atomic groups) lies between those spaces
and the leaf, the spaces lead the run (see ``_space_lead``): text starting with whitespace lengthens them and
the leaf begins later, as do the nodes that begin at it (``Growth.shifts``; ``Growth.starts`` follows them);
the machine parses that text the same way. Otherwise text that starts with a space is refused (it would
lengthen those spaces and move the leaf).

:class:`Growth` says which text qualifies and what the live path grows by (:meth:`Growth.take`), and which
nodes grow (``tags``, ``starts``, innermost first). :meth:`peg.Stream.extend` uses it to append such text in
O(its length); the machine scans it at the next feed exactly as if it had been fed then (any chunking gives
the same parse).
"""

from __future__ import annotations

import re
from typing import Any

from . import _compiled
from ._compile import (
    K_ATOMIC,
    K_CHARS,
    K_CHOICE,
    K_JSON,
    K_LIT,
    K_NEGATE,
    K_PEEK,
    K_REP,
    K_RULE,
    K_SEQ,
    K_SPACE,
    K_TAG,
    K_UNTIL,
    Op,
)
from ._json import STRING_BODY, STRING_MODE, JsonResume, scan_brackets, scan_json, string_body_end
from ._packrat import ACC_STEP, BEGIN, CALL_MODE, DROP_STEP, MORE, NODE_STEP, SUCCESS, Machine, run_end
from ._runs import CLOSES, FAILS, HELD, INSIDE, NO_QUIET, SPACES, QuietTags, repetition, run_item, run_items, run_of

__all__ = ["Growth", "growth_of"]

_NO_SURROGATE = re.compile("[^\ud800-\udfff]*")
_COMPILED = _compiled.COMPILED  # (a C constant once compiled: where it is checked, the pure path reads one global)


class Growth:
    """Text that only lengthens the live path of a partial parse: see the module docstring.

    ``tags``/``starts``: the tag ('' for a rule) and start offset of each node on the live path, innermost
    first (nodes inside an open atomic group are not shown and not listed); they end where the last result
    ended. ``held``: the text after that end (usually ''); ``literal``: whether the live leaf is a cut literal or a
    character run (a marker being written); ``shifts``: whether taken text may also move the start of the nodes
    that begin at that marker (whitespace before it lengthens the spaces that lead it; see the module docstring):
    then only their ends and starts change (``starts`` says where they begin after each take), and no node shows
    the taken text. ``crossed``: -1, or, once a take went past an ``until`` leaf's delimiter into the marker run
    after it (quiet tags with marks), how many characters of the text that take returned the leaf grew by (from
    then on the growth is that run's: ``literal``). ``version``: a count that each take changing
    :meth:`events` increases (deep quiet tags)."""

    __slots__ = (
        "_after", "_deep", "_delims", "_first", "_firsts", "_json", "_lead", "_marks", "_plain", "_recent", "_run",
        "_run_at", "_run_from", "_run_text", "_settled", "_shifting", "_spaced", "_stop", "crossed", "held", "literal",
        "shifts", "starts", "tags", "version",
    )  # fmt: skip

    def __init__(
        self,
        tags: tuple[str, ...],
        starts: tuple[int, ...],
        held: str,
        plain: re.Pattern[str],
        delims: tuple[str, ...] = (),
        first: re.Pattern[str] | None = None,
        run: tuple[Any, ...] = (),
        run_text: str = "",
        spaced: bool = False,
        firsts: tuple[str, ...] = (),
    ) -> None:
        self._set(tags, starts, held, plain, delims, first, run, run_text, spaced, firsts)

    def _set(
        self,
        tags: tuple[str, ...],
        starts: tuple[int, ...],
        held: str,
        plain: re.Pattern[str],
        delims: tuple[str, ...],
        first: re.Pattern[str] | None,
        run: tuple[Any, ...],
        run_text: str,
        spaced: bool,
        firsts: tuple[str, ...],
    ) -> None:
        """Every field, from the constructor's arguments (see ``__init__``; ``_growth`` makes one without parsing
        them)."""
        self.tags = tags
        self.starts = starts
        self.held = held
        self._plain = plain  # text it matches whole is accepted at once
        self._delims = delims  # ``until``: the delimiters, checked where ``first`` finds a start
        self._first = first
        # Their distinct first characters: ASCII text holding none of them is what ``plain`` matches whole.
        self._firsts = firsts
        # A marker being written: the live leaf (a cut literal, or a character run at the end) and the items
        # after it in its sequence that we follow (see _run_of), and the text from the leaf's start on.
        self._run = run
        self._run_text = run_text
        # Where the next take rescans the run: the first item (and its start in the run's text) whose match the
        # last scan found reaching the end of the text; the items before it ended earlier, so more text cannot
        # change them.
        self._run_from = 0
        self._run_at = 0
        self._stop = 0  # the item of the run inside which the last take stopped (see ``closed``)
        # An ``until`` whose delimiter text may cross: the leaf and the items after it (see ``_cross``), or ().
        self._after: tuple[Any, ...] = ()
        self._marks: tuple[tuple[int, str], ...] | None = None  # the run's marks: (item, tag), found when asked
        # Deep quiet tags (spans): the events of the marks the takes passed (see ``events``), as (tag, kind,
        # offset in the run's text): those of the items before ``_run_from`` (settled), and those of the items
        # from there on, as the last take found them.
        self._deep = False
        self.version = 0  # bumped by each take that changes the events
        self._settled: list[tuple[str, int, int]] = []
        self._recent: list[tuple[str, int, int]] = []
        self.crossed = -1
        # Spaces before the live leaf touched the end: text starting with whitespace would lengthen them.
        self._spaced = spaced
        self.literal = bool(run)
        self.shifts = False
        self._shifting = 0  # with ``shifts``: how many nodes (innermost first) begin where the leading spaces end
        self._lead = 0  # ... and where those spaces begin (the run's text begins there)
        self._json: _JsonScan | None = None  # a JSON value: the scan to continue

    def take(self, more: str) -> str | None:
        """If appending ``more`` only moves the end of the live path (nothing else of the parse changes), the
        text it moves over — ``held + more`` minus what is held back now (the start of a delimiter, a dangling
        escape) — and the growth then describes the longer text; else None (and nothing changes). Cost
        O(len(more)): one C-level match, or for an ``until`` chunk holding a delimiter's first character, a
        check at each such character."""
        if self._run:
            if not more:
                return more
            if self._spaced and more[0] in SPACES:
                return None
            text = self._run_text + more
            if len(text) > _LONGEST_RUN or not (more.isascii() or _NO_SURROGATE.fullmatch(more)):
                return None
            held = self.held
            shown = len(self._run_text) - len(held)  # where the live path ends now, in the run's text
            end = self._live_end(text, shown)
            if end < 0:
                return None
            self._run_text = text
            self._spaced = False
            if self._shifting:
                self._shift(text)
            if end == len(text) and not held:
                return more  # (the common take: nothing held before or after)
            self.held = text[end:]
            return text[shown:end]
        scan = self._json
        if scan is not None:
            grown = scan.take(more)
            if grown is not None:
                self.held = scan.text[scan.shown :]
            return grown
        text = self.held + more if self.held else more
        if text.isascii():  # O(1) in CPython (a flag of the string): no lone surrogate
            for first in self._firsts:  # each a C-level search: the common chunk holds none
                if first in text:
                    break
            else:
                self.held = ""
                return text
        elif self._plain.fullmatch(text) is not None:
            self.held = ""
            return text
        cut = self._cut(text)
        if cut < 0:
            return self._cross(text) if self._after else None
        self.held = text[cut:]
        return text[:cut]

    def _cross(self, text: str) -> str | None:
        """An ``until`` leaf's take of ``text`` (the held text and the new) that holds its delimiter: if the items
        after the leaf (``_after``, from quiet tags with marks: see :func:`peg._runs.run_of`) take the rest as a
        marker run would, the text moved over (``crossed``: how much of it the leaf grew by, last), the growth
        going on as that run (``literal`` True from then on; :meth:`closed` says which marked nodes closed);
        else None and nothing changes. O(len(text))."""
        run = self._after
        if len(text) > _LONGEST_RUN or not (text.isascii() or _NO_SURROGATE.fullmatch(text)):
            return None
        stop = run_item(run[0], text, 0)  # (the leaf: where its delimiter starts, as the machine scans it)
        if stop < 0:
            return None
        self._run = run
        end = self._live_end(text, stop)
        if end < 0:
            self._run = ()
            self._run_from = self._run_at = self._stop = 0
            return None
        self._after = ()
        self._run_text = text
        self.literal = True
        self.crossed = stop
        self.held = text[end:]
        return text[:end]

    def scan_state(self) -> JsonResume | None:
        """For a JSON value: the scanner's resume state after the text taken so far (absolute offsets), which
        is the state the machine reaches by scanning that text from its own resume state (so the machine
        need not scan it again); None for other leaves. O(1)."""
        scan = self._json
        if scan is None:
            return None
        resume = scan.resume
        return (resume[0], resume[1] + scan.base, resume[2], resume[3])

    def _shift(self, text: str) -> None:
        """After a take with ``shifts``: the nodes that begin where the leading spaces end (the first
        ``_shifting`` of ``starts``) begin where they end now in ``text`` (the run's text, from the spaces on).
        O(length of the spaces)."""
        first = self.starts[0]  # (they all begin at one place: nothing is consumed between)
        mark = self._lead + run_end(text, 0, len(text), SPACES, self._run[0].hi)
        if mark != first:
            count = self._shifting
            self.starts = (mark,) * count + self.starts[count:]

    def closed(self) -> tuple[str, ...]:
        """The tags of the nodes with marked tags (see :class:`peg.QuietTags`) that the text taken so far closed,
        in the order they closed (none outside a marker run; with deep quiet tags, those of :meth:`events`).
        O(items of the run)."""
        if self._deep:
            return tuple([tag for tag, kind, _ in self._settled + self._recent if kind == CLOSES])
        marks = self._marks
        if marks is None:  # (the run's marks, found once: a growth's run is set before it is asked)
            found: list[tuple[int, str]] = []
            run = self._run
            for i in range(len(run)):
                item = run[i]
                if type(item) is tuple and item[0] is None and len(item) == 2 and item[1] is not None:
                    found.append((i, item[1]))
            marks = self._marks = tuple(found)
        stop = self._stop
        tags: list[str] = []
        for at, tag in marks:
            if at >= stop:
                break
            tags.append(tag)
        return tuple(tags)

    def events(self) -> list[tuple[str, int, int]]:
        """With deep quiet tags (``QuietTags(spans=...)``): what the text taken so far did to the nodes with marked
        tags or spans, in the order the machine runs into it, as ``(tag, kind, offset)`` with the offset in
        :meth:`run_text`: ``kind`` is ``peg.OPENS`` or ``peg.ENDS`` (a node with a span opens or ends there; nodes
        that open inside the text taken) or ``peg.CLOSES`` (a node with a marked tag closes and appears there;
        inside an atomic group, where the outermost group closes). Events inside an alternative or an iteration
        still being written may be replaced by the next take's. Empty without deep quiet tags. O(events)."""
        return self._settled + self._recent

    def run_text(self) -> str:
        """The text of the marker run the takes go through (its events' offsets are in it): from the live leaf's
        start, or where a crossed ``until`` left the live path, to the end of the text; '' before a run. O(1)."""
        return self._run_text

    def _live_end(self, text: str, shown: int) -> int:
        """Where the live path ends (an offset in ``text``, the run's text: from the first item's start to the end
        of the input) if the machine, running the items of the run in sequence over it, stops needing more input
        inside one of them — a literal cut by the end, a character run touching it (the end of the text), an
        ``until`` without its delimiter (where it holds back the start of one) — no earlier than ``shown`` (where
        it ends now), so that nothing else of the parse changed but nodes whose tags are quiet (exactly the
        machine's rules for these items on a partial input); else -1. The scan starts at the first item whose
        match reached the end of the text last time (see ``_run_from``; the items before it ended earlier, so
        more text cannot change them), which is then updated. Cost O(the text of the items from there on), not
        O(the run's text)."""
        run, n = self._run, len(text)
        i, p = self._run_from, self._run_at
        touched, touched_at = -1, 0  # the first item whose match reaches the end, and its start
        out: list[tuple[str, int, int]] | None = [] if self._deep else None
        begun = touched_events = 0  # (deep: the events before the item, and before the touched one)
        while i < len(run):
            start = p
            if out is not None:
                begun = len(out)
            p = run_item(run[i], text, p, out)
            if p < 0:
                if p == INSIDE:
                    end = n
                elif p <= HELD:
                    end = HELD - p  # (an until holding back the start of a delimiter)
                else:
                    return -1  # it fails, or reaches what the run does not follow: parse
                if end < shown:
                    return -1  # (another alternative, holding back more than was shown: parse)
                if touched < 0:
                    touched, touched_at, touched_events = i, start, begun
                self._run_from, self._run_at = touched, touched_at
                self._stop = i
                if out is not None:  # (the items before the touched one are settled: so are their events)
                    if out != self._recent:  # (both are the events from the same item on)
                        self.version += 1
                    self._settled.extend(out[:touched_events])
                    self._recent = out[touched_events:]
                    self._narrow(text)
                return end
            if p >= n and touched < 0:
                touched, touched_at, touched_events = i, start, begun
            i += 1
        return -1  # the run ends: what follows is not followed (parse)

    def _narrow(self, text: str) -> None:
        """With deep quiet tags, after a take: if the item the next take rescans from (``_run_from``, at
        ``_run_at``) is a choice or a repetition, what the next take needs of it only. A choice becomes the items
        of the alternative that did not fail, if it has more than a couple of items (the ones before it failed,
        which more text cannot change; should that one fail later, the take fails — the machine would try the
        next, and the ordinary path parses); a repetition becomes the items of the iteration being written (after
        those that ended before the end of the text, their events settled), then the repetition after it (should
        that iteration fail later, the take fails: the machine would end the repetition there). So a take
        rescans the text of the innermost item still being written, not of the whole argument or call around
        it. O(that item's text)."""
        i, p = self._run_from, self._run_at
        run = self._run
        item = run[i]
        if type(item) is not tuple or item[0] is None:
            return
        op: Op = item[0]
        if op.kind == K_CHOICE:
            for alt in item[1]:
                if run_items(alt, text, p) != FAILS:
                    if len(alt) > _NARROWED:
                        self._run = run[:i] + alt + run[i + 1 :]
                        self._marks = None
                    return
            return
        if op.kind != K_REP:
            return
        iteration: tuple[Any, ...] = item[1]
        done: int = item[2]
        n = len(text)
        settled: list[tuple[str, int, int]] = []
        while True:
            found: list[tuple[str, int, int]] = []
            q = run_items(iteration, text, p, found)
            if q < 0 or q >= n:
                break  # (the iteration being written)
            if q == p:
                return
            settled.extend(found)
            p = q
            done += 1
            if done == op.hi:
                return
        after = ((op, iteration, done + 1),) if op.hi < 0 or done + 1 < op.hi else ()
        self._run = run[:i] + iteration + after + run[i + 1 :]
        self._run_at = p
        self._marks = None
        self._settled.extend(settled)
        self._recent = self._recent[len(settled) :]

    def _cut(self, text: str) -> int:
        """Where the scan of ``text`` (after the end of the live path) stops needing more input, if it does not
        leave the text scanner: the start of the text it holds back; else -1. Each first character of a
        delimiter is found by C-level searches (a few per take: the text is a feed's)."""
        if self._first is None or not (text.isascii() or _NO_SURROGATE.fullmatch(text)):
            return -1
        cut = len(text)
        for first in self._firsts:
            at = text.find(first)
            while at >= 0:
                cut = self._cut_at(text, at, cut)
                if cut < 0:
                    return -1
                at = text.find(first, at + 1)
        return cut

    def _cut_at(self, text: str, at: int, cut: int) -> int:
        """``_cut``'s step at a first character of a delimiter at ``at``: -1 if a delimiter starts there, else
        the held-back start so far (``cut``, or ``at`` if a delimiter the end cuts starts there, before it)."""
        n = len(text)
        for d in self._delims:
            if text.startswith(d, at):
                return -1  # a delimiter: the scan ends here
            if at < cut and n - at < len(d) and d.startswith(text[at:]):
                cut = at  # the first start of a delimiter that the end cuts: held back
        return cut


def growth_of(machine: Machine, end: int, quiet: QuietTags = NO_QUIET, succeeded: bool = False) -> Growth | None:
    """The growth of ``machine`` after a partial run that needed more input and ended at ``end``, or None
    when the run did not stop inside a text scanner or a literal, or a look-ahead lies on the live path (the
    nodes inside an open atomic group are not shown, so they are not among the growing nodes).
    Cost O(depth of the live path + held text)."""
    snap = machine.snapshot
    if snap is None or snap.stack is None or machine.tracer is not None:
        return None
    if succeeded:
        return _after_success(machine, snap, end, quiet)
    # The live leaf: the snapshot's, or (a marker after spaces that touched the end) the one the run recorded.
    live = machine.live
    if snap.mode == CALL_MODE and snap.stack is machine.plan_stack:
        op: Any = snap.op
        pos, spaced = snap.pos, False
    elif live is not None and live[2] is machine.plan_stack:
        op, pos, _stack, spaced = live  # (a scanner after such spaces would need the same care: not followed)
        if op.kind != K_LIT and op.kind != K_CHARS:
            return None
    else:
        return None
    nodes = machine.live_nodes
    if nodes is None or nodes[0] is not machine.plan:
        nodes = machine.live_nodes = _live_nodes(machine.plan)
    tags, starts, hidden, first_shown = nodes[1], nodes[2], nodes[3], nodes[4]
    if hidden < 0:
        return None  # a look-ahead on the live path
    text = machine.source.text
    held = text[end:] if end < len(text) else ""
    if op.kind == K_UNTIL:
        if not op.delims:
            return _growth(tags, starts, held, _NO_SURROGATE, (), None, (), "", False, ())
        plain, firsts = _until_lane(op)
        growth = _growth(tags, starts, held, plain, op.delims, op.first, (), "", False, firsts)
        if quiet.marked:
            after = run_of(op, machine.plan_stack, hidden > 0, quiet)
            if len(after) > 1:
                growth._after = after  # (its delimiter may be crossed: see Growth._cross)
                growth._deep = quiet.deep
        return growth
    if op.kind in (K_LIT, K_CHARS) and end == len(text) and len(text) - pos <= _LONGEST_RUN:
        # A literal cut by the end, or a character run that may still grow (both need more input).
        run = run_of(op, machine.plan_stack, hidden > 0, quiet)
        between = _space_lead(snap, op, machine.plan_stack) if spaced else -1
        if between >= 0:
            # The spaces before it lead the run: whitespace lengthens them (the leaf and the nodes that begin at
            # it begin later), as the machine, resuming at those spaces, would parse it.
            lead = snap.pos
            growth = _growth(tags, starts, "", _NO_SURROGATE, (), None, (snap.op, *run), text[lead:], False, ())
            growth.shifts = True
            growth._shifting = max(0, between - first_shown)  # (the nodes between that are shown)
            growth._lead = lead
            growth._deep = quiet.deep
            return growth
        growth = _growth(tags, starts, "", _NO_SURROGATE, (), None, run, text[pos:], spaced, ())
        growth._deep = quiet.deep
        return growth
    resume: JsonResume | None = snap.resume
    if op.kind == K_JSON and resume is not None:
        growth = _growth(tags, starts, held, _NO_SURROGATE, (), None, (), "", False, ())
        base = min(resume[1], end)
        growth._json = _JsonScan(
            op.jkind, text[base:], base, (resume[0], resume[1] - base, resume[2], resume[3]), end - base
        )
        return growth
    return None


def _after_success(machine: Machine, snap: Any, end: int, quiet: QuietTags) -> Growth | None:
    """The growth after a run that succeeded at the end of the text but looked at it (``end``: the end of the
    text), when every node around where it first looked may close and open again (they are complete now: text
    that goes on there makes them partial again), from there: spaces that touched the end (``snap`` entering
    them), or a repetition whose last iteration ended there (``snap`` delivering that iteration to it); the text
    runs what the machine runs after (see :func:`peg._runs.run_of`). None otherwise (without quiet tags: always).
    Cost O(depth of the frame stack)."""
    frame = snap.stack
    text = machine.source.text
    if quiet is NO_QUIET or end != len(text):
        return None
    leaf: Any = None
    if snap.mode == CALL_MODE:
        leaf = snap.op
        if leaf.kind != K_SPACE:
            return None
        run_text = text[snap.pos :]
    else:
        rep: Any = frame[0]
        delivered = snap.deliver
        if rep.kind != K_REP or delivered is None:
            return None
        if delivered[0] == SUCCESS:
            if delivered[1] != end or frame[2] == end:
                return None  # (an iteration that ended before the end, or an empty one: the repetition ends)
        elif delivered[0] == BEGIN and frame[2] == end:
            leaf = repetition(rep, 0, quiet)  # it stopped before its first iteration
            frame = frame[6]
        else:
            return None
        run_text = ""
    tags: list[str] = []
    starts: list[int] = []
    above = frame if leaf is not None else frame[6]
    while above is not None:
        fop = above[0]
        k = fop.kind
        if k in (K_TAG, K_RULE):
            if fop.tag not in quiet.appearing or fop.tag in quiet.marked:
                return None  # (a marked node would close again: not followed)
            tags.append(fop.tag)
            starts.append(above[1])
        elif k in (K_ATOMIC, K_PEEK, K_NEGATE):
            return None  # (hidden nodes, a look-ahead: not followed)
        above = above[6]
    run = run_of(leaf, frame, False, quiet)
    growth = _growth(tuple(tags), tuple(starts), "", _NO_SURROGATE, (), None, run, run_text, False, ())
    growth._deep = quiet.deep
    return growth


def _growth(
    tags: tuple[str, ...],
    starts: tuple[int, ...],
    held: str,
    plain: re.Pattern[str],
    delims: tuple[str, ...],
    first: re.Pattern[str] | None,
    run: tuple[Any, ...],
    run_text: str,
    spaced: bool,
    firsts: tuple[str, ...],
) -> Growth:
    """``Growth(...)`` (all arguments given), made field by field: compiled, this skips the constructor's argument
    parsing (one growth per ordinary feed). O(1)."""
    growth = Growth.__new__(Growth)
    growth._set(tags, starts, held, plain, delims, first, run, run_text, spaced, firsts)
    return growth


def _live_nodes(plan: Any) -> tuple[Any, tuple[str, ...], tuple[int, ...], int, int]:
    """``(plan, tags, starts, hidden, first_shown)`` for the unwinding plan of a live path (see peg._packrat):
    the tag and start of each node it makes, innermost first, without those inside an open atomic group;
    ``hidden`` 1 if the live leaf is inside such a group (-1 if a look-ahead lies on the path: no growth), else 0;
    ``first_shown`` the number of nodes made inside the group. Kept on the machine (``Machine.live_nodes``) while
    the plan stays the same object: feeds inside one scanner make one. O(steps of the plan)."""
    tag_list: list[str] = []
    start_list: list[int] = []
    hidden = 0
    made = first_shown = 0  # nodes on the live path, innermost first; the first of them that is shown
    step = plan
    while step is not None:
        kind, what, start, step = step  # (unpacking a typed tuple: no generic iteration once compiled)
        if kind == ACC_STEP:
            continue
        fop = what
        if kind == NODE_STEP:
            tag_list.append(fop.tag)
            start_list.append(start)
            made += 1
        elif kind == DROP_STEP:  # an atomic group still open: the nodes inside it are not shown
            tag_list.clear()
            start_list.clear()
            hidden = 1
            first_shown = made
        else:  # a look-ahead: the path above it ends where it starts
            return (plan, (), (), -1, 0)
    return (plan, tuple(tag_list), tuple(start_list), hidden, first_shown)


def _space_lead(snap: Any, leaf: Op, stack: Any) -> int:
    """Whether the spaces the resume point ``snap`` enters lead straight to the live ``leaf`` (frame stack
    ``stack``): they are an item of a sequence whose next item the leaf's path enters, and every frame between
    enters its first item (a sequence's first, a choice's first alternative, a repetition's first iteration) or
    wraps it (a tag, a rule, an atomic group). The machine, resuming at the spaces over longer text, then takes
    the same path to the leaf (a choice tries its first alternative first, and no memo entry exists that far
    on), only further on. Returns how many tags and rules lie between (their nodes begin where the spaces end),
    or -1 when the spaces do not lead to the leaf. Cost O(frames between)."""
    if snap.mode != CALL_MODE or snap.op.kind != K_SPACE or snap.stack is None:
        return -1
    seq_frame = snap.stack
    seq = seq_frame[0]
    if seq.kind != K_SEQ:
        return -1
    after = seq_frame[3] + 1
    child: Any = leaf
    frame = stack
    nodes = 0
    while frame is not None:
        fop = frame[0]
        k = fop.kind
        if fop is seq and frame[1] == seq_frame[1] and frame[6] is seq_frame[6]:
            return nodes if frame[3] == after and after < len(seq.kids) and seq.kids[after] is child else -1
        if k in (K_SEQ, K_CHOICE, K_REP):
            if frame[3] != 0 or fop.kids[0] is not child:
                return -1
        elif k in (K_TAG, K_RULE):
            nodes += 1
        elif k != K_ATOMIC:
            return -1  # a look-ahead
        child = fop
        frame = frame[6]
    return -1


_NARROWED = 2  # a choice is narrowed to an alternative of more items only (rescanning a literal or two costs less)
_LONGEST_RUN = 256  # a marker is short: longer runs take the ordinary path (each take rescans the run's text)


class _JsonScan:
    """A JSON scan continued over the text after the live path's end, as the machine would continue it.

    ``text``: the text from the offset ``base`` on; ``resume``: the scanner's resume state with positions
    relative to ``base``; ``shown``: where the live path ends, relative to ``base``. After each take the text
    is cut down to what the scan may still look at, so it stays short."""

    __slots__ = ("base", "kind", "resume", "shown", "text")

    def __init__(self, kind: str, text: str, base: int, resume: JsonResume, shown: int) -> None:
        self.kind = kind
        self.text = text
        self.base = base
        self.resume = resume
        self.shown = shown

    def take(self, more: str) -> str | None:
        """What the live path grows by when ``more`` is appended (None if the scan then stops needing more
        input: the value ends or fails). Cost: a string run is one C-level match, other characters a step of
        the scanner each."""
        resume = self.resume
        if not self.text and resume[0] == STRING_MODE and _string_body(more):
            self.base += len(more)  # the common case: inside a string, nothing held (the state moves along)
            return more
        if not self.text and more and more[0] in "[]":
            after = scan_brackets(resume, more)  # deep nesting: a run of brackets, nothing held
            if after is not None:
                self.base += len(more)
                self.resume = (after[0], 0, after[2], after[3])
                return more
        text = self.text + more
        status, end, where, _ = scan_json(self.kind, text, 0, resume, True)
        if status != MORE or where is None or end < self.shown:
            return None
        grown = text[self.shown : end]
        cut = min(where[1], end)  # the scan looks at nothing before its resume position
        self.text, self.shown, self.base = text[cut:], end - cut, self.base + cut
        self.resume = (where[0], where[1] - cut, where[2], where[3])
        return grown


def _string_body(more: str) -> bool:
    """Whether ``more`` may stand inside a JSON string as it is (no quote, no control character, whole escapes
    only, no lone surrogate): printable ASCII without a quote or backslash by three C-level checks (the common
    chunk), else the string body's pattern. O(len(more))."""
    if _COMPILED:
        return string_body_end(more, 0, len(more)) == len(more)  # (one loop, compiled)
    if more.isascii() and more.isprintable() and '"' not in more and "\\" not in more:
        return True  # (DEL, the one printable-excluded ASCII character JSON allows, takes the pattern below)
    return STRING_BODY.fullmatch(more) is not None


_PLAIN: dict[tuple[str, ...], re.Pattern[str]] = {}


def _until_lane(op: Op) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """For an ``until`` with delimiters: the pattern of text with no first character of a delimiter and no
    lone surrogate (memoised per delimiter set), and those first characters; kept on the op (``op.lane``), so
    arming the lane at the same place again costs one field read."""
    lane = op.lane
    if lane is None:
        plain = _PLAIN.get(op.delims)
        if plain is None:
            chars = "".join(sorted({re.escape(d[0]) for d in op.delims}))
            plain = _PLAIN[op.delims] = re.compile(f"[^{chars}\ud800-\udfff]*")
        lane = op.lane = (plain, tuple(sorted({d[0] for d in op.delims})))
    return lane  # type: ignore[no-any-return]
