# cython: annotation_typing=False
"""Streaming: feed text deltas, get OpenAI ``chat.completion.chunk`` deltas that never need to be taken back.

A :class:`ChatStream` keeps a peg incremental parse of the output so far. After each feed it maps the partial
parse to a message and sends what grew since the last feed:

* the first delta carries ``role``; then, per feed, reasoning before content before tool calls;
* a call's first fragment carries ``index``, ``id``, ``type`` and its complete name (the mapper publishes a
  call only then); later fragments only extend ``arguments``; indices are dense and in order;
* text that may still turn out to be a marker (``<tool_c``) is held back by the parser, not sent and retracted;
* if the output stops fitting the format, the rest is sent as content (and a warning recorded) — never raised;
* ``finish()`` parses the whole output as final (exactly what ``ChatFormat.parse`` returns), sends the last
  growth and an empty delta with ``finish_reason``.

If a later message is not an extension of what was sent (a definition bug, not expected for any format here),
nothing is retracted: the diverging field stops growing and the stream records a warning.

Cost per feed: peg's incremental parse, plus mapping only the nodes after the settled prefix (complete calls,
closed reasoning and content; see :mod:`chat_formats._incremental`), plus diffing only what is not settled.
While every field has been sent whole (the normal case), the diff starts from the previous feed's unsettled
tail; any irregularity (peg changed its path, a field diverged, whitespace held back) takes the full diff,
which compares whole texts with what was sent.

The fast lane: most feeds only extend the text being written — reasoning, content, a JSON argument, an XML
parameter value — with characters that cannot start any marker the parser waits for, or continue a marker
without completing it. After a feed whose last sent piece is exactly the node peg is growing
(:meth:`peg.Stream.growth`), or whose live path holds no node the mapper shows (a marker, a value held back
until its closer), such a delta is handed to ``peg.Stream.extend`` (appended, parsed with the next ordinary
feed) and what the node grew by is sent as it is (JSON-escaped inside an XML string value), or nothing: no
parse, no mapping, no diff. The deltas are the ones the ordinary path would send for the same feed, since the
whole change of the parse is that path ending later.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gbnf_backend import PegchatError
from peg import ParseResult, Status

from ._deltas import arguments_delta, call_start_delta, text_delta
from ._incremental import IncrementalMapper, Piece, Step, growth, join
from .builder import (
    BLOCK,
    CONTENT,
    CONTENT_JSON_STRING,
    REASONING,
    TOOL,
    TOOL_ARG,
    TOOL_ARG_CLOSE,
    TOOL_ARG_CONVERTED_VALUE,
    TOOL_ARG_JSON_VALUE,
    TOOL_ARG_OPEN,
    TOOL_ARG_PYTHON_VALUE,
    TOOL_ARG_STRING_VALUE,
    TOOL_ARGS,
    TOOL_CLOSE,
    TOOL_OPEN,
)
from .mapper import MappedCall, MappedMessage, new_salt
from .messages import ChatDelta, ChatMessage

if TYPE_CHECKING:
    from ._assembly import Assembled, Assembler, Fallback

__all__ = ["ChatStream", "StreamClosedError"]


class StreamClosedError(PegchatError, RuntimeError):
    """``feed``/``finish`` called after ``finish``."""


class _SentCall:
    """A call as sent: name, id, arguments as the pieces sent (joined when read), their length, whether sent
    complete, and the text span the arguments were when they were written verbatim (see
    ``MappedCall.args_span``), the span of the open string value they end with (``MappedCall.open_string``)."""

    __slots__ = ("complete", "id", "length", "name", "open_string", "parts", "span")

    def __init__(
        self,
        name: str,
        id: str,
        parts: list[str],
        length: int,
        complete: bool,
        span: tuple[int, int],
        open_string: tuple[int, int],
    ) -> None:
        self.name = name
        self.id = id
        self.parts = parts
        self.length = length
        self.complete = complete
        self.span = span
        self.open_string = open_string

    @property
    def arguments(self) -> str:
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""


class _SentText:
    """A text field as sent: the pieces (joined when read) and the length."""

    __slots__ = ("length", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    @property
    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""


class ChatStream:
    """Incremental parse of one output; see the module docstring.

    ``feed(delta) -> list[ChatDelta]`` costs O(len(delta)) parsing (peg's incremental parser) plus the mapping
    of what is not settled yet; ``finish(length=False) -> list[ChatDelta]``; ``message`` is the message sent so
    far (the concatenation of all deltas), with warnings. ``chunks`` renders deltas as chunk dicts. ``salt``: the
    random salt of this stream's generated call ids (``fmt.parse(stream.text, salt=stream.salt)`` gives the
    same ids).
    """

    def __init__(self, fmt: Assembled, *, reasoning_field: str = "reasoning_content") -> None:
        self._asm: Assembler = fmt.assembler
        definition = self._asm.definition
        self.reasoning_field = reasoning_field
        self._peg = definition.parser.stream()
        self.salt = new_salt()
        self._mapper = IncrementalMapper(self._asm.tools, self.salt, definition.id_position)
        self._prefix = definition.content_prefix
        self._reasoning = _SentText()
        self._content = _SentText()
        self._calls: list[_SentCall] = []
        self._sent_warnings: list[str] = []
        self._warning_set: set[str] = set()
        self._prefix_sent = False
        self._role_sent = False
        # The fast diff: each field "synced" (sent == the last feed's whole field), and the last unsettled tails.
        self._synced = [True, True, True]  # reasoning, content, calls
        self._tails: tuple[list[Piece], list[Piece]] = ([], [])
        self._failed: Fallback | None = None
        self._failed_whole = False  # after a failure: the content was sent whole (it grows by the new text)
        self._after_failure: list[str] = []  # text fed after the failure (peg is not fed any more)
        self._finished = False
        self._warnings: list[str] = []
        self._finish_reason: str | None = None
        # The fast lane (module docstring): what a pure extension of the text grows, or None. Kinds: _REASONING
        # and _CONTENT (target: the tail list whose last span grows), _ARGS (the sent call whose argument span
        # grows), _STRING (the sent call whose open string value grows).
        self._fast: tuple[int, Any] | None = None
        self._fast_lane = True  # False: every feed takes the ordinary path (tests compare the two; benchmarks)

    @property
    def text(self) -> str:
        """Everything fed so far."""
        if not self._after_failure:
            return self._peg.text
        if len(self._after_failure) > 1:
            self._after_failure[:] = ["".join(self._after_failure)]
        return self._peg.text + self._after_failure[0]

    @property
    def finished(self) -> bool:
        """Whether :meth:`finish` was called."""
        return self._finished

    def feed(self, delta: str) -> list[ChatDelta]:
        """Append ``delta`` (text) and return the deltas it produced (possibly none). Never raises for odd
        model output."""
        if self._finished:
            raise StreamClosedError("feed() after finish()")
        fast = self._fast
        if fast is not None:
            grown = self._peg.extend(delta)
            if grown is not None:
                return self._emit_extension(fast, grown) if grown else []
        if self._failed is None:
            result = self._peg.feed(delta)
            if result.status is not Status.FAIL:
                out = self._emit_step(self._mapper.update(result.nodes, len(self.text)))
                self._arm(result)
                return out
            # A failure is definitive.
            self._fast = None
            self._failed = self._asm.fallback(self.text, result, final=True, salt=self.salt)
        else:
            self._after_failure.append(delta)
            if self._failed_whole:
                return self._emit_failed_growth(delta)
        return self._emit_full(self._asm.with_tail(self._failed, self.text))

    def finish(self, *, length: bool = False) -> list[ChatDelta]:
        """End the output: send what the final parse adds, then an empty delta with ``finish_reason``
        (``length`` when ``length=True``, i.e. the token budget cut the output)."""
        if self._finished:
            raise StreamClosedError("finish() called twice")
        self._finished = True
        self._fast = None
        final: ParseResult = (
            self._peg.finish() if self._failed is None else self._asm.definition.parser.parse(self.text)
        )
        deltas = self._emit_full(self._asm.map_result(self.text, final, final=True, salt=self.salt), final=True)
        reason = self._asm.finish_reason(bool(self._calls), length=length)
        self._finish_reason = reason
        deltas.append(ChatDelta(finish_reason=reason))
        return deltas

    @property
    def message(self) -> ChatMessage:
        """The message the deltas so far add up to (plus the warnings of the parse and of the stream)."""
        prefix = self._prefix if self._prefix_sent else ""
        calls = ((c.name, c.id, c.arguments) for c in self._calls)
        return self._asm.message(
            prefix + self._content.text, self._reasoning.text, calls, [*self._sent_warnings, *self._warnings]
        )

    def chunks(self, deltas: list[ChatDelta], **chunk_fields: object) -> list[dict[str, object]]:
        """``deltas`` as ``chat.completion.chunk`` dicts (``chunk_id``, ``created``, ``model`` may be given)."""
        return [d.to_chunk(reasoning_field=self.reasoning_field, **chunk_fields) for d in deltas]  # type: ignore[arg-type]

    # --- the fast lane --------------------------------------------------------------------------------------------
    def _arm(self, result: ParseResult) -> None:
        """After an ordinary feed: open the fast lane when every field is in sync and either the last piece sent
        is the node peg grows (same start, ending where the parse ends) or the live path holds no node whose end
        or text the mapper shows; else close it. Cost O(depth of the live path)."""
        self._fast = None
        growth_ = self._peg.growth() if self._fast_lane else None
        if growth_ is None or not (self._role_sent and all(self._synced)):
            return
        tags, starts = growth_.tags, growth_.starts
        if _silent(tags):
            self._fast = (_SILENT, None)  # e.g. inside a marker: the mapped message cannot change
            return
        if growth_.literal:
            return  # the literal's text would show in a node that shows text
        at = 0
        while not tags[at]:
            at += 1  # rule nodes (tag '') inside the text node: the mapper never looks at them
        inner, outer = tags[at], tags[at + 1 :]
        grown = (starts[at], result.end)
        if inner in _TEXTS:
            if not _MAPPED_WHOLE.isdisjoint(outer):
                return  # inside a call or another text node: not mapped as a text of its own
            if inner == CONTENT:
                tail = self._tails[1]
                if self._content.length and tail and tail[-1] == grown:
                    self._fast = (_CONTENT, tail)
            else:
                tail = self._tails[0]
                if tail and tail[-1] == grown:
                    self._fast = (_REASONING, tail)
        elif inner in (TOOL_ARGS, TOOL_ARG_STRING_VALUE) and self._calls:
            if outer.count(TOOL) != 1 or not _TEXT_TAGS.isdisjoint(outer):
                return
            sent = self._calls[-1]
            if sent.complete:
                return
            if inner == TOOL_ARGS and sent.span == grown:
                self._fast = (_ARGS, sent)
            elif inner == TOOL_ARG_STRING_VALUE and sent.open_string == grown:
                self._fast = (_STRING, sent)

    def _emit_extension(self, fast: tuple[int, Any], more: str) -> list[ChatDelta]:
        """The deltas of a feed on the fast lane: ``more`` extends the node the lane targets."""
        kind, target = fast
        if kind == _SILENT:
            return []
        if kind in (_CONTENT, _REASONING):
            tail: list[tuple[int, int]] = target
            start, end = tail[-1]
            tail[-1] = (start, end + len(more))
            if kind == _CONTENT:
                self._content.add(more)
                return [text_delta("content", more)]
            self._reasoning.add(more)
            return [text_delta("reasoning_content", more)]
        call: _SentCall = target
        if kind == _ARGS:
            start, end = call.span
            call.span = (start, end + len(more))
            grown = more
        else:
            start, end = call.open_string
            call.open_string = (start, end + len(more))
            grown = _escape(more)[1:-1]
        call.parts.append(grown)
        call.length += len(grown)
        return [arguments_delta(len(self._calls) - 1, grown)]

    # --- diffing -------------------------------------------------------------------------------------------------
    def _grow(self, field: str, old: str, new: str) -> str:
        """The suffix ``new`` adds to ``old`` ('' if none); a non-extension is recorded, not sent."""
        if new.startswith(old):
            return new[len(old) :]
        warning = f"stream: {field} changed in a way that would retract sent text; kept what was sent"
        if warning not in self._warnings:
            self._warnings.append(warning)
        return ""

    def _emit_step(self, step: Step) -> list[ChatDelta]:
        """The deltas of one feed's incremental mapping (see the module docstring)."""
        if not step.changed and self._role_sent:
            return []  # the mapped message is the previous feed's, which was sent (see Step.changed)
        m, src = self._mapper, self.text
        new_r = step.settled_reasoning + step.tail_reasoning
        new_c = step.settled_content + step.tail_content
        # What was sent after the cursor this step starts from: what it dropped, then the last tail.
        old_r, old_c = self._tails
        if step.rolled_back:
            old_r, old_c = step.dropped_reasoning + old_r, step.dropped_content + old_c
        fast_r = growth(old_r, new_r, src) if self._synced[0] else None
        fast_c = None
        if self._synced[1]:
            if self._content.length or self._prefix_sent:
                fast_c = growth(old_c, new_c, src)
            elif not new_c and not old_c and not step.rolled_back:
                fast_c = ""  # no content before or after, and what was sent is all of it: nothing to send
        self._tails = (step.tail_reasoning, step.tail_content)
        if fast_r == "" and fast_c == "" and self._role_sent:
            out: list[ChatDelta] = []  # both texts known unchanged (and in sync): no text delta, no prefix
        else:
            out = self._text_step(step, fast_r, fast_c)
        if self._synced[2]:
            if step.calls or len(self._calls) > step.first_call:  # else: no call before or after the cursor
                out.extend(self._call_deltas(step.calls, step.first_call, src))
        else:
            out.extend(self._call_deltas([*m.calls[: step.first_call], *step.calls], 0, src))
        self._add_warnings(step.warnings)
        return out

    def _text_step(self, step: Step, fast_r: str | None, fast_c: str | None) -> list[ChatDelta]:
        """The role, reasoning and content deltas of one feed's incremental mapping (``fast_*``: see
        :meth:`_text_deltas`)."""
        m, src = self._mapper, self.text

        def others() -> bool:
            return bool(m.calls or step.calls) or bool(join([*m.reasoning, *step.tail_reasoning], src))

        return self._text_deltas(
            fast_r,
            lambda: join([*m.reasoning, *step.tail_reasoning], src),
            fast_c,
            lambda: join([*m.content, *step.tail_content], src),
            others,
            final=False,
        )

    def _emit_full(self, new: MappedMessage, *, final: bool = False) -> list[ChatDelta]:
        """The deltas from a whole message (a failed parse's, or the final one): every field compared whole."""
        out = self._text_deltas(
            None, lambda: new.reasoning, None, lambda: new.content, lambda: bool(new.calls or new.reasoning), final
        )
        out.extend(self._call_deltas(new.calls, 0, ""))
        self._add_warnings(new.warnings)
        self._synced = [False, False, False]  # the tails describe no feed now: the next step diffs in full
        failed = self._failed
        if failed is not None and failed.warning in self._warning_set and self._content.text == new.content:
            # Sent whole, tail warning included: from now on the content grows by exactly the new text.
            self._failed_whole = self._prefix_sent or not self._prefix
        return out

    def _emit_failed_growth(self, grown: str) -> list[ChatDelta]:
        """After a failure, with the content sent whole: the new text ``grown`` is the content's growth."""
        if not grown:
            return self._role()
        self._content.add(grown)
        return [*self._role(), ChatDelta(content=grown)]

    def _role(self) -> list[ChatDelta]:
        if self._role_sent:
            return []
        self._role_sent = True
        return [ChatDelta(role="assistant")]

    def _text_deltas(
        self,
        fast_reasoning: str | None,
        reasoning: Callable[[], str],
        fast_content: str | None,
        content: Callable[[], str],
        has_calls_or_reasoning: Callable[[], bool],
        final: bool,
    ) -> list[ChatDelta]:
        """Role, reasoning and content deltas. ``fast_*``: the growth when known from the tails (None: compare
        the whole field, which ``reasoning()``/``content()`` build)."""
        out = self._role()
        grown = fast_reasoning
        if grown is None:
            whole = reasoning()
            grown = self._grow("reasoning", self._reasoning.text, whole)
            self._synced[0] = whole.startswith(self._reasoning.text)
        else:
            self._synced[0] = True
        if grown:
            self._reasoning.add(grown)
            out.append(text_delta("reasoning_content", grown))
        grown = fast_content
        if grown is None:
            full = content()
            sent = self._content.text
            grown = self._grow("content", sent, full)
            synced = full.startswith(sent)
            whole = self._prefix + full
            held = not sent and not self._prefix_sent and not whole.strip()
            # Whitespace only so far: held back, never a blank chunk. At the end it is null next to calls or
            # reasoning (as the final parse says), else sent as it is.
            keep = self._asm.options.keep_blank_content
            if (
                held
                and not keep
                and (not final or self._asm.blank(whole, has_calls_or_reasoning=has_calls_or_reasoning()))
            ):
                grown = ""
                synced = not full
            self._synced[1] = synced
        else:
            self._synced[1] = True
        if self._prefix and not self._prefix_sent and (grown or final):
            self._prefix_sent = True
            self._content.add(grown)
            grown = self._prefix + grown
        elif grown:
            self._content.add(grown)
        if grown:
            out.append(text_delta("content", grown))
        return out

    def _add_warnings(self, warnings: Sequence[str]) -> None:
        for w in warnings:
            if w not in self._warning_set:
                self._warning_set.add(w)
                self._sent_warnings.append(w)

    def _call_deltas(self, calls: Sequence[MappedCall], start: int, source: str) -> list[ChatDelta]:
        """Deltas for ``calls``, the calls of the message from index ``start`` on (those before are unchanged
        and were sent whole). ``source``: the output, for diffing verbatim arguments by their spans ('' for no
        span diffing)."""
        out: list[ChatDelta] = []
        sent = self._calls
        synced = True
        for j, call in enumerate(calls):
            i = start + j
            if i < len(sent):
                old = sent[i]
                if old.name != call.name or old.id != call.id:
                    self._grow(f"tool call {i}", old.name + old.id, call.name + call.id + "\x00")
                    synced = False
                    break
                if old.complete and call.complete:
                    continue  # sent whole: a complete call never changes
                span, value = call.args_span, call.open_string
                if source and span[0] >= 0 and old.span[0] == span[0] and old.span[1] <= span[1]:
                    grown = source[old.span[1] : span[1]]  # the output only grows: a longer span extends
                elif source and value[0] >= 0 and old.open_string[0] == value[0] and old.open_string[1] <= value[1]:
                    grown = _escape(source[old.open_string[1] : value[1]])[1:-1]  # the same value, longer
                else:
                    old_args, new_args = old.arguments, call.arguments
                    if not new_args.startswith(old_args):
                        self._grow(f"tool call {i} arguments", old_args, new_args)  # records the warning
                        synced = False
                        continue
                    grown = new_args[len(old_args) :]
                if grown:
                    old.parts.append(grown)
                    old.length += len(grown)
                    out.append(arguments_delta(i, grown))
                old.complete = call.complete
                old.span = span
                old.open_string = value
            else:
                args = call.arguments
                sent.append(
                    _SentCall(call.name, call.id, [args], len(args), call.complete, call.args_span, call.open_string)
                )
                out.append(call_start_delta(i, call.id, call.name, call.arguments))
        if start + len(calls) < len(sent):
            self._grow("tool calls", "x" * len(sent), "x" * (start + len(calls)) + "\x00")
            synced = False
        self._synced[2] = synced
        return out


