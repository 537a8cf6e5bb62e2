"""GrammarMatcher: what a server calls between the forward pass and sampling.

>>> matcher = GrammarMatcher(grammar, vocab)            # doctest: +SKIP
>>> bitmask = allocate_token_bitmask(1, vocab.size)     # doctest: +SKIP
>>> matcher.fill_next_token_bitmask(bitmask)            # doctest: +SKIP
>>> matcher.accept_token(sampled)                       # doctest: +SKIP

Exactness: a token is allowed iff feeding its bytes keeps the grammar alive (a token ending inside a UTF-8
character counts when some continuation is valid); special tokens only through ``<[id]>`` references; EOS iff the
grammar may end. With triggers the matcher is *lazy*: until a trigger fires every token and EOS are allowed,
except tokens that would fire a word or token trigger and at once break the grammar.

Inside the decode loop nothing raises: a failure (for example a grammar too ambiguous for the stack cap) puts the
matcher in a sticky error state (:meth:`GrammarMatcher.is_error`, :attr:`GrammarMatcher.error`) in which only EOS
is allowed and every token is refused.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import regex

from ._mask_engine import MaskEngine
from ._npda import DEAD, NextChars
from ._utf8 import Partial, feed_bytes
from ._vocab_index import VocabIndex, ids_to_words, tokens_below
from .errors import PegchatError
from .grammar import Grammar
from .triggers import Trigger, WordScanner, pattern_anchors
from .vocab import Vocabulary

__all__ = ["GrammarMatcher", "compile_grammar"]

_ENGINES: weakref.WeakKeyDictionary[Grammar, dict[str, MaskEngine]] = weakref.WeakKeyDictionary()
_INDEXES: dict[str, VocabIndex] = {}


def compile_grammar(grammar: Grammar | str, vocab: Vocabulary) -> MaskEngine:
    """Return the shared mask engine (caches) of ``grammar`` over ``vocab``; cheap after the first call."""
    if isinstance(grammar, str):
        grammar = Grammar.from_gbnf(grammar)
    fingerprint = vocab.fingerprint()
    per_grammar = _ENGINES.setdefault(grammar, {})
    engine = per_grammar.get(fingerprint)
    if engine is None:
        index = _INDEXES.get(fingerprint)
        if index is None:
            index = VocabIndex(vocab)
            _INDEXES[fingerprint] = index
        engine = MaskEngine(grammar, vocab, index=index)
        per_grammar[fingerprint] = engine
    return engine


@dataclass(frozen=True)
class _State:
    """Everything that changes per token (immutable, so rollback is a list of snapshots)."""

    npda_state: int
    partial: Partial
    awaiting: bool
    scan_state: int  # Aho-Corasick state over the bytes generated while awaiting (word triggers)
    anchor_state: int  # the same for the anchor literals of pattern triggers
    buffer: bytes  # bytes generated while awaiting (for pattern triggers and trigger text)
    terminated: bool


class GrammarMatcher:
    """Token-level matcher over a grammar and a vocabulary (see the module docstring).

    ``grammar`` is a :class:`Grammar` or GBNF text; ``triggers`` non-empty makes it lazy;
    ``max_rollback_tokens`` bounds the history kept for :meth:`rollback` (at least 16 is guaranteed).
    """

    def __init__(
        self,
        grammar: Grammar | str,
        vocab: Vocabulary,
        *,
        triggers: Sequence[Trigger] | None = None,
        max_rollback_tokens: int = 256,
    ) -> None:
        self.engine = compile_grammar(grammar, vocab)
        self.grammar = self.engine.grammar
        self.vocab = vocab
        self.triggers: tuple[Trigger, ...] = tuple(triggers or ())
        self.lazy = bool(self.triggers)
        words = [t.value for t in self.triggers if t.type == "word"]
        self._scanner = WordScanner([str(w) for w in words]) if words else None
        self._patterns = [
            (t, regex.compile(str(t.value))) for t in self.triggers if t.type in ("pattern", "pattern_full")
        ]
        self._trigger_tokens = frozenset(int(t.value) for t in self.triggers if t.type == "token")
        anchors = [pattern_anchors(str(t.value)) for t, _ in self._patterns]
        #: With anchors for every pattern, masks while awaiting are exact and patterns run only when an anchor
        #: completes; otherwise (a pattern without a literal end) every token is allowed while awaiting.
        self.patterns_exact = all(a is not None for a in anchors)
        self._anchor_scanner = (
            WordScanner(sorted({word for found in anchors if found for word in found}))
            if self._patterns and self.patterns_exact
            else None
        )
        # The tokens containing a trigger word are found once per vocabulary and word list; do it now, while the
        # grammar is being made ready, rather than in the first mask.
        for scanner in (self._scanner, self._anchor_scanner):
            if scanner is not None:
                self.engine.index.tokens_containing(scanner.words)
        self._max_history = max(16, max_rollback_tokens)
        # Shared by every matcher with the same grammar, vocabulary and triggers.
        shared = self.engine.trigger_caches.setdefault(self.triggers, ({}, {}, {}))
        self._awaiting_masks: dict[int, npt.NDArray[np.uint32]] = shared[0]
        self._firing: dict[int, list[int]] = shared[1]
        self._anchor_firing: dict[int, list[int]] = shared[2]
        self.error: str | None = None
        self.reset()

    # ---- lifecycle ---------------------------------------------------------------------------------------------
    def reset(self) -> None:
        """Return to the initial state (awaiting a trigger, if lazy) and clear the error and the history."""
        npda = self.engine.npda
        self._state = _State(npda.initial, None, self.lazy, 0, 0, b"", False)
        self._history: list[_State] = []
        self.error = None

    def fork(self) -> GrammarMatcher:
        """Return an independent matcher in the same state, sharing the compiled caches."""
        twin = object.__new__(GrammarMatcher)
        twin.__dict__.update(self.__dict__)
        twin._history = list(self._history)
        return twin

    def is_error(self) -> bool:
        """Return whether the matcher is in its sticky error state (see :attr:`error`)."""
        return self.error is not None

    def is_terminated(self) -> bool:
        """Return whether EOS has been accepted."""
        return self._state.terminated

    def is_awaiting_trigger(self) -> bool:
        """Return whether a lazy matcher is still waiting for a trigger."""
        return self._state.awaiting

    def can_end(self) -> bool:
        """Return whether the grammar may finish now (EOS would be accepted)."""
        state = self._state
        if self.error is not None or state.terminated:
            return False
        return state.awaiting or (state.partial is None and self.engine.npda.can_end(state.npda_state))

    def next_chars(self) -> NextChars:
        """Return the code points that may come next (everything while awaiting a trigger)."""
        if self._state.awaiting:
            return NextChars(((0, 0x10FFFF),), (), True)
        return self.engine.npda.next_chars(self._state.npda_state)

    # ---- masks -------------------------------------------------------------------------------------------------
    def fill_next_token_bitmask(self, bitmask: npt.NDArray[np.int32], index: int = 0) -> bool:
        """Write the allowed tokens into row ``index`` of ``bitmask``; return whether any token is masked out.

        ``bitmask`` is ``int32[batch, ceil(V/32)]`` (bit j of word k = token 32k + j). Cost: a cached copy for a
        state seen before; otherwise see :mod:`gbnf_backend._mask_engine`.
        """
        words = self._mask_words()
        row = bitmask[index]
        np.copyto(row, words.view(np.int32)[: row.shape[0]])
        return not bool(np.all(words == 0xFFFFFFFF))

    def allowed_token_ids(self) -> npt.NDArray[np.int64]:
        """Return the ids of the allowed tokens (for debugging and tests)."""
        bits = np.unpackbits(self._mask_words().view(np.uint8), bitorder="little")[: self.vocab.size]
        return np.flatnonzero(bits)

    def _mask_words(self) -> npt.NDArray[np.uint32]:
        index = self.engine.index
        state = self._state
        if self.error is not None or state.terminated:
            return index.eos_words
        if state.awaiting:
            return self._awaiting_mask()
        try:
            return self.engine.mask(state.npda_state, state.partial)
        except PegchatError as error:
            self.error = f"mask computation failed: {error}"
            return index.eos_words

    def _awaiting_mask(self) -> npt.NDArray[np.uint32]:
        """All tokens, minus those that would fire a trigger and break the grammar at once.

        The tokens that can fire are found for all tokens at once by walking the trie through the Aho–Corasick
        automata of the trigger words and of the patterns' anchors (cached per automaton state); only those few are
        tried exactly. Without pattern triggers the whole mask is cached per scanner state.
        """
        state = self._state
        index = self.engine.index
        if self._patterns and not self.patterns_exact:
            return index.all_words  # documented fallback: a pattern without a literal end
        if self._scanner is None and self._anchor_scanner is None and not self._trigger_tokens:
            return index.all_words
        cacheable = not self._patterns
        if cacheable:
            found = self._awaiting_masks.get(state.scan_state)
            if found is not None:
                return found
        candidates = self._cached_firing(self._firing, self._scanner, state.scan_state, with_tokens=True)
        if self._anchor_scanner is not None:
            candidates = candidates + self._cached_firing(
                self._anchor_firing, self._anchor_scanner, state.anchor_state, with_tokens=False
            )
        bad = [t for t in dict.fromkeys(candidates) if not self._trial(state, t)[0]]
        words = index.all_words.copy()
        if bad:
            words &= ~ids_to_words(np.array(bad, dtype=np.int64), index.size)
        if cacheable:
            self._awaiting_masks[state.scan_state] = words
        return words

    def _cached_firing(
        self, cache: dict[int, list[int]], scanner: WordScanner | None, scan_state: int, *, with_tokens: bool
    ) -> list[int]:
        found = cache.get(scan_state)
        if found is None:
            found = self._firing_tokens(scanner, scan_state, with_tokens=with_tokens)
            cache[scan_state] = found
        return found

    def _firing_tokens(self, scanner: WordScanner | None, scan_state: int, *, with_tokens: bool) -> list[int]:
        """Return the tokens that complete a word of ``scanner`` from ``scan_state`` (plus trigger tokens).

        A word completes inside a token either wholly inside it (the token contains the word: found once per
        vocabulary and word list, see :meth:`VocabIndex.tokens_containing`) or after a start read before (the
        token begins with the rest of a word whose prefix ends the text so far: one trie lookup per such rest).
        """
        out = [t for t in self._trigger_tokens if t < self.vocab.size] if with_tokens else []
        if scanner is None:
            return out
        index = self.engine.index
        parts = [index.tokens_containing(scanner.words)]
        for rest in scanner.completions(scan_state):
            node = index.trie_lookup(rest)
            if node >= 0:
                parts.append(tokens_below(self.vocab, np.array([node], dtype=np.int64)))
        out.extend(np.unique(np.concatenate(parts)).tolist())
        return out

    # ---- accepting ---------------------------------------------------------------------------------------------
    def accept_token(self, token_id: int) -> bool:
        """Accept one sampled token; return False (state unchanged) if the grammar does not allow it."""
        if self.error is not None or self._state.terminated:
            return False
        if not 0 <= token_id < self.vocab.size:
            return False
        try:
            ok, new_state = self._trial(self._state, token_id)
        except PegchatError as error:
            self.error = f"token {token_id}: {error}"
            return False
        if not ok:
            return False
        self._push(new_state)
        return True

    def is_token_allowed(self, token_id: int) -> bool:
        """Return whether ``token_id`` would be accepted, without changing the state (cheap: one token walk)."""
        if self.error is not None or self._state.terminated or not 0 <= token_id < self.vocab.size:
            return False
        try:
            return self._trial(self._state, token_id)[0]
        except PegchatError:
            return False

    def accept_string(self, text: str) -> bool:
        """Accept raw text (not a token); return False (state unchanged) if the grammar does not allow it."""
        if self.error is not None or self._state.terminated:
            return False
        ok, new_state = self._feed(self._state, text.encode("utf-8"), None)
        if not ok:
            return False
        self._push(new_state)
        return True

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens`` accepted tokens (or strings); raises ValueError beyond the kept history."""
        if n_tokens < 0 or n_tokens > len(self._history):
            raise ValueError(f"cannot roll back {n_tokens} tokens: {len(self._history)} are kept")
        for _ in range(n_tokens):
            self._state = self._history.pop()
        if n_tokens:
            self.error = None

    def _push(self, new_state: _State) -> None:
        self._history.append(self._state)
        if len(self._history) > self._max_history:
            del self._history[: len(self._history) - self._max_history]
        self._state = new_state

    def _trial(self, state: _State, token_id: int) -> tuple[bool, _State]:
        """Return (accepted, state after) for one token, without side effects."""
        vocab = self.vocab
        if token_id in vocab.eos_token_ids:
            can_end = state.awaiting or (state.partial is None and self.engine.npda.can_end(state.npda_state))
            return can_end, replace(state, terminated=True)
        if state.awaiting and token_id in self._trigger_tokens:
            return self._start_from_token(state, token_id)
        if token_id in vocab.special_token_ids:
            if state.awaiting:
                return True, state
            return self._token_reference(state, token_id)
        return self._feed(state, vocab.token_bytes[token_id], token_id)

    def _token_reference(self, state: _State, token_id: int) -> tuple[bool, _State]:
        if state.partial is not None:
            return False, state
        nxt = self.engine.npda.step_token_reference(state.npda_state, token_id)
        return nxt != DEAD, replace(state, npda_state=nxt)

    def _start_from_token(self, state: _State, token_id: int) -> tuple[bool, _State]:
        npda = self.engine.npda
        by_reference = npda.step_token_reference(npda.initial, token_id)
        if by_reference != DEAD:
            return True, replace(state, awaiting=False, npda_state=by_reference, partial=None)
        started = replace(state, awaiting=False, npda_state=npda.initial, partial=None)
        return self._feed(started, self.vocab.token_bytes[token_id], token_id)

    def _feed(self, state: _State, data: bytes, token_id: int | None) -> tuple[bool, _State]:
        """Feed bytes; while awaiting, scan for triggers and hand the grammar the trigger's text."""
        npda = self.engine.npda
        if not state.awaiting:
            nxt, partial = feed_bytes(npda, state.npda_state, state.partial, data)
            if token_id is not None and state.partial is None:
                # A stack topped by !<[id]> consumes the whole token as one unit (llama.cpp's semantics).
                as_unit = npda.step_token_reference(state.npda_state, token_id)
                if as_unit != DEAD:
                    # Both paths can only be kept together when neither is inside a character; otherwise the
                    # byte path (which ends mid-character) is kept, a documented narrowing of a rare ambiguity.
                    if nxt == DEAD:
                        nxt, partial = as_unit, None
                    elif partial is None:
                        nxt = npda.union(nxt, as_unit)
            return nxt != DEAD, replace(state, npda_state=nxt, partial=partial)
        buffer = state.buffer + data
        start: int | None = None
        scan_state, anchor_state = state.scan_state, state.anchor_state
        if self._scanner is not None:
            scan_state, end = self._scanner.feed(scan_state, data)
            if end is not None:
                absolute_end = len(state.buffer) + end
                start = absolute_end - int(self._scanner.match_length[scan_state])
        run_patterns = bool(self._patterns)
        if self._anchor_scanner is not None:
            # A pattern can only start to match where one of its anchors ends: skip the regex otherwise.
            anchor_state, run_patterns = self._anchor_scanner.scan(anchor_state, data)
        if run_patterns:
            start = self._pattern_start(buffer, len(state.buffer), start)
        if start is None:
            return True, replace(state, buffer=buffer, scan_state=scan_state, anchor_state=anchor_state)
        nxt, partial = feed_bytes(npda, npda.initial, None, buffer[start:])
        return nxt != DEAD, replace(state, awaiting=False, npda_state=nxt, partial=partial, buffer=b"")

    def _pattern_start(self, buffer: bytes, old_length: int, start: int | None) -> int | None:
        """Return the earliest trigger start (byte offset) among patterns that now match, or ``start``."""
        if not self._patterns:
            return start
        # surrogateescape keeps a one-to-one map between bytes and characters for invalid or split UTF-8.
        text = buffer.decode("utf-8", errors="surrogateescape")
        for trigger, pattern in self._patterns:
            match = pattern.fullmatch(text) if trigger.type == "pattern_full" else pattern.search(text)
            if match is None:
                continue
            group = next((i for i in range(1, (match.re.groups or 0) + 1) if match.start(i) >= 0), 0)
            begin = len(text[: match.start(group)].encode("utf-8", errors="surrogateescape"))
            end = len(text[: match.end()].encode("utf-8", errors="surrogateescape"))
            if trigger.type == "pattern" and end <= old_length:
                continue  # matched entirely before this token: it would have fired already
            if start is None or begin < start:
                start = begin
        return start
