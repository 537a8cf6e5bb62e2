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
without completing it. After a feed whose last sent piece of a field in sync is exactly the node peg is growing
(:meth:`peg.Stream.growth`; or a content of which nothing was sent yet, '' or whitespace held back), or whose
live path holds no node the mapper shows (a marker, a value held back until its closer, the arguments of a call
not published yet), such a delta is handed to ``peg.Stream.extend`` (appended, parsed with the next ordinary
feed) and what the node grew by is sent as it is (JSON-escaped inside an XML string value), or nothing: no
parse, no mapping, no diff. The deltas are the ones the ordinary path would send for the same feed, since the
whole change of the parse is that path ending later (and the ordinary path's diff of a field that did not
change sends nothing, in sync or not). The lane also goes through markers that open and close only nodes the
mapper shows nothing of (peg's quiet tags), and through what follows an XML string value whose whole effect the
mapper knows beforehand (:mod:`chat_formats._after_string`): the value's delimiter (it sends the closing quote),
further arguments with JSON values (their key and value), the call's closer once every required argument was sent
(the closing brace) and the next call's opening up to its complete name (its first fragment). peg's deep quiet
tags report where those nodes opened, ended and closed; anything else falls back to the ordinary path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gbnf_backend import PegchatError
from peg import Growth, ParseResult, QuietTags, Status

from . import _deltas
from ._after_string import AfterString
from ._incremental import IncrementalMapper, Piece, Step, growth, join
from ._sent import SentCall, SentText, joined
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
    TOOL_ARG_NAME,
    TOOL_ARG_OPEN,
    TOOL_ARG_PYTHON_VALUE,
    TOOL_ARG_STRING_VALUE,
    TOOL_ARGS,
    TOOL_CLOSE,
    TOOL_NAME,
    TOOL_OPEN,
)
from .mapper import MappedCall, MappedMessage, new_salt
from .messages import ChatDelta, ChatMessage

if TYPE_CHECKING:
    from ._assembly import Assembled, Assembler, Fallback

__all__ = ["ChatStream", "StreamClosedError"]


