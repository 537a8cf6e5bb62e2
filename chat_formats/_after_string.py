# cython: annotation_typing=False
"""What a call's XML-style arguments gain after a string value, read from peg's events instead of a parse.

A stream's fast lane takes the text of a string value that the model is still writing (it sends that text,
escaped). With deep quiet tags (:class:`peg.QuietTags` with spans) it also takes the text after the value: its
delimiter, the arguments after it whose values are written as JSON, the call's closer and the next call's name —
text that opens and closes only nodes whose whole effect on the mapped message can be computed from the events of
the take (:meth:`peg.Growth.events`) — instead of stopping at each closing for a parse and a mapping.

:class:`AfterString` reads those events as the mapper (``chat_formats._arguments._xml_arguments``) reads the
nodes of a parse: the string value's argument closes (its closing quote), each later argument closes with a
name and a JSON value (``, "name": value``, the value typed by the tool's schema as the mapper types it), the
call closes (``}``), the next call's name appears (the call is published, its id generated). Whatever would
make the mapper add a warning (an argument given twice, a value that is not JSON for its schema, a required
argument missing) or anything it does not expect makes :meth:`AfterString.step` answer None: the stream then
parses and maps as usual (the ordinary path), so what is sent is always what the ordinary path would send.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peg import CLOSES, ENDS, OPENS

from ._values import encode, typed_value
from .builder import (
    TOOL,
    TOOL_ARG,
    TOOL_ARG_CLOSE,
    TOOL_ARG_JSON_VALUE,
    TOOL_ARG_NAME,
    TOOL_ARG_OPEN,
    TOOL_CLOSE,
    TOOL_NAME,
    ToolSpec,
)
from .mapper import generated_id

if TYPE_CHECKING:
    from peg import Growth

    from ._sent import SentCall

__all__ = ["AfterString"]

_EMPTY: dict[str, object] = {}


class AfterString:
    """The lane's reading of the events after a string value of the last sent call (``sent``, whose arguments end
    with that value, open), taken by ``growth`` (deep quiet tags); ``spec``: the call's tool (None if unknown);
    ``seen``: the names of its closed arguments and the string value's (the mapper's, at the last parse).

    ``salt``, ``next_index``: the stream's salt and the index of the next call, whose id the lane generates
    when it publishes it (-1: ids are not generated at once, the lane does not publish).

    ``crossed``: whether a take crossed the value's delimiter (the stream's record); ``string_closed``: whether
    the value's argument closed; ``complete``: whether the call closed; ``published``: the name and id of the
    next call once its name appeared (the stream sends it and records it). Each :meth:`step` reads the events from
    the first that no closing consumed yet (``done``; ``last``: the one before), when the growth's events changed
    since the last step (``version``)."""

    __slots__ = (
        "complete", "crossed", "done", "growth", "last", "next_index", "published", "salt", "seen", "sent", "spec",
        "string_closed", "version",
    )  # fmt: skip

    def __init__(
        self, sent: SentCall, growth: Growth, spec: ToolSpec | None, seen: set[str], salt: str, next_index: int
    ) -> None:
        self.sent = sent
        self.growth = growth
        self.spec = spec
        self.seen = seen
        self.salt = salt
        self.next_index = next_index
        self.published: tuple[str, str] | None = None
        self.done = 0
        self.last: tuple[str, int, int] = ("", -1, -1)  # the last event consumed
        self.version = -1  # the growth's version the last step read
        self.crossed = False
        self.string_closed = False
        self.complete = False

    def step(self) -> str | None:
        """What the call's arguments gain from the events since the last step: the closing quote of the value,
        ``, "name": value`` per argument closed, ``}`` once the call closed ('' if nothing closed); None if the
        ordinary path must decide (see the module docstring; this object is then of no further use). Cost
        O(events since the last closing), plus typing each value closed."""
        growth = self.growth
        if growth.version == self.version:
            return ""  # (no new event)
        self.version = growth.version
        events = growth.events()
        n = len(events)
        j = self.done
        if j > n or (j and events[j - 1] != self.last):
            return None  # (the events the last closing consumed were replaced: not followed)
        start = j
        name_open = name_end = value_open = value_end = -1
        closer = False  # the argument's or the call's closer closed since the last closing
        added = ""
        while j < n:
            tag, kind, at = events[j]
            j += 1
            if self.complete:
                # After the call: the next call's name, then nothing that shows (an argument's head does).
                if self.published is not None or self.next_index < 0:
                    if kind == CLOSES:
                        return None
                    continue
                if tag == TOOL_NAME:
                    if kind == OPENS:
                        name_open = at
                    elif kind == ENDS:
                        name_end = at
                    elif name_open < 0 or name_end < name_open:
                        return None
                    else:
                        self._publish(name_open, name_end)
                        name_open = name_end = -1
                        self.done = j
                    continue
                if kind == CLOSES:
                    return None
                continue
            if kind == OPENS:
                if tag == TOOL_ARG_NAME:
                    if name_open >= 0:
                        return None
                    name_open = at
                elif tag == TOOL_ARG_JSON_VALUE:
                    if value_open >= 0:
                        return None
                    value_open = at
                continue
            if kind == ENDS:
                if tag == TOOL_ARG_NAME:
                    name_end = at
                elif tag == TOOL_ARG_JSON_VALUE:
                    value_end = at
                continue
            if kind != CLOSES:
                return None
            if tag in (TOOL_ARG_CLOSE, TOOL_CLOSE):
                closer = True
                continue
            if tag in (TOOL_ARG_OPEN, TOOL_ARG_NAME):
                continue  # (an argument's head appeared: what its closing reads is its name's span)
            if tag == TOOL_ARG:
                if not closer:
                    return None
                if not self.string_closed:
                    if name_open >= 0 or value_open >= 0:
                        return None
                    self.string_closed = True
                    added += '"'
                else:
                    part = self._argument(name_open, name_end, value_open, value_end)
                    if part is None:
                        return None
                    added += part
            elif tag == TOOL:
                if not (closer and self.string_closed) or name_open >= 0 or value_open >= 0 or not self._all_required():
                    return None
                self.complete = True
                added += "}"
            elif tag != TOOL_ARG_JSON_VALUE:
                return None  # (a marked tag this reading does not know)
            else:
                continue  # (a JSON value closed: its span is what its argument's closing reads)
            name_open = name_end = value_open = value_end = -1
            closer = False
            self.done = j
        if self.done > start:
            self.last = events[self.done - 1]
        return added

    def _argument(self, name_open: int, name_end: int, value_open: int, value_end: int) -> str | None:
        """``, "name": value`` for an argument whose name and JSON value span those offsets of the run's text, as
        the mapper writes it; None if the mapper would add a warning or the spans are not whole."""
        if name_open < 0 or name_end < name_open or value_open < name_end or value_end < value_open:
            return None
        text = self.growth.run_text()
        key = text[name_open:name_end]
        if key in self.seen:
            return None  # (the mapper warns: given twice)
        spec = self.spec
        prop = spec.property_schema(key) if spec is not None else _EMPTY
        warnings: list[str] = []
        where = spec.name if spec is not None else "tool call"
        body = typed_value(text[value_open:value_end], prop, f"{where}.{key}", warnings)
        if warnings:
            return None
        self.seen.add(key)
        return ", " + encode(key) + ": " + body

    def _publish(self, name_open: int, name_end: int) -> None:
        """The next call, named by the text between those offsets of the run's text, as the mapper publishes it
        once its name appeared (ids generated): ``published`` is its name and id."""
        name = self.growth.run_text()[name_open:name_end]
        self.published = (name, generated_id(self.salt, self.next_index, name))

    def _all_required(self) -> bool:
        """Whether every required argument of the tool was given (closing the call adds no warning)."""
        spec = self.spec
        return spec is None or not spec.required or self.seen.issuperset(spec.required)
