"""The :class:`~gbnf_backend.matcher.GrammarMatcher` that runs on the compiled core.

:class:`NativeGrammarMatcher` is a ``GrammarMatcher`` (same constructor, same methods, same answers: the Python
engine is its oracle in ``tests/native``) whose state, masks and token steps live in C++. ``GrammarMatcher(...)``
returns one when the core is available and the matcher is not lazy (lazy-trigger scanning stays in the Python
engine for now).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from .._elements import complement_ranges, merge_ranges
from .._npda import NextChars
from ..matcher import GrammarMatcher
from . import load_core
from .engine import native_engine

if TYPE_CHECKING:
    from ..triggers import Trigger
    from ..vocab import Vocabulary
    from . import _core

__all__ = ["NativeGrammarMatcher", "fill_batch", "native_matcher_class"]


def native_matcher_class() -> type[NativeGrammarMatcher] | None:
    """Return :class:`NativeGrammarMatcher` when the core is live (see :func:`load_core`), else None."""
    return NativeGrammarMatcher if load_core() is not None else None


class NativeGrammarMatcher(GrammarMatcher):
    """A non-lazy :class:`GrammarMatcher` on the compiled core (see the module docstring)."""

    def __init__(
        self,
        grammar: Any,
        vocab: Vocabulary | None = None,
        *,
        triggers: Sequence[Trigger] | None = None,
        max_rollback_tokens: int = 256,
    ) -> None:
        # The Python side resolves the grammar (compiling it through the vocabulary's compiler when needed) and
        # keeps the Python engine for what the core does not do yet (lazy triggers).
        GrammarMatcher.__init__(
            self, grammar, cast("Vocabulary", vocab), triggers=triggers, max_rollback_tokens=max_rollback_tokens
        )
        core = load_core()
        if core is None:
            raise RuntimeError("the compiled core is not available (see gbnf_backend.engine_name())")
        if self.lazy:
            raise ValueError("lazy matchers (triggers) run on the Python engine")
        preserved = getattr(self, "compiled", None)
        preserved_ids = getattr(preserved, "preserved_token_ids", ())
        self.native_engine: _core.Engine = native_engine(
            core, self.grammar, self.vocab, preserved_token_ids=preserved_ids
        )
        self._native: _core.Matcher = core.Matcher(self.native_engine, self._max_history)

    # ---- lifecycle ---------------------------------------------------------------------------------------------
    @property
    def error(self) -> str | None:
        """The sticky error message, or None."""
        return self._native.error

    @error.setter
    def error(self, value: str | None) -> None:
        if value is not None:
            raise AttributeError("the error state is set by the matcher itself")
        # GrammarMatcher.__init__ clears the error before the core's matcher exists; later, reset() clears it.

    def reset(self) -> None:
        """Return to the initial state and clear the error and the history."""
        if "_native" not in self.__dict__:  # called by GrammarMatcher.__init__, before the core's matcher exists
            GrammarMatcher.reset(self)
            return
        self._native.reset()

    def fork(self) -> NativeGrammarMatcher:
        """Return an independent matcher in the same state, sharing the compiled engine."""
        twin = object.__new__(NativeGrammarMatcher)
        twin.__dict__.update(self.__dict__)
        twin._native = self._native.fork()
        return twin

    def is_error(self) -> bool:
        """Return whether the matcher is in its sticky error state."""
        return self._native.is_error()

    def is_terminated(self) -> bool:
        """Return whether EOS has been accepted."""
        return self._native.is_terminated()

    def is_awaiting_trigger(self) -> bool:
        """Return False: a native matcher is never lazy."""
        return False

    def can_end(self) -> bool:
        """Return whether the grammar may finish now (EOS would be accepted)."""
        return self._native.can_end()

    def next_chars(self) -> NextChars:
        """Return the code points that may come next, the excluded ranges and whether the grammar may end."""
        classes, can_end, tokens, not_tokens = self.native_engine.next_chars(self._native.npda_state)
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

        ``bitmask``: numpy ``int32[batch, ceil(V/32)]`` or a torch CPU ``int32`` tensor (written in place, no
        copy); a wrong dtype, shape or row is a ``TypeError``/``ValueError``/``IndexError`` at the call. Cost: a
        copy of a cached mask, or one scan of the live part of the vocabulary's trie for a new state.
        """
        return self._native.fill(bitmask, index)

    def allowed_token_ids(self) -> npt.NDArray[np.int64]:
        """Return the ids of the allowed tokens (for debugging and tests)."""
        row = np.zeros((1, (self.vocab.size + 31) // 32), dtype=np.int32)
        self._native.fill(row, 0)
        bits = np.unpackbits(row.view(np.uint8), bitorder="little")[: self.vocab.size]
        return np.flatnonzero(bits)

    # ---- accepting ---------------------------------------------------------------------------------------------
    def accept_token(self, token_id: int) -> bool:
        """Accept one sampled token; return False (state unchanged) if the grammar does not allow it."""
        if not 0 <= token_id < self.vocab.size:
            return False
        return self._native.accept_token(int(token_id))

    def is_token_allowed(self, token_id: int) -> bool:
        """Return whether ``token_id`` would be accepted, without changing the state."""
        if not 0 <= token_id < self.vocab.size:
            return False
        return self._native.is_token_allowed(int(token_id))

    def accept_string(self, text: str) -> bool:
        """Accept raw text (not a token); return False (state unchanged) if the grammar does not allow it."""
        return self._native.accept_bytes(text.encode("utf-8", errors="surrogatepass"))

    def rollback(self, n_tokens: int) -> None:
        """Undo the last ``n_tokens`` accepted tokens (or strings); raises ValueError beyond the kept history."""
        self._native.rollback(int(n_tokens))


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
    natives = [m._native for m in matchers]
    result: list[bool] = core.fill_batch(natives, bitmask, None if indices is None else list(indices), threads)
    return result
