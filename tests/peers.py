"""Loading our grammars in peer engines, for the optional interoperability tests."""

from __future__ import annotations

__all__ = ["llama_cpp_loads"]


def llama_cpp_loads(gbnf: str, root: str = "root") -> bool:
    """Return whether llama.cpp's own grammar parser accepts ``gbnf`` (no model needed for ``<[id]>``-free text).

    ``LlamaGrammar.from_string`` in llama-cpp-python only stores the text, so it checks nothing; creating a grammar
    sampler runs llama.cpp's parser and its left-recursion check and returns NULL for a grammar it refuses.
    """
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(None, gbnf.encode("utf-8"), root.encode("utf-8"))
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True
