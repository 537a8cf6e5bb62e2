"""Handing a :class:`~gbnf_backend.grammar.Grammar` and a :class:`~gbnf_backend.vocab.Vocabulary` to the core.

The handover is flat: the rules end to end as two int lists (element kinds and values, llama.cpp's encoding of
:mod:`gbnf_backend._elements`), the first position of every rule plus the total, the per-rule nullable flags and
the root id. The core validates all of it (a bad table is a ``ValueError``, never memory corruption). The byte trie
is built once per vocabulary (keyed by its fingerprint) and shared by every grammar's engine; an engine is cached
per grammar object and vocabulary, so matchers over the same grammar share their masks and transition caches.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from .._elements import Element
from ..errors import MatchLimitError
from ._chains import plan_chains

if TYPE_CHECKING:
    from ..grammar import Grammar
    from ..vocab import Vocabulary
    from . import _core

__all__ = ["MAX_STACKS", "MAX_WORK", "native_engine", "native_trie", "rule_tables"]

#: Live stacks one state may hold (the Python engine's cap, gbnf_backend._npda.MAX_STACKS).
MAX_STACKS = 20_000
#: Closure steps one step of the core may take before it gives up (a MatchLimitError, or the sticky error state).
MAX_WORK = 250_000

_LOCK = threading.Lock()
_TRIES: dict[str, _core.VocabTrie] = {}
_ENGINES: weakref.WeakKeyDictionary[Grammar, dict[str, _core.Engine]] = weakref.WeakKeyDictionary()


def rule_tables(
    rules: Sequence[Sequence[Element]], nullable: Sequence[bool]
) -> tuple[list[int], list[int], list[int], list[int]]:
    """Return ``(kinds, values, rule_start, nullable)``: ``rules`` as flat int lists; O(grammar size)."""
    kinds: list[int] = []
    values: list[int] = []
    starts: list[int] = []
    for rule in rules:
        starts.append(len(kinds))
        kinds.extend(int(kind) for kind, _ in rule)
        values.extend(int(value) for _, value in rule)
    starts.append(len(kinds))
    return kinds, values, starts, [int(flag) for flag in nullable]


def native_trie(core: ModuleType, vocab: Vocabulary) -> _core.VocabTrie:
    """Return the core's byte trie of ``vocab`` (built once per vocabulary fingerprint, ~0.1 s for 131k tokens)."""
    fingerprint = vocab.fingerprint()
    with _LOCK:
        found = _TRIES.get(fingerprint)
    if found is not None:
        return found
    is_text = (vocab.lengths > 0).astype("uint8").tobytes()
    trie: _core.VocabTrie = core.VocabTrie(
        vocab.token_bytes, is_text, sorted(vocab.eos_token_ids), sorted(vocab.special_token_ids)
    )
    with _LOCK:
        return _TRIES.setdefault(fingerprint, trie)


def native_engine(
    core: ModuleType, grammar: Grammar, vocab: Vocabulary | None, *, max_stacks: int = MAX_STACKS
) -> _core.Engine:
    """Return the core's compiled engine of ``grammar`` over ``vocab`` (cached per grammar object, vocabulary and
    stack cap). Raises :class:`MatchLimitError` when even the initial state exceeds the core's limits."""
    key = f"{vocab.fingerprint() if vocab is not None else ''}/{max_stacks}"
    with _LOCK:
        per_grammar = _ENGINES.setdefault(grammar, {})
        found = per_grammar.get(key)
    if found is not None:
        return found
    trie = native_trie(core, vocab) if vocab is not None else None
    if vocab is not None:
        plan = plan_chains(grammar, vocab.max_len)
        kinds, values, starts, nullable = rule_tables(plan.rules, plan.nullable)
        canonical = plan.canonical
    else:
        kinds, values, starts, nullable = rule_tables(grammar.rules, grammar.nullable)
        canonical = []
    try:
        engine: _core.Engine = core.Engine(
            kinds,
            values,
            starts,
            nullable,
            grammar.root_id,
            trie,
            max_stacks=max_stacks,
            max_work=MAX_WORK,
            canonical=canonical,
        )
    except core.LimitError as error:
        raise MatchLimitError(max_stacks) from error
    with _LOCK:
        return per_grammar.setdefault(key, engine)