class StreamClosedError(PegchatError, RuntimeError):
    """``feed``/``finish`` called after ``finish``."""


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
        self._peg = definition.parser.stream(quiet=_QUIET)
        self.salt = new_salt()
        self._mapper = IncrementalMapper(self._asm.tools, self.salt, definition.id_position)
        self._prefix = definition.content_prefix
        self._reasoning = SentText()
        self._content = SentText()
        self._calls: list[SentCall] = []
        self._sent_warnings: list[str] = []
        self._warning_set: set[str] = set()
        self._prefix_sent = False
        self._role_sent = False
        # The fast diff: each field "synced" (sent == the last feed's whole field), and the last unsettled tails.
        self._synced_reasoning = self._synced_content = self._synced_calls = True
        self._tail_reasoning: list[Piece] = []
        self._tail_content: list[Piece] = []
        self._failed: Fallback | None = None
        self._failed_whole = False  # after a failure: the content was sent whole (it grows by the new text)
        self._after_failure: list[str] = []  # text fed after the failure (peg is not fed any more)
        self._finished = False
        self._warnings: list[str] = []
        self._finish_reason: str | None = None
        # The fast lane (module docstring): what a pure extension of the text grows, or None. Kinds: _REASONING
        # and _CONTENT (target: the tail list whose last span grows; _NEW_CONTENT: the content, nothing of it
        # sent yet), _ARGS (the sent call whose argument span grows), _STRING (the sent call whose open string
        # value grows), _SILENT (nothing the mapper shows grows).
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
        failed = self._failed
        if failed is None:
            return self._ordinary(delta)
        self._after_failure.append(delta)
        if self._failed_whole:
            return self._emit_failed_growth(delta)
        return self._emit_full(self._asm.with_tail(failed, self.text))

    def _ordinary(self, delta: str) -> list[ChatDelta]:
        """The deltas of an ordinary feed: parse, map, diff, arm the lane; or, if the parse fails, take the
        fallback (definitive) and send what it adds."""
        result: ParseResult = self._peg.feed(delta)
        if result.status is not _FAIL:
            src = self._peg.text  # (not self.text: nothing was fed after a failure)
            out = self._emit_step(self._mapper.update(result.nodes, len(src)), src)
            self._arm(result)
            return out
        # A failure is definitive.
        self._fast = None
        failed = self._failed = self._asm.fallback(self.text, result, final=True, salt=self.salt)
        return self._emit_full(self._asm.with_tail(failed, self.text))

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
        # (the calls settled while streaming are not mapped again: the final parse has them at the same places)
        cache = self._mapper.call_cache if self._failed is None else None
        mapped = self._asm.map_result(self.text, final, final=True, salt=self.salt, cache=cache)
        deltas = self._emit_full(mapped, final=True)
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
        """After an ordinary feed: open the fast lane when the role was sent and either the live path holds no
        node whose end or text the mapper shows (any field may be out of sync: the ordinary path's diff of an
        unchanged message sends nothing), or the last piece sent of a field in sync is the node peg grows (same
        start, ending where the parse ends); else close it. Cost O(depth of the live path)."""
        self._fast = None
        if not (self._fast_lane and self._role_sent):
            return  # (before growth(), which costs a walk of the live path)
        growth_: Growth | None = self._peg.growth()
        if growth_ is None:
            return
        tags = growth_.tags
        plan = _PLANS.get(tags)
        if plan is None:
            plan = _plan(tags)
            if len(_PLANS) < _MAX_PLANS:
                _PLANS[tags] = plan
        kind, at = plan
        if kind == _SILENT:
            self._fast = (_SILENT, None)  # e.g. inside a marker: the mapped message cannot change
            if growth_.literal and TOOL in tags:
                # Inside a call whose arguments are begun, an argument's name may appear too (the first one's
                # would begin them): a marker that completes a name before a JSON value is taken as well. After
                # JSON arguments written as they are (closed: not on the live path), the call may close too.
                start = growth_.starts[tags.index(TOOL)]
                if self._mapper.arguments_begun(start):
                    closed = TOOL_ARGS not in tags and self._mapper.arguments_written(start)
                    if closed:
                        self._peg.growth(_QUIET_AFTER_ARGUMENTS)
                        return
                    closing = self._mapper.closing_text(start) if self._synced_calls and self._calls else None
                    sent = self._calls[-1] if closing is not None else None
                    if sent is not None and not sent.complete:
                        # XML-style arguments all closed and sent: the call may close too, the lane sending
                        # what its closing adds, as the ordinary path would (see _emit_closing).
                        marked = self._peg.growth(_QUIET_CLOSING_CALL)
                        if marked is not None:
                            self._fast = (_CLOSING, (sent, marked, closing, TOOL_CLOSE, TOOL))
                        return
                    self._peg.growth(_QUIET_IN_ARGUMENTS)
            return
        if kind < 0 or growth_.literal:
            return  # (a literal's text would show in the node that shows text)
        begin = growth_.starts[at]
        end = result.end  # the node that grows spans (begin, end)
        if kind == _CONTENT:
            tail = self._tail_content
            if not tail or tail[-1] != (begin, end):
                return
            if self._content.length:
                if self._synced_content:
                    self._fast = (_CONTENT, tail)
            elif not self._prefix_sent:
                # Nothing sent yet: all of the content so far is '' (in sync) or whitespace held back (the
                # only way an unsent content is out of sync); the lane's first growth decides.
                held = "" if self._synced_content else join([*self._mapper.content, *tail], self._peg.text)
                self._fast = (_NEW_CONTENT, (tail, held))
        elif kind == _REASONING:
            tail = self._tail_reasoning
            if self._synced_reasoning and tail and tail[-1] == (begin, end):
                self._fast = (_REASONING, tail)
        elif self._synced_calls:
            if not self._calls or self._calls[-1].complete:
                # A call after every sent one: not published (its id may still come), and the growth of its
                # arguments cannot publish it (what could — its id, its end — is not inside them).
                self._fast = (_SILENT, None)
                return
            sent = self._calls[-1]
            if kind == _ARGS and sent.span_start == begin and sent.span_end == end:
                self._fast = (_ARGS, sent)
            elif kind == _STRING and sent.string_start == begin and sent.string_end == end:
                known = self._mapper.string_closing(growth_.starts[tags.index(TOOL)]) if TOOL in tags else None
                if known is not None:
                    # The value may close too, and arguments with JSON values and the call after it, the lane
                    # sending what they add (see _emit_string).
                    marked = self._peg.growth(_QUIET_AFTER_STRING)
                    if marked is not None:
                        # (the next call is published from the lane when its id is generated at once)
                        next_index = len(self._calls) if self._mapper.id_position == "none" else -1
                        after = AfterString(sent, marked, known[0], known[1], self.salt, next_index)
                        self._fast = (_AFTER_STRING, after)
                        return
                self._fast = (_STRING, sent)

    def _emit_extension(self, fast: tuple[int, Any], more: str) -> list[ChatDelta]:
        """The deltas of a feed on the fast lane: ``more`` extends the node the lane targets."""
        kind, target = fast
        if kind == _SILENT:
            return []
        if kind == _CLOSING:
            return self._emit_closing(target, [])
        if kind == _AFTER_STRING:
            return self._emit_string(target, more)
        if kind != _ARGS and kind != _STRING:
            tail: list[tuple[int, int]] = target if kind != _NEW_CONTENT else target[0]
            start, end = tail[-1]
            tail[-1] = (start, end + len(more))
            if kind == _CONTENT:
                self._content.add(more)
                return [_deltas.text_delta("content", more)]
            if kind == _NEW_CONTENT:
                return self._first_content(target, more)
            self._reasoning.add(more)
            return [_deltas.text_delta("reasoning_content", more)]
        call: SentCall = target
        if kind == _ARGS:
            call.span_end += len(more)
            grown = more
        else:
            call.string_end += len(more)
            grown = _json_body(more)
        call.parts.append(grown)
        call.length += len(grown)
        return [_deltas.arguments_delta(len(self._calls) - 1, grown)]

    def _emit_closing(self, target: tuple[SentCall, Growth, str, str, str], grown: list[str]) -> list[ChatDelta]:
        """The deltas of a feed on a lane that may close a node of the last sent call — the call, or the argument
        whose string value it ends with (``target``: that call, the growth, what the closing adds, the tags of
        the node's closer and of the node): once the text taken closed the closer and then the node (the
        growth's marks), ``grown`` (the call's arguments' growth before, escaped) and the closing's text in one
        delta, the call recorded as the ordinary path's diff of the call mapped then does (the value closed, or
        the call complete); before, ``grown`` alone. The lane goes on silent once the node closed."""
        sent, growth_, closing, closer, node = target
        closed = growth_.closed()
        if node in closed and closer in closed[: closed.index(node)]:
            self._fast = (_SILENT, None)
            grown.append(closing)
            sent.string_start = sent.string_end = -1
            if node == TOOL:
                sent.complete = True
                sent.span_start = sent.span_end = -1
        # (else the closer closed alone, or not yet: the node is open, nothing more to send)
        if not grown:
            return []
        text = "".join(grown)
        sent.parts.append(text)
        sent.length += len(text)
        return [_deltas.arguments_delta(len(self._calls) - 1, text)]

    def _emit_string(self, after: AfterString, more: str) -> list[ChatDelta]:
        """The deltas of a feed on the lane of a string value that may close, and what follows it (``after``: the
        sent call that ends with it, the growth, what the mapper knew): ``more`` extends the value, escaped, as on
        the string lane; once the growth's take crossed the value's delimiter (the value grew by the first
        ``crossed`` characters of the text taken then), what the closings of the value, of arguments after it and
        of the call add goes with them (:meth:`AfterString.step`), the call recorded as the ordinary path's diff of
        the call mapped then does; if the lane cannot tell what they add, the ordinary path's deltas for the
        feed (it parses the text taken)."""
        sent = after.sent
        growth_ = after.growth
        if after.published is not None:  # (the call published: anything that shows is the ordinary path's)
            if after.step() is None:
                self._fast = None
                return self._ordinary("")
            return []
        if not growth_.literal:
            sent.string_end += len(more)
            if not more:
                return []
            grown = _json_body(more)
            sent.parts.append(grown)
            sent.length += len(grown)
            return [_deltas.arguments_delta(len(self._calls) - 1, grown)]
        value = ""
        if not after.crossed:  # (the take that crossed: the value grew by its first characters)
            after.crossed = True
            value = more[: growth_.crossed]
        added = after.step()
        if added is None:
            self._fast = None
            return self._ordinary("")
        if value:
            sent.string_end += len(value)
            added = _json_body(value) + added
        if after.string_closed:
            sent.string_start = sent.string_end = -1
        if after.complete:
            sent.complete = True
            sent.span_start = sent.span_end = -1
        out = []
        if added:
            sent.parts.append(added)
            sent.length += len(added)
            out.append(_deltas.arguments_delta(len(self._calls) - 1, added))
        if after.published is not None and after.sent is sent:
            # The next call's name appeared: it is published as the ordinary path's diff does (no arguments yet).
            name, call_id = after.published
            after.sent = SentCall(name, call_id, [""], 0, False, -1, -1, -1, -1)
            self._calls.append(after.sent)
            out.append(_deltas.call_start_delta(len(self._calls) - 1, call_id, name, ""))
        return out

    def _first_content(self, target: tuple[list[tuple[int, int]], str], more: str) -> list[ChatDelta]:
        """The lane's growth of a content of which nothing was sent: ``target`` is the tail whose last span grows
        and the content so far (whitespace held back, or ''). What the ordinary path does: while the content
        (after the prefix) stays whitespace only it is held back (out of sync); else all of it is sent, after the
        prefix, and the lane goes on as a content lane."""
        tail, held = target
        held += more
        prefix = self._prefix
        if not (prefix + held).strip() and not self._asm.options.keep_blank_content:
            self._synced_content = False
            self._fast = (_NEW_CONTENT, (tail, held))
            return []
        self._synced_content = True
        self._fast = (_CONTENT, tail)
        self._content.add(held)
        if prefix:
            self._prefix_sent = True
            held = prefix + held
        return [_deltas.text_delta("content", held)]

    # --- diffing -------------------------------------------------------------------------------------------------
    def _grow(self, field: str, old: str, new: str) -> str:
        """The suffix ``new`` adds to ``old`` ('' if none); a non-extension is recorded, not sent."""
        if new.startswith(old):
            return new[len(old) :]
        warning = f"stream: {field} changed in a way that would retract sent text; kept what was sent"
        if warning not in self._warnings:
            self._warnings.append(warning)
        return ""

    def _emit_step(self, step: Step, src: str) -> list[ChatDelta]:
        """The deltas of one feed's incremental mapping of the output ``src`` (see the module docstring)."""
        if not step.changed and self._role_sent:
            return []  # the mapped message is the previous feed's, which was sent (see Step.changed)
        old_r, old_c = self._tail_reasoning, self._tail_content
        tail_r, tail_c = step.tail_reasoning, step.tail_content
        self._tail_reasoning, self._tail_content = tail_r, tail_c
        if (
            not (old_r or old_c or tail_r or tail_c or step.settled_reasoning or step.settled_content)
            and not step.rolled_back
            and self._role_sent
        ):
            # The common ordinary feed (inside or between calls): no text before or after the cursor, so both
            # texts are what the last diff saw, and diffing them again sends nothing, in sync or not (a
            # divergence is recorded once, blank content stays held): no text delta, no list built.
            out: list[ChatDelta] = []
        else:
            new_r = step.settled_reasoning + tail_r if step.settled_reasoning else tail_r
            new_c = step.settled_content + tail_c if step.settled_content else tail_c
            # What was sent after the cursor this step starts from: what it dropped, then the last tail.
            if step.rolled_back:
                old_r, old_c = step.dropped_reasoning + old_r, step.dropped_content + old_c
            fast_r = growth(old_r, new_r, src) if self._synced_reasoning else None
            fast_c = None
            if self._synced_content:
                if self._content.length or self._prefix_sent:
                    fast_c = growth(old_c, new_c, src)
                elif not new_c and not old_c and not step.rolled_back:
                    fast_c = ""  # no content before or after, and what was sent is all of it: nothing to send
            if fast_r == "" and fast_c == "" and self._role_sent:
                out = []  # both texts known unchanged (and in sync): no text delta, no prefix
            else:
                out = self._text_step(step, fast_r, fast_c, src)
        if self._synced_calls:
            if step.calls or len(self._calls) > step.first_call:  # else: no call before or after the cursor
                self._call_deltas(out, step.calls, step.first_call, src)
        else:
            self._call_deltas(out, [*self._mapper.calls[: step.first_call], *step.calls], 0, src)
        if step.warnings:
            self._add_warnings(step.warnings)
        return out

    def _text_step(self, step: Step, fast_r: str | None, fast_c: str | None, src: str) -> list[ChatDelta]:
        """The role, reasoning and content deltas of one feed's incremental mapping of ``src`` (``fast_*``: see
        :meth:`_text_deltas`; when both are known, no field is built)."""
        if fast_r is not None and fast_c is not None:
            return self._text_deltas(fast_r, _no_text, fast_c, _no_text, None, final=False)
        m = self._mapper
        return self._text_deltas(
            fast_r,
            lambda: join([*m.reasoning, *step.tail_reasoning], src),
            fast_c,
            lambda: join([*m.content, *step.tail_content], src),
            None,
            final=False,
        )

    def _emit_full(self, new: MappedMessage, *, final: bool = False) -> list[ChatDelta]:
        """The deltas from a whole message (a failed parse's, or the final one): every field compared whole."""
        out = self._text_deltas(
            None, lambda: new.reasoning, None, lambda: new.content, lambda: bool(new.calls or new.reasoning), final
        )
        self._call_deltas(out, new.calls, 0, "")
        self._add_warnings(new.warnings)
        # The tails describe no feed now: the next step diffs in full.
        self._synced_reasoning = self._synced_content = self._synced_calls = False
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
        has_calls_or_reasoning: Callable[[], bool] | None,
        final: bool,
    ) -> list[ChatDelta]:
        """Role, reasoning and content deltas. ``fast_*``: the growth when known from the tails (None: compare
        the whole field, which ``reasoning()``/``content()`` build). ``has_calls_or_reasoning``: asked only at
        the end (``final``), of a blank content."""
        out = self._role()
        grown = fast_reasoning
        if grown is None:
            whole = reasoning()
            grown = self._grow("reasoning", self._reasoning.text, whole)
            self._synced_reasoning = whole.startswith(self._reasoning.text)
        else:
            self._synced_reasoning = True
        if grown:
            self._reasoning.add(grown)
            out.append(_deltas.text_delta("reasoning_content", grown))
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
                and (
                    not final
                    or has_calls_or_reasoning is None
                    or self._asm.blank(whole, has_calls_or_reasoning=has_calls_or_reasoning())
                )
            ):
                grown = ""
                synced = not full
            self._synced_content = synced
        else:
            self._synced_content = True
        if self._prefix and not self._prefix_sent and (grown or final):
            self._prefix_sent = True
            self._content.add(grown)
            grown = self._prefix + grown
        elif grown:
            self._content.add(grown)
        if grown:
            out.append(_deltas.text_delta("content", grown))
        return out

    def _add_warnings(self, warnings: Sequence[str]) -> None:
        for w in warnings:
            if w not in self._warning_set:
                self._warning_set.add(w)
                self._sent_warnings.append(w)

    def _call_deltas(self, out: list[ChatDelta], calls: list[MappedCall], start: int, source: str) -> None:
        """Append to ``out`` the deltas for ``calls``, the calls of the message from index ``start`` on (those
        before are unchanged and were sent whole). ``source``: the output, for diffing verbatim arguments by
        their spans ('' for no span diffing)."""
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
                complete = call.complete
                if old.complete and complete:
                    continue  # sent whole: a complete call never changes
                begin, end = call.args_span
                value_begin, value_end = call.open_string
                was_end, was_value_end = old.span_end, old.string_end
                if source and begin >= 0 and old.span_start == begin and was_end <= end:
                    grown = source[was_end:end]  # the output only grows: a longer span extends
                elif source and value_begin >= 0 and old.string_start == value_begin and was_value_end <= value_end:
                    grown = _json_body(source[was_value_end:value_end])  # the same value, longer
                else:
                    old_args, new_args = joined(old.parts), call.arguments
                    if not new_args.startswith(old_args):
                        self._grow(f"tool call {i} arguments", old_args, new_args)  # records the warning
                        synced = False
                        continue
                    grown = new_args[len(old_args) :]
                if grown:
                    old.parts.append(grown)
                    old.length += len(grown)
                    out.append(_deltas.arguments_delta(i, grown))
                old.complete = complete
                old.span_start, old.span_end = begin, end
                old.string_start, old.string_end = value_begin, value_end
            else:
                name, call_id, args = call.name, call.id, call.arguments
                begin, end = call.args_span
                value_begin, value_end = call.open_string
                sent.append(
                    SentCall(name, call_id, [args], len(args), call.complete, begin, end, value_begin, value_end)
                )
                out.append(_deltas.call_start_delta(i, call_id, name, args))
        if start + len(calls) < len(sent):
            self._grow("tool calls", "x" * len(sent), "x" * (start + len(calls)) + "\x00")
            synced = False
        self._synced_calls = synced


