"""Token bitmasks: allocation, application to logits, and "check the sampled token first" sampling.

Layout (shared with xgrammar, llguidance, vLLM and SGLang): ``int32[batch, ceil(V/32)]``; bit ``j`` of word ``k``
allows token ``32k + j``. Logits may be numpy arrays or torch tensors (torch is imported only if you pass one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from .matcher import GrammarMatcher

__all__ = [
    "allocate_token_bitmask",
    "apply_token_bitmask",
    "bitmask_to_bool",
    "fill_next_token_bitmasks",
    "sample_with_grammar",
]


def allocate_token_bitmask(batch: int, vocab_size: int) -> npt.NDArray[np.int32]:
    """Return an ``int32[batch, ceil(vocab_size/32)]`` bitmask with every token allowed."""
    if batch < 1 or vocab_size < 1:
        raise ValueError(f"need batch >= 1 and vocab_size >= 1, got {batch} and {vocab_size}")
    return np.full((batch, (vocab_size + 31) // 32), -1, dtype=np.int32)


def fill_next_token_bitmasks(
    matchers: Sequence[GrammarMatcher | None], bitmask: npt.NDArray[np.int32] | None = None
) -> npt.NDArray[np.int32]:
    """Fill row ``i`` of ``bitmask`` for ``matchers[i]`` (``None``: an unconstrained row, every token allowed).

    Returns the bitmask (allocated when not given, as wide as the first matcher's vocabulary). This is the call a
    batching server makes once per decoding step; each row costs what one ``fill_next_token_bitmask`` costs.
    """
    first = next((m for m in matchers if m is not None), None)
    if bitmask is None:
        if first is None:
            raise ValueError("pass a bitmask when every row is unconstrained")
        bitmask = allocate_token_bitmask(len(matchers), first.vocab.size)
    if bitmask.shape[0] < len(matchers):
        raise ValueError(f"bitmask has {bitmask.shape[0]} rows for {len(matchers)} matchers")
    for row, matcher in enumerate(matchers):
        if matcher is None:
            bitmask[row].fill(-1)
        else:
            matcher.fill_next_token_bitmask(bitmask, row)
    return bitmask


def bitmask_to_bool(bitmask_row: npt.NDArray[np.int32], vocab_size: int) -> npt.NDArray[np.bool_]:
    """Return a ``bool[vocab_size]`` array of allowed tokens for one bitmask row."""
    bits = np.unpackbits(np.ascontiguousarray(bitmask_row).view(np.uint8), bitorder="little")
    return bits[:vocab_size].astype(np.bool_)


def apply_token_bitmask(logits: Any, bitmask: npt.NDArray[np.int32], index: int = 0) -> Any:
    """Set the logits of disallowed tokens to ``-inf`` in place and return ``logits``.

    ``logits`` is 1-D (one sequence: row ``index`` of ``bitmask`` is used) or 2-D (row ``i`` of ``bitmask``
    applies to row ``i`` of ``logits``); numpy or torch. Tokens beyond the bitmask's width are left unchanged,
    logits narrower than the bitmask (vocabulary padding) use its first columns. Cost O(batch × V).
    """
    if type(logits).__module__.startswith("torch"):
        return _apply_torch(logits, bitmask, index)
    array = logits
    if array.ndim == 1:
        allowed = bitmask_to_bool(bitmask[index], bitmask.shape[1] * 32)
        width = min(array.shape[0], allowed.shape[0])
        array[:width][~allowed[:width]] = -np.inf
        return logits
    for row in range(array.shape[0]):
        allowed = bitmask_to_bool(bitmask[row], bitmask.shape[1] * 32)
        width = min(array.shape[1], allowed.shape[0])
        array[row, :width][~allowed[:width]] = -np.inf
    return logits


def _apply_torch(logits: Any, bitmask: npt.NDArray[np.int32], index: int) -> Any:
    import torch

    rows = bitmask[index : index + 1] if logits.dim() == 1 else bitmask[: logits.shape[0]]
    bits = np.unpackbits(np.ascontiguousarray(rows).view(np.uint8), axis=-1, bitorder="little").astype(np.bool_)
    width = min(logits.shape[-1], bits.shape[-1])
    disallowed = torch.from_numpy(~bits[..., :width]).to(logits.device)
    if logits.dim() == 1:
        logits[:width].masked_fill_(disallowed[0], float("-inf"))
    else:
        logits[:, :width].masked_fill_(disallowed, float("-inf"))
    return logits


def sample_with_grammar(
    matcher: GrammarMatcher,
    logits: npt.NDArray[np.floating[Any]],
    sample: Callable[[npt.NDArray[np.floating[Any]]], int],
) -> int:
    """Sample with ``sample(logits)``; check that one token first and build the full mask only if it is refused.

    Returns the token id (already accepted by ``matcher``). This is the cheap path for servers: most sampled
    tokens are allowed, and checking one token costs a walk of its few bytes. ``logits`` is not modified.
    """
    token = sample(logits)
    if matcher.accept_token(token):
        return token
    masked = np.array(logits, dtype=np.float64, copy=True)
    bitmask = allocate_token_bitmask(1, matcher.vocab.size)
    matcher.fill_next_token_bitmask(bitmask)
    apply_token_bitmask(masked, bitmask)
    if not np.isfinite(masked).any():
        raise RuntimeError("the grammar allows no token here (is the matcher terminated?)")
    token = sample(masked)
    if not matcher.accept_token(token):
        raise RuntimeError(f"sampler returned token {token}, which the mask excludes")
    return token
