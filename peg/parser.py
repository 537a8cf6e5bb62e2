# cython: annotation_typing=False
"""Running a parser: one-shot ``parser.parse(text, partial=...)`` and incremental ``parser.stream()``.

A :class:`Stream` keeps one packrat machine across feeds (see ``_packrat.py``): memo entries that never looked
at the end of the input stay valid, and each run restarts from the first point where the previous run looked
at the end. A feed therefore costs work proportional to the new text plus the depth of the live parse path
(and a C-speed copy of the top-level node tuple), not to everything received so far.

Text is Python ``str`` (code points). ``bytes`` are accepted too and decoded as UTF-8: undecodable bytes become
lone surrogates (``surrogateescape``), which every combinator refuses, so invalid input fails where it starts;
a truncated character at the end of a *partial* input is left out (more bytes will complete it).
"""

from __future__ import annotations

import codecs
import re

from ._compile import compile_program
from ._growth import Growth, growth_of
from ._nodes import Parser
from ._packrat import FAIL, MORE, NO_BAD_OFFSET, SUCCESS, Machine, Result, Tracer
from ._runs import CLOSES, ENDS, NO_QUIET, OPENS, QuietTags
from .ast import ParseResult, Status, make_result
from .errors import ParseError, StreamClosedError

__all__ = [
    "CLOSES",
    "ENDS",
    "OPENS",
    "Growth",
    "QuietTags",
    "Stream",
    "decode",
    "first_invalid",
    "parse_text",
    "to_result",
]

_STATUS = {SUCCESS: Status.SUCCESS, FAIL: Status.FAIL, MORE: Status.NEED_MORE_INPUT}
_NEED_MORE, _SUCCEEDED = Status.NEED_MORE_INPUT, Status.SUCCESS
_SURROGATE = re.compile("[\ud800-\udfff]")


def decode(data: bytes, *, final: bool) -> str:
    """UTF-8 ``data`` as text; invalid bytes become lone surrogates; an incomplete tail is dropped unless final."""
    return codecs.getincrementaldecoder("utf-8")("surrogateescape").decode(data, final=final)


def first_invalid(text: str, start: int = 0) -> int:
    """The offset of the first lone surrogate at or after ``start`` (an undecodable byte), or a huge number."""
    m = _SURROGATE.search(text, start)
    return m.start() if m else NO_BAD_OFFSET


def to_result(text: str, raw: tuple[Result, int, frozenset[str]]) -> ParseResult:
    """Turn a machine result (nodes already flattened) into a :class:`ParseResult`, building the error.

    A failure keeps the nodes the machine closed at the furthest failure (see :attr:`ParseResult.nodes`)."""
    (status, end, rope), fpos, expected = raw
    error = None
    if status == FAIL:
        position = max(fpos, end)
        error = ParseError(text, position, expected if fpos >= end else ())
        end = position
    return ParseResult(_STATUS[status], end, rope, error)


def parse_text(parser: Parser, text: str | bytes, *, partial: bool, trace: bool) -> ParseResult:
    """Parse ``text`` with ``parser`` (see :meth:`peg.Parser.parse`). Cost linear in ``len(text)``."""
    if isinstance(text, bytes):
        text = decode(text, final=not partial)
    elif type(text) is not str and isinstance(text, str):
        text = str(text)  # a str subclass: its plain text (the compiled machine holds exact str)
    machine = Machine(compile_program(parser), Tracer() if trace else None)
    machine.text = text
    machine.bad = first_invalid(text)
    return to_result(text, machine.run(partial))


