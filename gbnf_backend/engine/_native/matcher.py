"""The :class:`~gbnf_backend.matcher.GrammarMatcher` that runs on the compiled core.

:class:`NativeGrammarMatcher` is a ``GrammarMatcher`` (same constructor, same methods, same answers: the Python
engine is its oracle in ``tests/native``) whose state, masks and token steps live in C++. ``GrammarMatcher(...)``
returns one when the core is available. Lazy matchers (grammars with triggers) scan for their trigger in the core
too (``triggers.hpp``; the tables are built once in :mod:`.lazy`); only pattern triggers call back into Python, when
one of their anchors completes, for the ``regex`` module's semantics.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from ..._elements import complement_ranges, merge_ranges
from ...errors import MatcherError
from .._npda import NextChars
from ..bitmask import as_numpy_bitmask
from ..matcher import GrammarMatcher
from . import load_core
from .engine import native_engine
from .lazy import native_lazy

if TYPE_CHECKING:
    from ...vocab.vocabulary import Vocabulary
    from ..triggers import Trigger
    from . import _core

__all__ = ["BATCH_THREADS", "NativeGrammarMatcher", "fill_batch", "native_matcher_class", "try_fill_batch"]

#: Threads of a batch fill (the GIL is released; matchers sharing a compiled grammar take turns on it).
BATCH_THREADS = 2
#: The dtype of a bitmask the fast path of fill_next_token_bitmask hands to the core as is.
_INT32 = np.dtype(np.int32)


def native_matcher_class() -> type[NativeGrammarMatcher] | None:
    """Return :class:`NativeGrammarMatcher` when the core is live (see :func:`load_core`), else None."""
    return NativeGrammarMatcher if load_core() is not None else None


class NativeGrammarMatcher(GrammarMatcher):
    """A :class:`GrammarMatcher` on the compiled core, lazy or not (see the module docstring)."""

    def __init__(
        self,
        grammar: Any,
        vocab: Vocabulary | None = None,
        *,
        triggers: Sequence[Trigger] | None = None,
        max_rollback_tokens: int = 256,
    ) -> None:
        # The Python side resolves the grammar (compiling it through the vocabulary's compiler when needed).
        GrammarMatcher.__init__(
            self, grammar, cast("Vocabulary", vocab), triggers=triggers, max_rollback_tokens=max_rollback_tokens
        )
        core = load_core()
        if core is None:
            raise RuntimeError("the compiled core is not available (see gbnf_backend.engine_name())")
        self._n_tokens = self.vocab.size
        compiled = self.compiled
        self.native_engine: _core.Engine = native_engine(
            core, self.grammar, self.vocab, preserved_token_ids=compiled.preserved_token_ids
        )
        if self.lazy:
            tables, awaiting_masks = native_lazy(core, compiled)
            self._native: _core.Matcher = core.Matcher(
                self.native_engine, self._max_history, triggers=tables, awaiting_masks=awaiting_masks
            )
        else:
            self._native = core.Matcher(self.native_engine, self._max_history)

    # ---- lifecycle ---------------------------------------------------------------------------------------------
    #: An error set from outside (``matcher.error = "…"``, as servers do when a request's grammar fails): the
    #: same sticky state as the core's own errors — only EOS is allowed, every token is refused — until
    #: :meth:`reset` or a :meth:`rollback` of at least one token.
    _set_error: str | None = None

    @property
    def error(self) -> str | None:
        """The sticky error message, or None."""
        if self._set_error is not None:
            return self._set_error
        native = self.__dict__.get("_native")
        return native.error if native is not None else None

    @error.setter
    def error(self, value: str | None) -> None:
        self._set_error = value

    def _eos_row(self, row: npt.NDArray[np.int32]) -> None:
        row[:] = 0
        for eos in self.vocab.eos_token_ids:
            if 0 <= eos < row.shape[0] * 32:
                row[eos // 32] |= np.int32(np.uint32(1 << (eos % 32)).view(np.int32))

    def reset(self) -> None:
        """Return to the initial state and clear the error and the history."""
        if "_native" not in self.__dict__:  # called by GrammarMatcher.__init__, before the core's matcher exists
            return  # the core's matcher starts at the initial state; the Python engine is never built on this path
        self._set_error = None
        self._native.reset()

    def fork(self) -> NativeGrammarMatcher:
        """Return an independent matcher in the same state, sharing the compiled engine."""
        twin = object.__new__(NativeGrammarMatcher)
        twin.__dict__.update(self.__dict__)
        twin._native = self._native.fork()
        return twin

    def is_error(self) -> bool:
        """Return whether the matcher is in its sticky error state."""
        return self._set_error is not None or self._native.is_error()

    def is_terminated(self) -> bool:
        """Return whether EOS has been accepted."""
        return self._native.is_terminated()

    def is_awaiting_trigger(self) -> bool:
        """Return whether a lazy matcher is still waiting for a trigger."""
        return self._native.is_awaiting()

    def can_end(self) -> bool:
        """Return whether the grammar may finish now (EOS would be accepted)."""
        return self._set_error is None and self._native.can_end()

    def next_chars(self) -> NextChars:
        """Return the code points that may come next, the excluded ranges and whether the grammar may end
        (everything while awaiting a trigger)."""
        if self._native.is_awaiting():
            return NextChars(((0, 0x10FFFF),), (), True)
        return self._next_chars_of(self._native.npda_state)

    def _next_chars_of(self, npda_state: int) -> NextChars:
        classes, can_end, tokens, not_tokens = self.native_engine.next_chars(npda_state)
        allowed: list[tuple[int, int]] = []
        excluded: list[tuple[int, int]] = []
        for negated, ranges in classes:
            merged = tuple(ranges)
            if negated:
                excluded.extend(merged)
                allowed.extend(complement_ranges(merged))
            else:
                allowed.extend(merged)
        return NextChars(
            merge_ranges(allowed), merge_ranges(excluded), can_end, frozenset(tokens), frozenset(not_tokens)
        )

    # ---- masks -------------------------------------------------------------------------------------------------
    def fill_next_token_bitmask(self, bitmask: Any, index: int = 0) -> bool:
        """Write the allowed tokens into row ``index`` of ``bitmask``; return whether any token is masked out.

        ``bitmask``: numpy ``int32[batch, words]`` or a CPU torch ``int32`` tensor, written in place by the core
        (no copy of the mask through Python); a narrower row gets the first words, columns past the vocabulary are
        cleared. Raises :class:`MatcherError` for a wrong buffer or row index, checked before anything is written.
        Cost: a copy of a cached mask, or one scan of the live part of the vocabulary's trie for a new state.
        """
        if (  # the usual call (a C-contiguous, aligned, writeable int32 numpy matrix): straight to the core
            type(bitmask) is np.ndarray
            and bitmask.dtype is _INT32
            and bitmask.ndim == 2
            and type(index) is int
            and 0 <= index < bitmask.shape[0]
            and self._set_error is None
            and bitmask.flags.carray
        ):
            return self._native.fill(bitmask, index)
        array = as_numpy_bitmask(bitmask)
        if isinstance(index, bool) or not isinstance(index, int | np.integer) or not 0 <= index < array.shape[0]:
            raise MatcherError(f"row {index!r} is outside a bitmask of {array.shape[0]} rows")
        if not array.flags.writeable:
            raise MatcherError("the bitmask is read-only")
        row = array[int(index)]
        if self._set_error is not None:
            self._eos_row(row)
            return True
        if row.flags.c_contiguous:
            return self._native.fill(array, int(index))
        contiguous = np.empty((1, row.shape[0]), dtype=np.int32)  # a strided view: fill a copy, then copy it in
        masked = self._native.fill(contiguous, 0)
        row[:] = contiguous[0]
        return masked

    def allowed_token_ids(self) -> npt.NDArray[np.int64]:
        """Return the ids of the allowed tokens (for debugging and tests)."""
        row = np.zeros((1, (self.vocab.size + 31) // 32), dtype=np.int32)
        if self._set_error is not None:
            self._eos_row(row[0])
        else:
            self._native.fill(row, 0)
        bits = np.unpackbits(row.view(np.uint8), bitorder="little")[: self.vocab.size]
        return np.flatnonzero(bits)

    # ---- accepting ---------------------------------------------------------------------------------------------
    def accept_token(self, token_id: int) -> bool:
        """Accept one sampled token; return False (state unchanged) if the grammar does not allow it."""
        if self._set_error is None and type(token_id) is int and 0 <= token_id < self._n_tokens:
            return self._native.accept_token(token_id)  # the usual call, checked in three comparisons
        if self._set_error is not None or not self._valid_id(token_id):
            return False
        return self._native.accept_token(int(token_id))

    def is_token_allowed(self, token_id: int) -> bool:
        """Return whether ``token_id`` would be accepted, without changing the state."""
        if self._set_error is not None or not self._valid_id(token_id):
            return False
        return self._native.is_token_allowed(int(token_id))

    def accept_string(self, text: str) -> bool:
        """Accept raw text (not a token); return False (state unchanged) if the grammar does not allow it."""
        if self._set_error is not None:
            return False
        return self._native.accept_bytes(text.encode("utf-8", errors="surrogatepass"))

    def validate_tokens(self, token_ids: Iterable[int]) -> int:
        """Return the length of the longest prefix of ``token_ids`` the grammar accepts; the state is unchanged."""
        if self.is_error():
            return 0
        trial = self._native.fork()
        count = 0
        for token_id in token_ids:
            if trial.is_terminated() or not self._valid_id(token_id) or not trial.accept_token(int(token_id)):
                break
            count += 1
        return count

    def find_jump_forward_string(self, max_length: int = 1024) -> str:
        """Return the longest text the grammar forces next (at most ``max_length`` characters; "" if none)."""
        native = self._native
        if self.is_error() or native.is_terminated() or native.is_awaiting() or native.partial is not None:
            return ""
        core = load_core()
        out: list[str] = []
        current = native.npda_state
        try:
            while len(out) < max_length:
                forced = self._next_chars_of(current)
                if forced.can_end or forced.tokens or forced.not_tokens or len(forced.allowed) != 1:
                    break
                low, high = forced.allowed[0]
                if low != high:
                    break
                current = self.native_engine.step_char(current, low)
                if current < 0:
                    break
                out.append(chr(low))
        except Exception as error:  # the core's LimitError: the text found so far is still forced
            if core is None or not isinstance(error, core.LimitError):
                raise
        return "".join(out)

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens`` accepted tokens (or strings); clears the error state when ``n_tokens > 0``.

        Raises :class:`MatcherError` for a negative count or one beyond the kept history (state unchanged).
        """
        if isinstance(n_tokens, bool) or not isinstance(n_tokens, int | np.integer):
            raise MatcherError(f"rollback needs a token count, got {n_tokens!r}")
        kept = self._native.history_size
        if n_tokens < 0 or n_tokens > kept:
            raise MatcherError(f"cannot roll back {n_tokens} tokens: {kept} are kept")
        self._native.rollback(int(n_tokens))
        if n_tokens:
            self._set_error = None


