"""Round trip: what a format's grammar lets a model write, the format's parser reads as valid tool calls.

For every format, sample outputs with our ``GrammarMatcher`` over the real tekken vocabulary (131,072 tokens):
random free text first (the matcher is lazy and awaits its trigger), then the trigger text, then tokens drawn
from random logits (fixed seeds) under the grammar's mask. Structural tokens are favoured and, after a while,
the sampler tries closing markers (fed through the matcher too) so that random string values end. Every sample
must parse, without warnings, into at least one tool call whose arguments validate against the tool's schema.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import numpy as np
import pytest

from chat_formats import ChatFormat, get_format
from gbnf_backend import GrammarMatcher
from gbnf_backend.vocab import Vocabulary
from tests.chat_formats.samples import TOOLS

SEEDS = (0, 1, 2)
WORDS = ["alpha", "beta", "gamma", "delta", "Paris", "42", "why?", "ok,", "so:", "[1]", "{x}", "é"]
# Text before the trigger, and the trigger text itself (a word the format's triggers fire on).
SETUPS: dict[str, tuple[str, str]] = {
    "hermes": ("{free}\n", "<tool_call>"),
    "qwen3": ("<think>{free}</think>\n", "<tool_call>"),
    "qwen3-coder": ("{free}\n", "<tool_call>"),
    "deepseek-r1": ("{free}", "<｜tool▁calls▁begin｜>"),
    "mistral-nemo": ("{free} ", "[TOOL_CALLS]"),
    "ministral-3": ("[THINK]{free}[/THINK]", "[TOOL_CALLS]"),
    "gpt-oss": ("<|channel|>analysis<|message|>{free}<|end|><|start|>assistant", "<|channel|>commentary to=functions."),
    "kimi-k2": ("{free}", "<|tool_calls_section_begin|><|tool_call_begin|>"),
    "deepseek-v3.1": ("<think>{free}</think>", "<｜tool▁calls▁begin｜>"),
    "granite": ("<think>{free}</think><response>{free}</response>", "<|tool_call|>"),
    "command-r7b": ("<|START_THINKING|>{free}<|END_THINKING|>", "<|START_ACTION|>"),
    "nemotron-v2": ("<think>{free}</think>\n", "<TOOLCALL>"),
    "apertus": ("<|inner_prefix|>{free}<|inner_suffix|>", "<|tools_prefix|>"),
    "apriel-1.5": ("<thinking>{free}</thinking>{free} ", "<tool_calls>"),
    "magistral": ("[THINK]{free}[/THINK]", "[TOOL_CALLS]"),
    "generic": ("", '{"tool_calls": ['),  # not lazy: the grammar holds from the first character
    "pythonic": ("{free} ", "<|python_start|>"),
    "lfm2": ("<think>{free}</think>", "<|tool_call_start|>"),
    "glm-4.5": ("<think>{free}</think>", "<tool_call>"),
    "minimax-m2": ("<think>{free}</think>\n", "<minimax:tool_call>"),
    "seed-oss": ("<seed:think>{free}</seed:think>\n", "<seed:tool_call>"),
    "xiaomi-mimo": ("{free}", '\n<tool_call>\n{"name": "'),
    "llama3": ("{free} ", "<|python_tag|>"),
    "functionary-v3.1-llama-3.1": ("{free}\n", "<function="),
    "functionary-v3.2": ("all\n{free}", ">>>"),
    "firefunction-v2": ("{free}", " functools["),
}
CLOSERS = ("\n</parameter>", "\n</function>", '"', "'", "}", "]", ")", "```")
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.from_tekken()


@pytest.fixture(scope="module")
def bias(vocab: Vocabulary) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Favour tokens with structural characters; disfavour whitespace-only and long tokens (random logits
    would otherwise write whitespace or prose forever)."""
    out = np.zeros(vocab.size)
    for i, piece in enumerate(vocab.token_bytes):
        if any(c in piece for c in (b'"', b"}", b"]", b">", b"|")):
            out[i] = 6.0
        if piece.strip() == b"":
            out[i] = -6.0
        elif len(piece) > 6:
            out[i] -= 2.0
    return out


def _closer(matcher: GrammarMatcher, closers: list[str]) -> str | None:
    """The longest closer the matcher accepts, preferring one that really closes something: after it a letter is
    refused (a closer of another format, e.g. ``</parameter>`` inside a raw ``<arg_value>``, is just more text)."""
    fits = [c for c in closers if matcher.fork().accept_string(c)]
    for c in fits:
        after = matcher.fork()
        if after.accept_string(c) and not after.accept_string("x"):
            return c
    return fits[0] if fits else None


def sample(fmt: ChatFormat, vocab: Vocabulary, bias: np.ndarray[Any, Any], seed: int, budget: int = 500) -> str:
    """One output drawn under ``fmt``'s lazy grammar (every token checked by the matcher)."""
    rng = np.random.default_rng(seed)
    before, trigger = SETUPS[fmt.name]
    free = " ".join(rng.choice(WORDS, size=int(rng.integers(1, 8))))
    text = before.format(free=free) + trigger
    matcher = fmt.matcher(vocab)
    assert matcher.is_awaiting_trigger() is fmt.grammar().lazy
    assert matcher.accept_string(text) and not matcher.is_awaiting_trigger()
    closers = sorted({*fmt.definition.preserved_tokens, *CLOSERS}, key=len, reverse=True)
    bitmask = np.zeros((1, (vocab.size + 31) // 32), dtype=np.int32)
    pieces: list[bytes] = []
    for step in range(budget):
        if matcher.can_end() and rng.random() < 0.7:
            break
        if step > 60 and rng.random() < 0.5:  # try to close what is open
            closer = _closer(matcher, closers)
            if closer is not None:
                assert matcher.accept_string(closer)
                pieces.append(closer.encode())
                continue
        matcher.fill_next_token_bitmask(bitmask)
        allowed = np.unpackbits(bitmask[0].view(np.uint8), bitorder="little")[: vocab.size].astype(bool)
        logits = np.where(allowed, rng.normal(size=vocab.size) + bias, -np.inf)
        token = int(np.argmax(logits))
        if token in vocab.eos_token_ids:
            break
        assert matcher.accept_token(token)
        pieces.append(vocab.token_bytes[token])
    else:
        pytest.fail(f"no end within {budget} steps: {(text + b''.join(pieces).decode(errors='replace'))[-200:]!r}")
    assert matcher.can_end()
    return text + b"".join(pieces).decode("utf-8")


@pytest.mark.parametrize("name", sorted(SETUPS))
def test_grammar_samples_parse_into_valid_calls(name: str, vocab: Vocabulary, bias: np.ndarray[Any, Any]) -> None:
    fmt = get_format(name, tools=TOOLS)
    for seed in SEEDS:
        output = sample(fmt, vocab, bias, seed)
        streamed = fmt.stream()
        message = fmt.parse(output, salt=streamed.salt)
        assert message.warnings == [], (output, message.warnings)
        assert message.tool_calls, output
        for call in message.tool_calls:
            jsonschema.validate(call.function.parsed_arguments(), SCHEMAS[call.function.name])
        for i in range(0, len(output), 7):
            streamed.feed(output[i : i + 7])
        streamed.finish()
        assert streamed.message.tool_calls == message.tool_calls