_REASONING, _CONTENT, _ARGS, _STRING, _SILENT = range(5)
_TEXTS = (REASONING, CONTENT)
_TEXT_TAGS = frozenset((REASONING, CONTENT, CONTENT_JSON_STRING))
_MAPPED_WHOLE = frozenset((REASONING, CONTENT, CONTENT_JSON_STRING, TOOL))  # the mapper does not look inside
# Tags whose nodes the mapper reads only for their presence, children and partial flag while they are open (an
# end it reads goes into MappedCall.end, which no delta shows; JSON, Python and converted values are held back
# until their argument closes): a live path of these can grow without changing the mapped message.
_SILENT_TAGS = frozenset(
    (
        "",
        BLOCK,
        TOOL,
        TOOL_OPEN,
        TOOL_CLOSE,
        TOOL_ARG,
        TOOL_ARG_OPEN,
        TOOL_ARG_CLOSE,
        TOOL_ARG_JSON_VALUE,
        TOOL_ARG_PYTHON_VALUE,
    )
)
_CONVERTED = TOOL_ARG_CONVERTED_VALUE


def _silent(tags: Sequence[str]) -> bool:
    """Whether a live path of nodes with ``tags`` can grow without changing the mapped message."""
    # A loop, not all(generator): compiled, no generator object per feed.
    for t in tags:  # noqa: SIM110
        if t not in _SILENT_TAGS and not t.startswith(_CONVERTED):
            return False
    return True


_escape = json.encoder.encode_basestring  # JSON string literal of a text (non-ASCII kept), as json.dumps does
