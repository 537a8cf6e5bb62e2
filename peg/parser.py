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
from ._nodes import Parser
from ._packrat import FAIL, MORE, NO_BAD_OFFSET, SUCCESS, Machine, Result, Tracer
from .ast import ParseResult, Status
from .errors import ParseError, StreamClosedError

__all__ = ["Stream", "decode", "first_invalid", "parse_text", "to_result"]

_STATUS = {SUCCESS: Status.SUCCESS, FAIL: Status.FAIL, MORE: Status.NEED_MORE_INPUT}
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
    machine = Machine(compile_program(parser), Tracer() if trace else None)
    machine.text = text
    machine.bad = first_invalid(text)
    return to_result(text, machine.run(partial))


class Stream:
    """An incremental parse of a growing text.

    ``feed(more)`` appends ``more`` and returns the partial result (as ``parser.parse(all_text, partial=True)``
    would); ``finish()`` returns the final result (as ``parser.parse(all_text)`` would). ``bytes`` may be fed:
    a character split across feeds is completed by the next feed. After ``finish()`` the stream is closed.
    """

    def __init__(self, parser: Parser, *, trace: bool = False) -> None:
        self._machine = Machine(compile_program(parser), Tracer() if trace else None)
        self._decoder: codecs.IncrementalDecoder | None = None
        self._result: ParseResult | None = None
        self._finished = False

    @property
    def text(self) -> str:
        """Everything fed so far (decoded)."""
        return self._machine.text

    @property
    def result(self) -> ParseResult | None:
        """The result of the last feed or finish (None before the first)."""
        return self._result

    def _append(self, more: str | bytes, *, final: bool) -> None:
        if self._finished:
            raise StreamClosedError("stream already finished: feed() after finish()")
        if isinstance(more, bytes):
            if self._decoder is None:
                self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
            more = self._decoder.decode(more, final=final)
        elif final and self._decoder is not None:
            more += self._decoder.decode(b"", final=True)
        if more:
            m = self._machine
            if m.bad > len(m.text):
                bad = first_invalid(more)
                if bad < NO_BAD_OFFSET:
                    m.bad = len(m.text) + bad
            m.text += more

    def feed(self, more: str | bytes) -> ParseResult:
        """Append ``more`` and return the partial result. Cost ~ len(more) + depth of the live path."""
        m = self._machine
        if type(more) is str and not self._finished and self._decoder is None:
            # The common case, inlined: one text piece of a decoded stream.
            if m.bad > len(m.text):
                bad = _SURROGATE.search(more)
                if bad is not None:
                    m.bad = len(m.text) + bad.start()
            m.text += more
        else:
            self._append(more, final=False)
        raw = m.run(True)
        status, end, nodes = raw[0]
        result = self._result = (
            ParseResult(_STATUS[status], end, nodes, None) if status != FAIL else to_result(m.text, raw)
        )
        return result

    def finish(self) -> ParseResult:
        """End the input and return the final result (the same as a one-shot ``parse`` of all the text)."""
        self._append("", final=True)
        self._finished = True
        self._result = to_result(self._machine.text, self._machine.run(partial=False))
        return self._result
