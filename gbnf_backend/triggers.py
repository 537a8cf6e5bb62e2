"""Lazy-grammar triggers: when to start constraining, and from which text.

While a lazy matcher awaits a trigger every token (and EOS) is allowed. A trigger fires when:

* ``Trigger.word(text)`` — ``text`` appears in what was generated since the matcher started (or was reset);
* ``Trigger.pattern(regex)`` — ``regex`` is found anywhere in it;
* ``Trigger.pattern_full(regex)`` — ``regex`` matches all of it;
* ``Trigger.token(id)`` — token ``id`` is generated.

The grammar is then fed the text from where the trigger starts (for patterns with groups: where the first
participating capture group starts) up to the end of the token that completed it.

Word triggers are scanned with an Aho–Corasick automaton over bytes (:class:`WordScanner`), which also lets the
mask layer find, for all tokens at once, the ones that would complete a word.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import regex

__all__ = ["Trigger", "WordScanner"]

TriggerKind = Literal["word", "pattern", "pattern_full", "token"]


@dataclass(frozen=True)
class Trigger:
    """One way a lazy grammar can be activated. Build with the class methods."""

    type: TriggerKind
    value: str | int

    @classmethod
    def word(cls, text: str) -> Trigger:
        """Fire when ``text`` appears in the output."""
        if not isinstance(text, str) or not text:
            raise ValueError("a word trigger needs non-empty text")
        return cls("word", text)

    @classmethod
    def pattern(cls, pattern: str) -> Trigger:
        """Fire when the regular expression ``pattern`` is found anywhere in the output."""
        _compile(pattern)
        return cls("pattern", pattern)

    @classmethod
    def pattern_full(cls, pattern: str) -> Trigger:
        """Fire when the regular expression ``pattern`` matches the whole output so far."""
        _compile(pattern)
        return cls("pattern_full", pattern)

    @classmethod
    def token(cls, token_id: int) -> Trigger:
        """Fire when token ``token_id`` is generated."""
        if not isinstance(token_id, int) or token_id < 0:
            raise ValueError(f"a token trigger needs a token id, got {token_id!r}")
        return cls("token", token_id)

    def to_json(self) -> dict[str, str | int]:
        """Return ``{"type": ..., "value": ...}`` (the command line's form)."""
        return {"type": self.type, "value": self.value}


def _compile(pattern: str) -> regex.Pattern[str]:
    try:
        return regex.compile(pattern)
    except regex.error as error:
        raise ValueError(f"invalid trigger pattern {pattern!r}: {error}") from error


class WordScanner:
    """An Aho–Corasick automaton over the UTF-8 bytes of the word triggers.

    ``table[state, byte]`` is the next state; ``match_start[state]`` is the length of the longest word that ends
    in that state (0 if none), so the trigger text starts that many bytes back.
    """

    def __init__(self, words: list[str]) -> None:
        encoded = [w.encode("utf-8") for w in words]
        goto: list[dict[int, int]] = [{}]
        depth = [0]
        ends = [0]
        for word in encoded:
            node = 0
            for byte in word:
                nxt = goto[node].get(byte)
                if nxt is None:
                    nxt = len(goto)
                    goto[node][byte] = nxt
                    goto.append({})
                    depth.append(depth[node] + 1)
                    ends.append(0)
                node = nxt
            ends[node] = max(ends[node], len(word))
        n = len(goto)
        fail = [0] * n
        table = np.zeros((n, 256), dtype=np.int32)
        order: deque[int] = deque()
        for byte, child in goto[0].items():
            table[0, byte] = child
            order.append(child)
        while order:
            node = order.popleft()
            if not ends[node]:
                ends[node] = ends[fail[node]]
            table[node] = table[fail[node]]
            for byte, child in goto[node].items():
                fail[child] = int(table[fail[node], byte])
                table[node, byte] = child
                order.append(child)
        # A state inside a completed word stays "completed" for our purpose: once a word fired we stop scanning.
        self.table: npt.NDArray[np.int32] = table
        self.match_length = np.array(ends, dtype=np.int32)
        self.depth = depth

    def feed(self, state: int, data: bytes) -> tuple[int, int | None]:
        """Return ``(state, end)``: ``end`` is the offset in ``data`` just past the first completed word, if any."""
        table, lengths = self.table, self.match_length
        for i, byte in enumerate(data):
            state = int(table[state, byte])
            if lengths[state]:
                return state, i + 1
        return state, None
