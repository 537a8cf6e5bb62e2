"""Typed errors, split by phase.

* :class:`GrammarError` and :class:`SchemaError` mean *the definition is wrong* (a GBNF text, a combinator
  graph, a JSON Schema). They are raised when something is built, never while decoding.
* Parse errors (the input is wrong) belong to the package that parses: ``peg.ParseError``.
* :class:`MatchLimitError` means a grammar is so ambiguous that matching would need more live NPDA stacks than
  the documented cap allows.

Every error names the place: line and column for grammar text, a JSON pointer for schemas, an offset for
input. All are ``ValueError`` subclasses (except :class:`MatchLimitError`, a ``RuntimeError``) so callers that
already catch ``ValueError`` keep working.
"""

from __future__ import annotations

__all__ = [
    "ArgumentTypeError",
    "GrammarError",
    "MatchLimitError",
    "MatcherError",
    "PegchatError",
    "SamplingError",
    "SchemaError",
    "TriggerError",
    "caret_snippet",
    "line_column",
]


class PegchatError(Exception):
    """Root of every error this distribution raises on purpose."""


def line_column(text: str, offset: int) -> tuple[int, int]:
    """Return the 1-based ``(line, column)`` of ``offset`` in ``text``; cost O(offset)."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    line_start = text.rfind("\n", 0, offset) + 1
    return line, offset - line_start + 1


def caret_snippet(text: str, offset: int, *, width: int = 80) -> str:
    """Return the line containing ``offset`` and a caret under it (clipped to ``width`` columns)."""
    offset = max(0, min(offset, len(text)))
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    if line_end < 0:
        line_end = len(text)
    line = text[line_start:line_end]
    column = offset - line_start
    # Keep the caret visible on very long lines (model outputs are often one line).
    left = max(0, column - width // 2)
    shown = line[left : left + width]
    prefix = "..." if left > 0 else ""
    suffix = "..." if left + width < len(line) else ""
    shown = shown.replace("\t", " ").replace("\r", " ")
    return f"{prefix}{shown}{suffix}\n{' ' * (len(prefix) + column - left)}^"


class GrammarError(PegchatError, ValueError):
    """A grammar definition is wrong.

    Attributes: ``line`` and ``column`` (1-based, 0 when the error has no position in a text), ``rule`` (the
    rule concerned, if any) and ``source_line`` (the offending line of the grammar text).
    """

    def __init__(
        self,
        message: str,
        *,
        text: str | None = None,
        offset: int | None = None,
        rule: str | None = None,
    ) -> None:
        self.reason = message
        self.rule = rule
        self.line = 0
        self.column = 0
        self.source_line = ""
        full = message
        if text is not None and offset is not None:
            self.line, self.column = line_column(text, offset)
            self.source_line = caret_snippet(text, offset)
            full = f"{self.line}:{self.column}: {message}\n{self.source_line}"
        elif rule is not None:
            full = f"rule '{rule}': {message}"
        super().__init__(full)

    @property
    def one_line(self) -> str:
        """The message without the snippet: ``line:column: reason`` (for command-line errors)."""
        if self.line:
            return f"{self.line}:{self.column}: {self.reason}"
        if self.rule is not None:
            return f"rule '{self.rule}': {self.reason}"
        return self.reason


class SchemaError(PegchatError, ValueError):
    """A JSON Schema cannot be converted exactly; ``pointer`` is the JSON pointer of the offending part."""

    def __init__(self, message: str, *, pointer: str = "") -> None:
        self.reason = message
        self.pointer = pointer
        super().__init__(f"{pointer or '#'}: {message}" if pointer or message else message)

    @property
    def one_line(self) -> str:
        return f"{self.pointer or '#'}: {self.reason}"


class TriggerError(PegchatError, ValueError):
    """A lazy-grammar trigger is malformed (empty word, bad pattern, negative token id); ``value`` is what was
    given."""

    def __init__(self, message: str, value: object = None) -> None:
        self.reason = message
        self.value = value
        super().__init__(message)


class MatcherError(PegchatError, ValueError):
    """A matcher, compiler or bitmask call got arguments it cannot use: a rollback beyond the kept history, a
    bitmask of the wrong shape, dtype or device, a row index out of range, a compiled grammar for another
    vocabulary. Raised at the call (never inside the matcher's state: the matcher is unchanged)."""


class ArgumentTypeError(PegchatError, TypeError):
    """An argument has the wrong type (grammar text that is not ``str``, a bitmask that is not an array)."""


class SamplingError(PegchatError, RuntimeError):
    """:func:`~gbnf_backend.sample_with_grammar` could not sample: no token is allowed, or the sampler returned
    one the mask excludes."""


class MatchLimitError(PegchatError, RuntimeError):
    """The NPDA would need more simultaneous stacks than ``limit`` (the grammar is too ambiguous)."""

    def __init__(self, limit: int, offset: int | None = None) -> None:
        self.limit = limit
        self.offset = offset
        where = f" at offset {offset}" if offset is not None else ""
        super().__init__(
            f"grammar too ambiguous: more than {limit} live parse stacks{where}; "
            "rewrite nested repetitions of ambiguous items"
        )
