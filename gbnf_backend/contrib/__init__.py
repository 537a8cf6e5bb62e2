"""Adapters for libraries outside the core dependencies (each submodule imports its library lazily).

* :mod:`gbnf_backend.contrib.transformers` — ``vocabulary_from_huggingface(tokenizer)`` and
  :class:`~gbnf_backend.contrib.transformers.GrammarBatchLogitsProcessor` (one grammar per batch row, resets on a
  new prompt); re-exports :class:`gbnf_backend.hf_processor.GrammarLogitsProcessor`.
* :mod:`gbnf_backend.contrib.llamacpp` — re-exports :class:`gbnf_backend.llamacpp_processor.LlamaCppGrammarProcessor`.
"""

__all__: list[str] = []
