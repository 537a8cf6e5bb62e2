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

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ArgumentTypeError, MatcherError, PegchatError
from ..grammar import Grammar
from ..vocab._index import ids_to_words, tokens_below
from ..vocab.vocabulary import Vocabulary
from ._mask_engine import MaskEngine
from ._npda import DEAD, NextChars
from ._utf8 import Partial, feed_bytes
from .bitmask import as_numpy_bitmask
from .compiler import CompiledGrammar, default_compiler
from .triggers import Trigger, WordScanner

__all__ = ["GrammarMatcher", "compile_grammar"]


def compile_grammar(grammar: Grammar | str, vocab: Vocabulary) -> MaskEngine:
    """Return the shared mask engine (caches) of ``grammar`` over ``vocab`` through :func:`default_compiler`.

    Kept for callers of the engine; new code compiles with a :class:`~.compiler.GrammarCompiler`. Cheap after the
    first call for the same grammar text and vocabulary.
    """
    compiler = default_compiler(vocab)
    compiled = compiler.compile_gbnf(grammar) if isinstance(grammar, str) else compiler.compile_grammar(grammar)
    return compiled.engine


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
    """Token-level matcher over a compiled grammar (see the module docstring).

    ``GrammarMatcher(compiled)`` takes a :class:`~.compiler.CompiledGrammar` (it carries the vocabulary and the
    triggers); ``GrammarMatcher(grammar, vocab, triggers=…)`` takes a :class:`Grammar` or GBNF text and compiles it
    through the vocabulary's :func:`~.compiler.default_compiler` (cached by content). ``triggers`` non-empty makes
    the matcher lazy; ``max_rollback_tokens`` bounds the history kept for :meth:`rollback` (at least 16).
    """

    def __new__(
        cls,
        grammar: CompiledGrammar | Grammar | str,
        vocab: Vocabulary | None = None,
        *,
        triggers: Sequence[Trigger] | None = None,
        max_rollback_tokens: int = 256,
    ) -> GrammarMatcher:
        # Matchers, lazy or not, run on the compiled core when it is built (see gbnf_backend.engine_name()).
        if cls is GrammarMatcher:
            from ._native.matcher import native_matcher_class

            native = native_matcher_class()
            if native is not None:
                return super().__new__(native)
        return super().__new__(cls)

    def __init__(
        self,
        grammar: CompiledGrammar | Grammar | str,
        vocab: Vocabulary | None = None,
        *,
        triggers: Sequence[Trigger] | None = None,
        max_rollback_tokens: int = 256,
    ) -> None:
        if isinstance(grammar, CompiledGrammar):
            if vocab is not None and vocab.fingerprint() != grammar.vocab.fingerprint():
                raise MatcherError("the vocabulary differs from the one the grammar was compiled for")
            if triggers is not None and tuple(triggers) != grammar.triggers:
                raise MatcherError("a compiled grammar carries its triggers: pass them to the compiler")
            compiled = grammar
        elif vocab is None:
            raise ArgumentTypeError("GrammarMatcher needs a vocabulary unless it is given a CompiledGrammar")
        else:
            compiler = default_compiler(vocab)
            found = tuple(triggers or ())
            if isinstance(grammar, Grammar):
                compiled = compiler.compile_grammar(grammar, triggers=found)
            else:
                compiled = compiler.compile_gbnf(grammar, triggers=found)
        self.compiled = compiled
        self.grammar = compiled.grammar
        self.vocab = vocab if vocab is not None else compiled.vocab  # equal fingerprints: the same table
        self.triggers = compiled.triggers
        self.lazy = compiled.lazy
        trigger_set = compiled.trigger_set
        self._scanner = trigger_set.scanner
        self._patterns = trigger_set.patterns
        self._trigger_tokens = trigger_set.token_ids
        #: With anchors for every pattern, masks while awaiting are exact and patterns run only when an anchor
        #: completes; otherwise (a pattern without a literal end) every token is allowed while awaiting.
        self.patterns_exact = trigger_set.patterns_exact
        self._anchor_scanner = trigger_set.anchor_scanner
        self._preserved = compiled.preserved_token_ids
        self._max_history = max(16, max_rollback_tokens)
        self._awaiting_masks: dict[int, npt.NDArray[np.uint32]] = compiled.awaiting_masks
        self._firing: dict[int, list[int]] = compiled.firing
        self._anchor_firing: dict[int, list[int]] = compiled.anchor_firing
        self.error: str | None = None
        self.reset()

    @property
    def engine(self) -> MaskEngine:
        """The compiled grammar's Python engine (built on first use; matchers on the compiled core never use it)."""
        return self.compiled.engine

    @property
    def _lock(self) -> threading.RLock:
        return self.compiled.lock

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
    def fill_next_token_bitmask(self, bitmask: Any, index: int = 0) -> bool:
        """Write the allowed tokens into row ``index`` of ``bitmask``; return whether any token is masked out.

        ``bitmask`` is ``int32[batch, words]`` (bit j of word k = token 32k + j), a numpy array or a CPU torch
        tensor, written in place. A row narrower than ``ceil(V/32)`` words gets the first words; columns past the
        vocabulary are cleared. Raises :class:`MatcherError` for a wrong buffer or row index (checked before
        anything is written); never for the grammar's sake (see :attr:`error`). Cost: a cached copy for a state
        seen before; otherwise see :mod:`gbnf_backend.engine._mask_engine`.
        """
        array = as_numpy_bitmask(bitmask)
        if isinstance(index, bool) or not isinstance(index, int | np.integer) or not 0 <= index < array.shape[0]:
            raise MatcherError(f"row {index!r} is outside a bitmask of {array.shape[0]} rows")
        words = self._mask_words()
        row = array[index]
        width = min(row.shape[0], words.shape[0])
        np.copyto(row[:width], words.view(np.int32)[:width])
        row[width:] = 0
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
        with self._lock:
            if state.awaiting:
                return self._awaiting_mask()
            try:
                words = self.engine.mask(state.npda_state, state.partial)
                if self._preserved:
                    words = self._with_preserved(words)
                return words
            except PegchatError as error:
                self.error = f"mask computation failed: {error}"
                return index.eos_words

    def _with_preserved(self, words: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint32]:
        """Return ``words`` plus the preserved special tokens whose text the grammar accepts here (cached)."""
        state = self._state
        # Keyed by the real state: a special token's text may be longer than any text token, so the canonical
        # state (exact only for text tokens) could tell two states apart wrongly.
        key = (state.npda_state, state.partial)
        cache = self.compiled.preserved_masks
        extra = cache.get(key)
        if extra is None:
            allowed = [t for t in sorted(self._preserved) if self._trial(state, t)[0]]
            extra = ids_to_words(np.array(allowed, dtype=np.int64), self.vocab.size) if allowed else False
            cache[key] = extra
        return words if extra is False else words | extra

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
        bad = [t for t in dict.fromkeys(candidates) if not self._allowed_while_awaiting(state, t)]
        words = index.all_words.copy()
        if bad:
            words &= ~ids_to_words(np.array(bad, dtype=np.int64), index.size)
        if cacheable:
            self._awaiting_masks[state.scan_state] = words
        return words

    def _allowed_while_awaiting(self, state: _State, token_id: int) -> bool:
        # A trial that hits a limit (the stack cap) refuses the token: the mask never raises (as is_token_allowed).
        try:
            return self._trial(state, token_id)[0]
        except PegchatError:
            return False

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
        out = [t for t in (*self._trigger_tokens, *self._preserved) if t < self.vocab.size] if with_tokens else []
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
        """Accept one sampled token; return False (state unchanged) if the grammar does not allow it.

        Never raises: an internal failure (the stack cap) puts the matcher in its sticky error state.
        """
        if self.error is not None or self._state.terminated or not self._valid_id(token_id):
            return False
        with self._lock:
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
        """Return whether ``token_id`` would be accepted, without changing the state (cheap: one token walk).

        A walk that hits the stack cap answers False and puts the matcher in its sticky error state (as
        ``accept_token`` would): False never silently stands for "gave up".
        """
        if self.error is not None or self._state.terminated or not self._valid_id(token_id):
            return False
        with self._lock:
            try:
                return self._trial(self._state, token_id)[0]
            except PegchatError as error:
                self.error = f"token {token_id}: {error}"
                return False

    def accept_string(self, text: str) -> bool:
        """Accept raw text (not a token); return False (state unchanged) if the grammar does not allow it.

        Never raises for text: an internal failure (the stack cap) puts the matcher in its sticky error state.
        """
        if self.error is not None or self._state.terminated:
            return False
        with self._lock:
            try:
                ok, new_state = self._feed(self._state, text.encode("utf-8", errors="surrogatepass"), None)
            except PegchatError as error:
                self.error = f"string at offset 0: {error}"
                return False
        if not ok:
            return False
        self._push(new_state)
        return True

    def _valid_id(self, token_id: int) -> bool:
        return isinstance(token_id, int | np.integer) and 0 <= int(token_id) < self.vocab.size

    def accept_tokens(self, token_ids: Iterable[int]) -> int:
        """Accept tokens in order until one is refused; return how many were accepted (the rest are not).

        A speculative-decoding server calls this with the draft tokens, then :meth:`rollback` if needed.
        """
        accepted = 0
        for token_id in token_ids:
            if not self.accept_token(token_id):
                break
            accepted += 1
        return accepted

    def validate_tokens(self, token_ids: Iterable[int]) -> int:
        """Return the length of the longest prefix of ``token_ids`` the grammar accepts; the state is unchanged.

        Never raises for the grammar's sake: a prefix that would hit the stack cap ends the count there.
        """
        state = self._state
        if self.error is not None:
            return 0
        count = 0
        with self._lock:
            for token_id in token_ids:
                if state.terminated or not self._valid_id(token_id):
                    break
                try:
                    ok, state = self._trial(state, token_id)
                except PegchatError:
                    break
                if not ok:
                    break
                count += 1
        return count

    def find_jump_forward_string(self, max_length: int = 1024) -> str:
        """Return the longest text the grammar forces next (at most ``max_length`` characters; "" if none).

        A character is forced when it is the only one any stack accepts, no token reference is possible and the
        grammar cannot end here. Empty while awaiting a trigger, inside a partial UTF-8 character, after EOS or in
        the error state. The state is unchanged (feed the text with :meth:`accept_string` or retokenize it).
        Cost: one cached step per character.
        """
        state = self._state
        if self.error is not None or state.terminated or state.awaiting or state.partial is not None:
            return ""
        npda = self.engine.npda
        out: list[str] = []
        current = state.npda_state
        with self._lock:
            try:
                while len(out) < max_length:
                    nxt = npda.next_chars(current)
                    if nxt.can_end or nxt.tokens or nxt.not_tokens or len(nxt.allowed) != 1:
                        break
                    low, high = nxt.allowed[0]
                    if low != high:
                        break
                    current = npda.step_char(current, low)
                    if current == DEAD:  # cannot happen for an allowed character; be safe
                        break
                    out.append(chr(low))
            except PegchatError:
                pass  # the text found so far is still forced
        return "".join(out)

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens`` accepted tokens (or strings); clears the error state when ``n_tokens > 0``.

        Raises :class:`MatcherError` (a ``ValueError``) for a negative count or one beyond the kept history
        (the state is then unchanged).
        """
        if isinstance(n_tokens, bool) or not isinstance(n_tokens, int | np.integer):
            raise MatcherError(f"rollback needs a token count, got {n_tokens!r}")
        if n_tokens < 0 or n_tokens > len(self._history):
            raise MatcherError(f"cannot roll back {n_tokens} tokens: {len(self._history)} are kept")
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
        """Return (accepted, state after) for one token, without side effects (call with the lock held)."""
        vocab = self.vocab
        token_id = int(token_id)
        if token_id in vocab.eos_token_ids:
            can_end = state.awaiting or (state.partial is None and self.engine.npda.can_end(state.npda_state))
            return can_end, replace(state, terminated=True)
        if state.awaiting and token_id in self._trigger_tokens:
            return self._start_from_token(state, token_id)
        if token_id in self._preserved:
            # A preserved special token ([TOOL_CALLS]) stands for its text, as well as for <[id]> references.
            ok, fed = self._feed(state, vocab.token_bytes[token_id], None)
            if state.awaiting:
                return ok, fed
            by_reference, referenced = self._token_reference(state, token_id)
            if ok and by_reference and fed.partial is None:
                return True, replace(fed, npda_state=self.engine.npda.union(fed.npda_state, referenced.npda_state))
            return (True, fed) if ok else (by_reference, referenced)
        if token_id in vocab.special_token_ids or not vocab.lengths[token_id]:
            # Special and unused (empty) ids match only token references, as in the mask.
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
        begin = self.compiled.trigger_set.pattern_start(buffer, old_length)
        if begin >= 0 and (start is None or begin < start):
            return begin
        return start
