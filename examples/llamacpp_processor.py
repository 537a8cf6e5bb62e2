"""llama-cpp-python's ``logits_processor`` slot, constrained by a pegchat grammar, on a vocab-only GGUF.

With llama-cpp-python installed and a real model::

    from llama_cpp import Llama, LogitsProcessorList
    llm = Llama(model_path=MODEL_GGUF)
    vocab = Vocabulary.from_gguf(MODEL_GGUF)              # the same ids as the model
    processor = LlamaCppGrammarProcessor(fmt.grammar().gbnf, vocab, triggers=fmt.grammar().triggers)
    llm.create_completion(prompt, logits_processor=LogitsProcessorList([processor]))

This script needs neither the library nor a model: it writes a small vocab-only GGUF (GPT-2 style byte
tokens, with the ``gguf`` package) and calls the processor exactly as llama-cpp-python does — with every
token id so far and the float32 scores — sampling greedily from random scores. (llama-cpp-python publishes
no prebuilt wheel for this machine, and building llama.cpp is out of scope for an example.)

Run: ``python examples/llamacpp_processor.py``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from gbnf_backend import Vocabulary, json_schema_to_gbnf
from gbnf_backend.contrib.llamacpp import LlamaCppGrammarProcessor

SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}


def _byte_pieces() -> list[str]:
    """GPT-2's printable spelling of the 256 bytes (what a BPE GGUF stores)."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    extra = iter(range(256, 512))
    return [chr(b) if b in printable else chr(next(extra)) for b in range(256)]


def write_vocab_gguf(path: Path) -> Path:
    """A vocab-only GGUF: the 256 byte tokens, then ``<eos>`` (id 256, control)."""
    import gguf

    writer = gguf.GGUFWriter(str(path), arch="llama")
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list([*_byte_pieces(), "<eos>"])
    writer.add_token_types([1] * 256 + [3])
    writer.add_eos_token_id(256)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    writer.close()
    return path


def main(max_tokens: int = 60) -> str:
    """Generate with random scores under the schema; returns the text (a JSON document if it finished)."""
    with tempfile.TemporaryDirectory() as tmp:
        vocab = Vocabulary.from_gguf(write_vocab_gguf(Path(tmp) / "vocab.gguf"))
    processor = LlamaCppGrammarProcessor(json_schema_to_gbnf(SCHEMA), vocab)
    rng = np.random.default_rng(0)
    ids = list(b"Reply in JSON: ")  # the prompt's ids (bytes)
    out: list[int] = []
    for _ in range(max_tokens):
        scores = rng.standard_normal(vocab.size).astype(np.single)
        scores = processor(np.array(ids, dtype=np.intc), scores)
        token = int(np.argmax(scores))
        if token in vocab.eos_token_ids:
            break
        ids.append(token)
        out.append(token)
    text = bytes(out).decode("utf-8", errors="replace")
    print(text)
    if processor.matcher.can_end():
        print("valid:", json.loads(text))
    return text


if __name__ == "__main__":
    main()
