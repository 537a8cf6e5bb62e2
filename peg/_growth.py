"""Pure growth: text a stream can take without running the machine, because it only lengthens the live path.

Most of a model's output extends one growing text — content, reasoning, a JSON string, an XML parameter value —
that no marker the parser waits for can interrupt. After a feed whose partial result stopped *inside a text
scanner* (an ``until`` leaf or a JSON string) with nothing held back, the result for a longer text is the same
tree with the live path's nodes ending later, as long as the new text

* for ``until``: contains no delimiter, and no suffix of it is the start of one (that would be held back; the
  text before it held nothing back, so a delimiter cannot start there and end in the new text — a suffix of
  the old text starting far enough back to be a delimiter's start would have been held), and no undecodable
  character (a lone surrogate fails the leaf);
* for a JSON string: is a run of string characters and *complete* escapes (the old text ended with no dangling
  escape), so the scan stays inside the string and ends at the new end.

:class:`Growth` says which text qualifies (:meth:`Growth.accepts`) and which nodes grow (``tags``, ``starts``,
innermost first). :meth:`peg.Stream.extend` uses it to append such text in O(its length); the machine scans
it at the next feed exactly as if it had been fed then (any chunking gives the same parse).
"""

from __future__ import annotations

import re
from typing import Any

from ._compile import K_JSON, K_UNTIL
from ._json import STRING_BODY, STRING_MODE
from ._packrat import CALL_MODE, NODE_STEP, Machine

__all__ = ["Growth", "growth_of"]

_NO_SURROGATE = re.compile("[^\ud800-\udfff]*")


class Growth:
    """Text that only lengthens the live path of a partial parse: see the module docstring.

    ``tags``/``starts``: the tag ('' for a rule) and start offset of each node on the live path, innermost
    first; each ends at the end of the text and keeps doing so for accepted text."""

    __slots__ = ("_delims", "_first", "_plain", "starts", "tags")

    def __init__(
        self,
        tags: tuple[str, ...],
        starts: tuple[int, ...],
        plain: re.Pattern[str],
        delims: tuple[str, ...] = (),
        first: re.Pattern[str] | None = None,
    ) -> None:
        self.tags = tags
        self.starts = starts
        self._plain = plain  # text it matches whole is accepted at once
        self._delims = delims  # ``until``: the delimiters, checked where ``first`` finds a start
        self._first = first

    def accepts(self, more: str) -> bool:
        """Whether appending ``more`` only lengthens the live path. Cost O(len(more)) (one C-level match, or
        for an ``until`` chunk holding a delimiter's first character, a check at each such character)."""
        if self._plain.fullmatch(more) is not None:
            return True
        first = self._first
        if first is None or _NO_SURROGATE.fullmatch(more) is None:
            return False
        for m in first.finditer(more):
            tail = more[m.start() :]
            for d in self._delims:
                if tail.startswith(d) or d.startswith(tail):
                    return False  # a delimiter here, or the start of one held back
        return True


def growth_of(machine: Machine, end: int) -> Growth | None:
    """The growth of ``machine`` after a partial run that needed more input and ended at ``end``, or None
    when the run did not stop inside a text scanner with nothing held back (``end`` below the text's end),
    or a look-ahead or atomic group lies on the live path. Cost O(depth of the live path)."""
    snap = machine.snapshot
    if (
        snap is None
        or snap.mode != CALL_MODE
        or snap.stack is None
        or snap.stack is not machine.plan_stack
        or machine.tracer is not None
        or end != len(machine.text)
    ):
        return None
    steps = machine.plan[0]
    if not steps or any(kind != NODE_STEP for kind, _, _, _ in steps):
        return None
    tags = tuple(fop.tag for _, fop, _, _ in steps)
    starts = tuple(start for _, _, start, _ in steps)
    op: Any = snap.op
    if op.kind == K_UNTIL:
        if not op.delims:
            return Growth(tags, starts, _NO_SURROGATE)
        plain = _plain_until(op)
        return Growth(tags, starts, plain, op.delims, op.first)
    if op.kind == K_JSON and snap.resume is not None and snap.resume[0] == STRING_MODE:
        return Growth(tags, starts, STRING_BODY)
    return None


_PLAIN: dict[tuple[str, ...], re.Pattern[str]] = {}


def _plain_until(op: Any) -> re.Pattern[str]:
    """Text with no first character of a delimiter and no lone surrogate (memoised per delimiter set)."""
    plain = _PLAIN.get(op.delims)
    if plain is None:
        firsts = "".join(sorted({re.escape(d[0]) for d in op.delims}))
        plain = _PLAIN[op.delims] = re.compile(f"[^{firsts}\ud800-\udfff]*")
    return plain
