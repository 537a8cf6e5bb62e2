"""llama-cpp-python: the grammar logits processor (numpy only; see :mod:`gbnf_backend.llamacpp_processor`).

Build the vocabulary from the same GGUF file the model loads (``Vocabulary.from_gguf(path)``), so ids match.
"""

from ..llamacpp_processor import LlamaCppGrammarProcessor

__all__ = ["LlamaCppGrammarProcessor"]
