# cython: annotation_typing=False
"""What a :class:`~chat_formats.stream.ChatStream` remembers of the message it has sent: each text field and
each call as the pieces sent (joined only when read). Compiled, both are extension types with C fields (see
``_sent.pxd``), which the stream reads directly.
"""

from __future__ import annotations

__all__ = ["SentCall", "SentText", "joined"]


class SentCall:
    """A call as sent: name, id, arguments as the pieces sent (joined when read), their length, whether sent
    complete, and where the arguments stand in the text: ``span_start``/``span_end``, the span they were when
    written verbatim (see ``MappedCall.args_span``), and ``string_start``/``string_end``, the span of the open
    string value they end with (``MappedCall.open_string``); ``-1`` for none. (Four integers, not two pairs:
    the fast lane moves an end per feed.)"""

    __slots__ = ("complete", "id", "length", "name", "parts", "span_end", "span_start", "string_end", "string_start")

    def __init__(
        self,
        name: str,
        id: str,
        parts: list[str],
        length: int,
        complete: bool,
        span_start: int,
        span_end: int,
        string_start: int,
        string_end: int,
    ) -> None:
        self.name = name
        self.id = id
        self.parts = parts
        self.length = length
        self.complete = complete
        self.span_start = span_start
        self.span_end = span_end
        self.string_start = string_start
        self.string_end = string_end

    @property
    def arguments(self) -> str:
        return joined(self.parts)


class SentText:
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
        return joined(self.parts)


def joined(parts: list[str]) -> str:
    """The pieces ``parts`` (of a sent text or a sent call's arguments) joined, and kept joined: one piece from now
    on. O(their length) when there are several."""
    if len(parts) > 1:
        whole = "".join(parts)
        parts.clear()
        parts.append(whole)
        return whole
    return parts[0] if parts else ""