_REASONING, _CONTENT, _ARGS, _STRING, _SILENT, _NEW_CONTENT, _CLOSING, _AFTER_STRING = range(8)
_FAIL = Status.FAIL
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
# Nodes that may open or close inside text the lane takes without parsing (see peg.QuietTags), while nothing the
# mapper shows grows (a _SILENT lane): the message stays the same. Rules and blocks are containers the mapper
# reads through. A call that opens is not published until its name is complete (its head, an atomic group, is
# not quiet); an argument that opens shows nothing until its name is complete (the first one's name starts the
# arguments, "{").
_QUIET = QuietTags(opening=("", BLOCK, TOOL, TOOL_ARG), closing=("", BLOCK))
# In a call whose arguments are begun ("{" mapped), an argument's head may appear and a JSON value open: the
# value shows nothing until its closer (a string, Python or converted value is not quiet: they show the name).
_QUIET_IN_ARGUMENTS = QuietTags(
    opening=(*_QUIET.opening, TOOL_ARG_OPEN, TOOL_ARG_NAME, TOOL_ARG_JSON_VALUE),
    closing=(*_QUIET.closing, TOOL_ARG_OPEN, TOOL_ARG_NAME),
)
# After a call's JSON arguments, written as they are and closed: the call may close (its arguments are its
# arguments node's text; what its end could add — an id, a closer — has a tag of its own, not quiet).
_QUIET_AFTER_ARGUMENTS = QuietTags(opening=_QUIET.opening, closing=(*_QUIET.closing, TOOL))
# After XML-style arguments all closed and sent: the call's closer and then the call may close as well, marked (the
# lane sends what the closing adds, see ChatStream._emit_closing), and what follows open (a block, the next call).
_QUIET_CLOSING_CALL = QuietTags(
    opening=(*_QUIET_IN_ARGUMENTS.opening, TOOL_CLOSE),
    closing=_QUIET_IN_ARGUMENTS.closing,
    marked=(TOOL_CLOSE, TOOL),
)
# On a string value still open (the last of a call's XML-style arguments, sent): its delimiter may come, the value
# and its argument close, arguments with JSON values follow and close, the call closes, the next call's head
# appears (marked, with spans for the names and values: the lane sends what each closing adds, see
# chat_formats._after_string), and its arguments' heads (a string value opening is not quiet: it shows its name).
_QUIET_AFTER_STRING = QuietTags(
    opening=(*_QUIET_IN_ARGUMENTS.opening, TOOL_ARG_CLOSE, TOOL_CLOSE, TOOL_OPEN, TOOL_NAME),
    closing=(*_QUIET_IN_ARGUMENTS.closing, TOOL_ARG_STRING_VALUE, TOOL_ARG_JSON_VALUE, TOOL_OPEN),
    marked=(TOOL_ARG_OPEN, TOOL_ARG_NAME, TOOL_ARG_CLOSE, TOOL_ARG, TOOL_CLOSE, TOOL, TOOL_NAME),
    spans=(TOOL_ARG_NAME, TOOL_ARG_JSON_VALUE, TOOL_NAME),
)