class Stream:
    """An incremental parse of a growing text.

    ``feed(more)`` appends ``more`` and returns the partial result (as ``parser.parse(all_text, partial=True)``
    would); ``finish()`` returns the final result (as ``parser.parse(all_text)`` would). ``bytes`` may be fed:
    a character split across feeds is completed by the next feed. After ``finish()`` the stream is closed.

    ``growth()`` and ``extend(more)``: the fast lane for text that only lengthens the nodes being written (see
    :mod:`peg._growth`): such text is appended without parsing it now; the next ``feed`` or ``finish`` (or
    reading ``result``) parses it with the rest, exactly as if it had been fed then. ``quiet``: the tags of
    nodes that may open or close inside such text (:class:`QuietTags`: the caller does not watch them; by default
    none), so that text completing a marker may be taken too.
    """

    def __init__(self, parser: Parser, *, trace: bool = False, quiet: QuietTags | None = None) -> None:
        if quiet is not None and not isinstance(quiet, QuietTags):
            raise TypeError(f"quiet must be a peg.QuietTags or None, not {type(quiet).__name__}")
        self._quiet = NO_QUIET if quiet is None else quiet
        self._machine = Machine(compile_program(parser), Tracer() if trace else None)
        self._decoder: codecs.IncrementalDecoder | None = None
        self._result: ParseResult | None = None
        self._finished = False
        self._pending: list[str] = []  # text taken by extend() and not yet appended to the machine's
        self._lane: Growth | None = None  # the growth after the last feed (see growth()), once known
        self._lane_known = False
        self._lane_quiet = self._quiet  # the quiet tags the growth was made with
        self._more_end = -1  # where the last feed's result ends if it needs more input, else -1
        self._ended = False  # ... and whether it succeeded instead, looking at the end (see growth())
        self._unparsed = False  # text taken by extend() was appended (reading ``text``) and not parsed yet

    @property
    def text(self) -> str:
        """Everything fed so far (decoded)."""
        if self._pending:
            self._flush()
        return self._machine.text

    @property
    def result(self) -> ParseResult | None:
        """The result of the last feed or finish (None before the first); after :meth:`extend`, the partial
        result of all the text (parsed on reading)."""
        if self._pending or self._unparsed:
            self.feed("")
        return self._result

    def growth(self, quiet: QuietTags | None = None) -> Growth | None:
        """What :meth:`extend` accepts now and which nodes it lengthens: not None only after a feed whose
        partial result needs more input, ends at the end of the text and stopped inside a text scanner (an
        ``until`` or a JSON string) with only node-making combinators on the live path, or inside a marker.
        ``quiet``: other quiet tags than the stream's for what ``extend`` takes until the next feed (given before
        it takes anything; after, the growth in use is returned). Cost O(depth of the live path) once per feed
        (and per change of ``quiet``), then O(1)."""
        if quiet is None:
            quiet = self._quiet
        if not self._lane_known or (quiet is not self._lane_quiet and not self._pending):
            g = None
            if self._more_end >= 0 and not self._finished and self._decoder is None:
                g = growth_of(self._machine, self._more_end, quiet, self._ended)
            self._lane = g
            self._lane_quiet = quiet
            self._lane_known = True
        return self._lane

    def extend(self, more: str) -> str | None:
        """Append ``more`` without parsing it now if it only moves the end of the live path (see
        :meth:`Growth.take`): then the partial result is the last one with those nodes ending later, by the
        returned text (the growth's ``held`` text and ``more``, minus what is held back now; often ``more``).
        Otherwise nothing is appended and None is returned (``feed`` it instead). Cost O(len(more))."""
        if not self._lane_known:
            self.growth()
        g = self._lane  # (a typed field once compiled: the take below is a C call)
        if g is None or type(more) is not str:
            return None
        grown = g.take(more)
        if grown is not None and more:
            self._pending.append(more)
        return grown

    def _flush(self) -> None:
        """Append the text taken by :meth:`extend` to the machine's (it holds no undecodable character)."""
        self._hand_over()
        self._machine.append("".join(self._pending))
        self._pending.clear()
        self._unparsed = True

    def _hand_over(self) -> None:
        """Before the text taken by :meth:`extend` is appended: a JSON scan continued over it hands its state to
        the machine's resume point (the machine would reach that very state scanning the text again, so it
        starts there instead: a long run of nested brackets is scanned once, not twice). O(1)."""
        g = self._lane
        snap = self._machine.snapshot
        if g is not None and snap is not None:
            state = g.scan_state()
            if state is not None:
                self._machine.snapshot = snap.resumed(state)

    def _append(self, more: str | bytes, *, final: bool) -> None:
        if self._finished:
            raise StreamClosedError("stream already finished: feed() after finish()")
        if isinstance(more, bytes):
            if self._decoder is None:
                self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
            more = self._decoder.decode(more, final=final)
        else:
            if type(more) is not str and isinstance(more, str):
                more = str(more)  # a str subclass: its plain text (the compiled machine holds exact str)
            if final and self._decoder is not None:
                more += self._decoder.decode(b"", final=True)
        if more:
            m = self._machine
            if m.bad > len(m.text):
                bad = first_invalid(more)
                if bad < NO_BAD_OFFSET:
                    m.bad = len(m.text) + bad
            m.append(more)

    def feed(self, more: str | bytes) -> ParseResult:
        """Append ``more`` and return the partial result. Cost ~ len(more) + depth of the live path."""
        m = self._machine
        if self._pending:
            if type(more) is str:  # one copy of the text instead of two
                self._hand_over()
                self._pending.append(more)
                more = "".join(self._pending)
                self._pending.clear()
            else:
                self._flush()
        self._lane_known = False
        self._lane = None
        self._more_end = -1
        self._unparsed = False
        if type(more) is str and not self._finished and self._decoder is None:
            # The common case, inlined: one text piece of a decoded stream.
            if m.bad > len(m.source.text) and not more.isascii():  # (ASCII: no lone surrogate, an O(1) check)
                bad = _SURROGATE.search(more)
                if bad is not None:
                    m.bad = len(m.source.text) + bad.start()
            m.append(more)
        else:
            self._append(more, final=False)
        raw = m.run(True)
        status, end, nodes = raw[0]
        # (A success that looked at the end — a repetition stopped there — may go on too: see growth().)
        self._ended = status == SUCCESS and m.snapshot is not None
        self._more_end = end if status == MORE or self._ended else -1
        if status == FAIL:
            result = self._result = to_result(m.source.text, raw)
        else:
            result = self._result = make_result(_NEED_MORE if status == MORE else _SUCCEEDED, end, nodes)
        return result

    def finish(self) -> ParseResult:
        """End the input and return the final result (the same as a one-shot ``parse`` of all the text)."""
        if self._pending and not self._finished:
            self._flush()
        self._lane_known = True
        self._lane = None
        self._more_end = -1
        self._append("", final=True)
        self._finished = True
        self._unparsed = False
        self._result = to_result(self._machine.text, self._machine.run(partial=False))
        return self._result
