# cython: annotation_typing=False
"""Incremental mapping for streams: map only what lies after the settled prefix of the parse.

:func:`~chat_formats.mapper.map_nodes` walks every node of a parse; a stream that called it on every feed paid
one visit per call (and per closed content or reasoning part) so far, per feed. :class:`IncrementalMapper`
keeps a *cursor*: the position, in the pre-order walk of the previous feed's nodes, up to which everything was
*settled* — closed text nodes and complete calls, in order, with nothing unsettled before them — together with
their mapped fields. On the next feed it first checks that the new parse still begins with those very nodes
(the node tuples along the cursor's path compare equal; peg reuses the node objects of everything it settled,
so that is an identity check at C speed), then maps only the nodes after the cursor. If the check fails (peg
chose another path) it maps everything again, as ``map_nodes`` would: the result is the same either way, since
a node's mapping depends only on the node (its tag, offsets, text, children) and the number of calls before it.

Texts of ``reasoning`` and ``content`` nodes are kept as *spans* ``(start, end)`` of the output: a growing
content node then costs the new characters per feed, not its whole text (see :func:`growth`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from struct import calcsize
from types import FunctionType
from typing import Any

from peg import AstNode

from ._arguments import ArgCache, OpenCall, StringCache
from .builder import CONTENT, CONTENT_JSON_STRING, REASONING, TOOL, ToolSpec
from .mapper import CallCache, IdPosition, MappedCall, json_string_text, map_call

__all__ = ["IncrementalMapper", "Piece", "Sizes", "Step", "growth", "join"]

Piece = str | tuple[int, int]
"""A piece of a text field: a string, or the span ``(start, end)`` of the output it is."""


def join(pieces: Sequence[Piece], source: str) -> str:
    """The text of ``pieces`` over the output ``source``. Cost O(length of the text)."""
    return "".join(p if type(p) is str else source[p[0] : p[1]] for p in pieces)  # type: ignore[index]


def growth(old: Sequence[Piece], new: Sequence[Piece], source: str) -> str | None:
    """What ``new`` adds to ``old`` when ``new``'s text extends ``old``'s, else None.

    The common cases cost only the new characters: ``old`` empty, or ``old`` one span that ``new`` starts by
    extending (the output only grows, so a longer span from the same start extends it). Otherwise both texts
    are built and compared."""
    if not old:
        return join(new, source) if new else ""
    if len(old) == 1 and new:
        was, now = old[0], new[0]
        if type(was) is tuple and type(now) is tuple and now[0] == was[0]:
            if now[1] < was[1]:
                return None
            grown = source[was[1] : now[1]]
            return grown + join(new[1:], source) if len(new) > 1 else grown
    before, after = join(old, source), join(new, source)
    return after[len(before) :] if after.startswith(before) else None


Sizes = tuple[int, int, int, int]
"""How many settled reasoning pieces, content pieces, calls and warnings there were at a point of the walk."""


class Step:
    """What one :meth:`IncrementalMapper.update` mapped: the fields of the nodes after the cursor it started from.

    ``rolled_back``: the previous cursor did not hold in full, and the settled pieces after the point where it
    still held were dropped (``dropped_reasoning``, ``dropped_content``; their calls are mapped again). For each
    text field, the pieces that became settled (``settled_*``) then the rest (``tail_*``); ``calls`` the calls
    after the starting cursor, the first of them with index ``first_call``, ``settled_calls`` of them settled;
    ``warnings`` those of these calls. ``changed``: False when the mapped message is the previous update's —
    nothing rolled back or settled, the same tails, the same calls (the very objects: a call mapped to the same
    fields as in the previous update is that update's object) and the same warnings — so a stream that
    applied the previous step has nothing to send (``MappedCall.end``, which no delta shows, counts too)."""

    __slots__ = (
        "calls",
        "changed",
        "dropped_content",
        "dropped_reasoning",
        "first_call",
        "rolled_back",
        "settled_calls",
        "settled_content",
        "settled_reasoning",
        "tail_content",
        "tail_reasoning",
        "warnings",
    )

    def __init__(self, first_call: int) -> None:
        # One assignment per slot: a step is made per feed.
        self.rolled_back = False
        self.changed = True
        self.first_call = first_call
        self.dropped_reasoning: list[Piece] = _NOTHING  # (lists of their own on a roll-back)
        self.dropped_content: list[Piece] = _NOTHING
        self.settled_reasoning: list[Piece] = _NOTHING  # (a list of its own from the first piece on)
        self.tail_reasoning: list[Piece] = _NOTHING
        self.settled_content: list[Piece] = _NOTHING
        self.tail_content: list[Piece] = _NOTHING
        self.calls: list[MappedCall] = []
        self.settled_calls = 0
        self.warnings: list[str] = _NOTHING


class _Frame:
    """One level of the cursor: the node tuple, the index ``k`` of its first node not wholly settled, and the
    settled sizes before each of its nodes up to ``k`` (``marks[i]``: before node ``i``), for rolling back."""

    __slots__ = ("k", "marks", "seq")

    def __init__(self, seq: tuple[AstNode, ...], sizes: Sizes) -> None:
        self.seq = seq
        self.k = 0
        self.marks: list[Sizes] = [sizes]


def _common_prefix(new: tuple[AstNode, ...], old: tuple[AstNode, ...], k: int) -> int:
    """The length of the longest common prefix of ``new`` and ``old`` (``k <= len(old)``), at most ``k``. Cost:
    when it is ``k`` (peg reuses the node objects it settled), an identity check — compiled, a ``memcmp`` of the
    two tuples' arrays of pointers, which reads no node — or, interpreted, a C-speed comparison of two slices;
    otherwise a scan back from ``k`` and one comparison."""
    if len(new) >= k:
        # Compiled, ``_memcmp`` and ``_items`` are C's memcmp and CPython's PySequence_Fast_ITEMS, cimported by
        # the .pxd (this never runs interpreted): the two arrays of item pointers compared at memory speed, no
        # node read (~0.1 ns per settled call; a loop taking a reference to each node cost ~3).
        same = _COMPILED and _memcmp(_items(new), _items(old), k * _POINTER_SIZE) == 0  # type: ignore[name-defined]  # noqa: F821
        if same or new[:k] == old[:k]:
            return k
    j = min(k, len(new))
    while j > 0 and not (new[j - 1] is old[j - 1] or new[j - 1] == old[j - 1]):
        j -= 1
    return j if new[:j] == old[:j] else 0


class IncrementalMapper:
    """The settled prefix of a stream's mapped message, and :meth:`update` to map a new partial parse.

    ``reasoning``/``content``: settled pieces; ``calls``: settled (complete) calls; ``warnings``: theirs;
    ``call_cache``: the settled calls for a final mapping (see :data:`chat_formats.mapper.CallCache`)."""

    def __init__(self, tools: Mapping[str, ToolSpec], salt: str, id_position: IdPosition) -> None:
        self.tools = tools
        self.salt = salt
        self.id_position: IdPosition = id_position
        # The cursor: one frame per level; below level 0, each frame's tuple is the children of the (container)
        # node at index ``k`` of the level above.
        self.frames: list[_Frame] = []
        self.reasoning: list[Piece] = []
        self.content: list[Piece] = []
        self.calls: list[MappedCall] = []
        self.warnings: list[str] = []
        # The settled calls by (index, start, end) with their warnings: what a final mapping of the whole output
        # finds again (see mapper.CallCache), so that it maps only the calls after them.
        self.call_cache: CallCache = {}
        self._args: ArgCache = {}  # the closed arguments of the open call, mapped once
        self._strings: StringCache = {}  # XML string values escaped so far
        self._open = OpenCall()  # what the open call's last mapping learnt (its name, id, closed arguments)
        # What the previous update mapped after its cursor (see Step.changed).
        self._last_first = 0
        self._last_calls: list[MappedCall] = []
        self._last_tails: tuple[list[Piece], list[Piece]] = (_NOTHING, _NOTHING)
        self._last_warnings: list[str] = _NOTHING
        self._last_settled_warnings = 0  # how many of them are the warnings of the calls it settled (the first)

    def _sizes(self) -> Sizes:
        return len(self.reasoning), len(self.content), len(self.calls), len(self.warnings)

    def _roll_back(self, step: Step, level: int, index: int) -> None:
        """Move the cursor back to node ``index`` of ``level``, dropping what was settled after it."""
        del self.frames[level + 1 :]
        frame = self.frames[level]
        frame.k = index
        del frame.marks[index + 1 :]
        nr, nc, ncalls, nw = frame.marks[index]
        step.rolled_back = True
        step.dropped_reasoning = self.reasoning[nr:]
        step.dropped_content = self.content[nc:]
        del self.reasoning[nr:], self.content[nc:], self.calls[ncalls:], self.warnings[nw:]
        step.first_call = ncalls

    def _check_cursor(self, nodes: tuple[AstNode, ...], step: Step) -> None:
        """Keep the cursor where ``nodes`` still begin with its settled nodes (adopting ``nodes``' tuples), or
        roll it back to where they do. Cost: C-speed comparison of the settled prefixes on the cursor's path."""
        frames = self.frames
        if not frames:
            frames.append(_Frame(nodes, self._sizes()))
            return
        seq = nodes
        last = len(frames) - 1
        for d, frame in enumerate(frames):
            k = frame.k
            if seq is not frame.seq:
                j = _common_prefix(seq, frame.seq, k)
                frame.seq = seq
                if j < k:
                    self._roll_back(step, d, j)
                    return
            if d < last:
                node = seq[k] if len(seq) > k else None
                if node is None or node.tag in _LEAVES:
                    self._roll_back(step, d, k)
                    return
                seq = node.children

    def arguments_begun(self, start: int) -> bool:
        """Whether the open call whose node starts at ``start`` was mapped, at the last update, with its arguments
        begun (``{`` and what follows: a first named argument, or JSON arguments). O(1)."""
        memo = self._open
        return memo.start == start and memo.call is not None and memo.arguments[:1] == "{"

    def arguments_written(self, start: int) -> bool:
        """Whether the open call whose node starts at ``start`` was mapped, at the last update, with JSON
        arguments written as they are (a span of the text: its arguments node; the caller knows whether it is
        closed). O(1)."""
        memo = self._open
        return memo.start == start and memo.call is not None and memo.span[0] >= 0

    def closing_text(self, start: int) -> str | None:
        """What the open call whose node starts at ``start`` gains when its node closes, if that is all its closing
        changes (it was mapped, at the last update, with XML-style arguments begun, every one closed and
        published, no required one missing, and no closer of the call closed yet): ``"}"``; else None. Closing
        the call then adds no argument and no warning: its arguments are those, closed. O(1) but for the
        required names."""
        memo = self._open
        if (
            memo.start != start
            or memo.call is None
            or memo.complete
            or memo.closer
            or memo.span[0] >= 0
            or memo.open_string[0] >= 0
            or len(memo.arguments) != len(memo.text) + 1  # (an argument's head or value not closed yet)
            or memo.arguments[:1] != "{"
        ):
            return None
        spec = memo.spec
        if spec is not None and spec.required and not memo.seen.issuperset(spec.required):
            return None  # (closing would add a warning)
        return "}"

    def string_closing(self, start: int) -> tuple[ToolSpec | None, set[str]] | None:
        """If closing the string value that the open call whose node starts at ``start`` ended with, at the last
        update (XML-style arguments), adds nothing to its mapped arguments but the closing quote — no warning
        either: its argument's name is not one of the closed arguments' —, the call's tool spec and the names of
        its arguments with that one (a new set); else None. O(arguments)."""
        memo = self._open
        if (
            memo.start != start
            or memo.call is None
            or memo.complete
            or memo.open_string[0] < 0
            or memo.open_key in memo.seen
        ):
            return None
        return (memo.spec, {*memo.seen, memo.open_key})

    def update(self, nodes: tuple[AstNode, ...], size: int) -> Step:
        """Map the partial parse ``nodes`` of a text of ``size`` characters from the cursor on; move the cursor
        past what settled: closed nodes that end before the end of the text (one that ends there may still
        grow: a repetition stopped there, an optional closer may follow).

        Cost: the nodes after the cursor, plus the cursor check (and what a roll-back makes map again)."""
        step = Step(len(self.calls))
        self._check_cursor(nodes, step)
        settled_warnings = len(self.warnings)
        frames = self.frames
        # The walk: per level a node tuple and the next index in it (two parallel stacks: no tuple per visit);
        # levels above the deepest resume after their container.
        seqs: list[tuple[AstNode, ...]] = []
        nexts: list[int] = []
        for frame in frames:
            seqs.append(frame.seq)
            nexts.append(frame.k + 1)
        nexts[-1] -= 1
        top = frames[-1]
        settling = True
        moved = False  # whether a call differs from the previous update's at its index (see Step.changed)
        index = len(self.calls)
        tools, salt, id_position = self.tools, self.salt, self.id_position
        while seqs:
            seq = seqs[-1]
            i = nexts[-1]
            if i >= len(seq):
                seqs.pop()
                nexts.pop()
                if settling and len(frames) > 1:
                    parent = frames[-2]
                    container = parent.seq[parent.k]
                    if container.partial or container.end >= size:
                        settling = False  # it may get more children: the cursor stays inside it
                    else:
                        frames.pop()
                        top = parent
                        parent.k += 1
                        parent.marks.append(self._sizes())
                continue
            nexts[-1] = i + 1
            node: AstNode = seq[i]
            tag = node.tag
            if tag in (REASONING, CONTENT):
                piece: Piece = (node.start, node.end)
            elif tag == CONTENT_JSON_STRING:
                piece = json_string_text(node.text)
            elif tag == TOOL:
                warnings: list[str] = []
                call = map_call(
                    node, tools, salt, index, id_position, False, warnings, self._args, self._strings, self._open
                )
                if call is None:
                    break  # an unpublished call: nothing after it can be published either (monotonicity)
                j = index - self._last_first
                if 0 <= j < len(self._last_calls):
                    was = self._last_calls[j]
                    # (The mapper's memo hands back the same object for the same fields; else the arguments
                    # most often differ: no call of _same_call.)
                    if call is not was and call.arguments == was.arguments:
                        call = _same_call(call, was)
                    moved = moved or call is not was
                else:
                    moved = True  # a call the previous update did not map
                index += 1
                step.calls.append(call)
                if warnings:
                    step.warnings = step.warnings + warnings
                if settling and call.complete and not node.partial and node.end < size:
                    self.calls.append(call)
                    self.call_cache[(index - 1, node.start, node.end)] = (call, tuple(warnings))
                    if warnings:
                        self.warnings.extend(warnings)
                    step.settled_calls += 1
                    top.k += 1
                    top.marks.append(self._sizes())
                else:
                    settling = False
                continue
            else:
                seqs.append(node.children)
                nexts.append(0)
                if settling:
                    top = _Frame(node.children, self._sizes())
                    frames.append(top)
                continue
            settle = settling and not node.partial and node.end < size
            # (A step's piece lists are the shared empty list until their first piece.)
            if tag == REASONING:
                if settle:
                    if step.settled_reasoning is _NOTHING:
                        step.settled_reasoning = []
                    step.settled_reasoning.append(piece)
                    self.reasoning.append(piece)
                else:
                    if step.tail_reasoning is _NOTHING:
                        step.tail_reasoning = []
                    step.tail_reasoning.append(piece)
            elif settle:
                if step.settled_content is _NOTHING:
                    step.settled_content = []
                step.settled_content.append(piece)
                self.content.append(piece)
            else:
                if step.tail_content is _NOTHING:
                    step.tail_content = []
                step.tail_content.append(piece)
            if settle:
                top.k += 1
                top.marks.append(self._sizes())
            else:
                settling = False
        step.changed = moved or self._changed(step)
        self._last_first = step.first_call
        self._last_calls = step.calls
        self._last_tails = (step.tail_reasoning, step.tail_content)
        self._last_warnings = step.warnings
        self._last_settled_warnings = len(self.warnings) - settled_warnings
        return step

    def _changed(self, step: Step) -> bool:
        """Whether the message ``step`` maps differs from the previous update's (see :attr:`Step.changed`)."""
        if step.rolled_back or step.settled_calls or step.settled_reasoning or step.settled_content:
            return True
        # The previous update's calls: those it settled (now before the cursor), then those it did not.
        last = self._last_calls
        offset = step.first_call - self._last_first
        calls = step.calls
        if offset < 0 or len(last) - offset != len(calls):
            return True
        # A loop, not any(generator): compiled, no generator object per feed.
        for i in range(len(calls)):
            if calls[i] is not last[offset + i]:
                return True
        tails = self._last_tails
        if step.tail_reasoning != tails[0] or step.tail_content != tails[1]:
            return True
        # The previous update's warnings: those of the calls it settled (now before the cursor), then the others.
        was = self._last_warnings
        return step.warnings != (was[self._last_settled_warnings :] if self._last_settled_warnings else was)


def _same_call(call: MappedCall, was: MappedCall) -> MappedCall:
    """``was`` if ``call`` has the same fields, else ``call``."""
    if (
        call.arguments == was.arguments
        and call.end == was.end
        and call.complete == was.complete
        and call.open_string == was.open_string
        and call.args_span == was.args_span
        and call.id == was.id
        and call.name == was.name
    ):
        return was
    return call


_NOTHING: list[Any] = []  # an empty list shared by steps (never changed in place)
_LEAVES = frozenset((REASONING, CONTENT, CONTENT_JSON_STRING, TOOL))
# Whether this module runs compiled (Cython makes its functions C functions, not Python ones): a loop over a
# tuple's items is then a C loop, cheaper than slicing; interpreted, slices compared in C are cheaper.
_COMPILED = not isinstance(_common_prefix, FunctionType)
_POINTER_SIZE = calcsize("P")  # the size of an item of a tuple's array (see _common_prefix)