_PLANS: dict[tuple[str, ...], tuple[int, int]] = {}  # _plan per live path's tags (a grammar has few of them)
_MAX_PLANS = 4096  # (a bound all the same: nested rules may make many)


def _plan(tags: tuple[str, ...]) -> tuple[int, int]:
    """What a lane on a live path with ``tags`` (innermost first) can be: ``(_SILENT, 0)`` (nothing the mapper
    shows grows); ``(_CONTENT or _REASONING, at)`` (the text node ``tags[at]``, not inside a call or another
    text); ``(_ARGS or _STRING, at)`` (a call's arguments or open string value, inside one call and no text);
    else ``(-1, 0)``. Cost O(len(tags))."""
    if _silent(tags):
        return (_SILENT, 0)
    at = 0
    while not tags[at]:
        at += 1  # rule nodes (tag '') inside the node that grows: the mapper never looks at them
    inner, outer = tags[at], tags[at + 1 :]
    if inner in _TEXTS:
        if not _MAPPED_WHOLE.isdisjoint(outer):
            return (-1, 0)  # inside a call or another text node: not mapped as a text of its own
        return (_CONTENT if inner == CONTENT else _REASONING, at)
    if inner in (TOOL_ARGS, TOOL_ARG_STRING_VALUE) and outer.count(TOOL) == 1 and _TEXT_TAGS.isdisjoint(outer):
        return (_ARGS if inner == TOOL_ARGS else _STRING, at)
    return (-1, 0)


def _no_text() -> str:
    """A field's text where it is known not to be needed (its growth is known)."""
    return ""


def _silent(tags: Sequence[str]) -> bool:
    """Whether a live path of nodes with ``tags`` can grow without changing the mapped message."""
    # A loop, not all(generator): compiled, no generator object per feed.
    for t in tags:  # noqa: SIM110
        if t not in _SILENT_TAGS and not t.startswith(_CONVERTED):
            return False
    return True


_escape = json.encoder.encode_basestring  # JSON string literal of a text (non-ASCII kept), as json.dumps does


def _json_body(text: str) -> str:
    """``text`` as it is inside a JSON string literal (non-ASCII kept). Most pieces need no escape (the escaped
    characters — quote, backslash, controls — are not printable or are tested): those are returned as they are,
    without building the literal."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return _escape(text)[1:-1]
