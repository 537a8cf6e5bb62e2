"""Tracing a parse: what ``parser.parse(text, trace=True)`` writes, one line per combinator entered and left (the
packrat machine calls it only when tracing, and then takes no fast path)."""

from __future__ import annotations

import sys
from typing import Any, TextIO

__all__ = ["Tracer"]

_STATUS_NAMES = {0: "ok", 1: "fail", 2: "more"}


class Tracer:
    """Writes ``<indent><combinator> @<pos>`` on entry and ``-> ok|fail|more <end>`` on exit to ``out``."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stderr

    def _write(self, depth: int, line: str) -> None:
        self.out.write("  " * depth + line + "\n")

    def call(self, label: str, pos: int, depth: int) -> None:
        self._write(depth, f"{label} @{pos}")

    def ret(self, label: str, start: int, depth: int, result: tuple[Any, ...]) -> None:
        self._write(depth, f"{label} @{start} -> {_STATUS_NAMES[result[0]]} {result[1]}")

    def leaf(self, label: str, pos: int, depth: int, result: tuple[Any, ...]) -> None:
        self._write(depth, f"{label} @{pos} -> {_STATUS_NAMES[result[0]]} {result[1]}")

    def memo(self, label: str, pos: int, depth: int, result: tuple[Any, ...]) -> None:
        self._write(depth, f"{label} @{pos} -> {_STATUS_NAMES[result[0]]} {result[1]} (memo)")
