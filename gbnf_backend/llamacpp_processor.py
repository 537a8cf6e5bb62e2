"""A llama-cpp-python ``logits_processor`` backed by :class:`GrammarMatcher` (numpy only).

>>> llm.create_completion(prompt, logits_processor=LogitsProcessorList([LlamaCppGrammarProcessor(g, vocab)]))
... # doctest: +SKIP

llama-cpp-python calls ``processor(input_ids, scores)`` before sampling each token, with every token id so far
(prompt included) and the float32 scores of the vocabulary. The first call fixes the prompt length; later calls
accept the tokens generated since, then set the scores of disallowed tokens to ``-inf`` (in place).
Build the vocabulary with ``Vocabulary.from_gguf(model_path)`` so ids match the model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .bitmask import allocate_token_bitmask, apply_token_bitmask
from .grammar import Grammar
from .matcher import GrammarMatcher
from .triggers import Trigger
from .vocab import Vocabulary

__all__ = ["LlamaCppGrammarProcessor"]


class LlamaCppGrammarProcessor:
    """Constrain one llama-cpp-python generation to a grammar; returns the (modified) scores."""

    def __init__(self, grammar: Grammar | str, vocab: Vocabulary, *, triggers: Sequence[Trigger] | None = None) -> None:
        self.matcher = GrammarMatcher(grammar, vocab, triggers=triggers)
        self._bitmask = allocate_token_bitmask(1, vocab.size)
        self._seen: int | None = None

    def __call__(self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]) -> npt.NDArray[np.single]:
        length = len(input_ids)
        if self._seen is None:
            self._seen = length
        matcher = self.matcher
        for position in range(self._seen, length):
            token = int(input_ids[position])
            if not matcher.is_terminated() and not matcher.accept_token(token) and not matcher.is_error():
                matcher.error = f"token {token} at position {position} was not allowed by the grammar"
        self._seen = length
        matcher.fill_next_token_bitmask(self._bitmask)
        result: npt.NDArray[np.single] = apply_token_bitmask(scores, self._bitmask)
        return result