def try_fill_batch(matchers: Sequence[GrammarMatcher | None], array: npt.NDArray[np.int32]) -> bool:
    """Fill ``array`` for a batch in one call of the core when every matcher runs on it; return whether it did.

    Rows of ``None`` matchers are set to "everything allowed". Returns False (nothing written) otherwise.
    """
    rows = [(i, m) for i, m in enumerate(matchers) if m is not None]
    if len(rows) < 2 or not array.flags.writeable or not array.flags.c_contiguous:
        return False
    if not all(type(m) is NativeGrammarMatcher for _, m in rows):
        return False
    if any(isinstance(m, NativeGrammarMatcher) and m._set_error is not None for _, m in rows):
        return False  # an error set from outside lives in Python: fill row by row
    natives = [m for _, m in rows if isinstance(m, NativeGrammarMatcher)]
    if len({id(m._native) for m in natives}) != len(natives):
        return False  # the same matcher twice: fill row by row
    fill_batch(natives, array, [i for i, _ in rows], threads=BATCH_THREADS)
    for i, m in enumerate(matchers):
        if m is None:
            array[i].fill(-1)
    return True


def fill_batch(
    matchers: Sequence[NativeGrammarMatcher], bitmask: Any, indices: Sequence[int] | None = None, threads: int = 2
) -> list[bool]:
    """Fill row ``indices[i]`` (default ``i``) of ``bitmask`` for ``matchers[i]`` on ``threads`` threads.

    The GIL is released while the rows are filled; matchers sharing a compiled grammar take turns on it. Returns,
    per matcher, whether some token is masked out. Do not use these matchers from other threads meanwhile.
    """
    core = load_core()
    if core is None:
        raise RuntimeError("the compiled core is not available")
    array = as_numpy_bitmask(bitmask)
    natives = [m._native for m in matchers]
    result: list[bool] = core.fill_batch(natives, array, None if indices is None else list(indices), threads)
    return result
