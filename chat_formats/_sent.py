# cython: annotation_typing=False
"""What a :class:`~chat_formats.stream.ChatStream` remembers of the message it has sent: each text field and
each call as the pieces sent (joined only when read). Compiled, both are extension types with C fields (see
``_sent.pxd``), which the stream reads directly.
"""

from __future__ import annotations

__all__ = ["SentCall", "SentText"]


class SentCall:
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
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""
