"""Helpers the format test modules share (a plain module, not collected): the stream check, chunking and edit
strategies, where a lazy grammar's trigger starts, and the round trip that samples outputs under a format's
grammar over a real vocabulary.

The older test modules (``test_stream_laws``, ``test_grammar``, ``test_roundtrip``) keep their own copies; the
format test modules import from here instead of from other test modules.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from chat_formats import ChatDelta, ChatFormat, ChatMessage, LazyGrammar
from gbnf_backend import GrammarMatcher
from gbnf_backend.vocab.vocabulary import Vocabulary

__all__ = [
    "CLOSERS",
    "EDITS",
    "SEEDS",
    "WORDS",
    "as_message_dict",
    "check_stream",
    "chunks",
    "run_cli",
    "sample",
    "structural_bias",
    "trigger_start",
]


# --- streaming ----------------------------------------------------------------------------------------------------
def chunks(text: str, cuts: list[int]) -> list[str]:
    """``text`` cut at the positions ``cuts`` (taken modulo its length + 1)."""
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


_JUNK = st.sampled_from(["x", "}", '"', "{", "]", "[", ",", " ", "\n", "<", ">", "n", "t", "1", "-", ".", "\\", "é"])
EDITS = st.tuples(st.integers(min_value=0, max_value=10_000), st.sampled_from(["insert", "delete", "cut"]), _JUNK)
"""One edit of an output: ``(where, "insert" | "delete" | "cut", junk character)``."""


def _replay(deltas: list[ChatDelta]) -> dict[str, Any]:
    """Concatenate deltas as a client would, checking the chunk rules on the way."""
    assert deltas[0].role == "assistant" and all(d.role is None for d in deltas[1:])
    assert deltas[-1].finish_reason is not None and all(d.finish_reason is None for d in deltas[:-1])
    content, reasoning = "", ""
    calls: list[dict[str, str]] = []
    for d in deltas:
        content += d.content or ""
        reasoning += d.reasoning_content or ""
        for tc in d.tool_calls:
            if tc.index == len(calls):  # a new call: its first fragment carries everything but the arguments
                assert tc.id and tc.type == "function" and tc.function.name
                calls.append({"id": tc.id, "name": tc.function.name, "arguments": tc.function.arguments or ""})
            else:
                assert tc.index == len(calls) - 1, "calls are streamed one after another, indices dense"
                assert tc.id is None and tc.type is None and tc.function.name is None
                calls[tc.index]["arguments"] += tc.function.arguments or ""
    return {"content": content or None, "reasoning": reasoning or None, "calls": calls}


def as_message_dict(m: ChatMessage) -> dict[str, Any]:
    calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments} for c in m.tool_calls]
    return {"content": m.content, "reasoning": m.reasoning_content, "calls": calls}


def stream_deltas(fmt: ChatFormat, pieces: list[str], *, fast: bool) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every delta of streaming ``pieces`` (fast lane on or off) as dicts, and the message they add up to."""
    stream = fmt.stream()
    stream._fast_lane = fast
    out: list[ChatDelta] = []
    for piece in pieces:
        out.extend(stream.feed(piece))
    out.extend(stream.finish())
    return [d.model_dump() for d in out], as_message_dict(stream.message)


def check_stream(fmt: ChatFormat, text: str, pieces: list[str]) -> None:
    """Streaming ``pieces`` (which join to ``text``) ends in the one-shot parse of ``text`` (same call ids); the
    deltas follow the chunk rules and replay through the ``openai`` package's accumulator to that message."""
    stream = fmt.stream()
    expected = fmt.parse(text, salt=stream.salt)
    deltas: list[ChatDelta] = []
    for piece in pieces:
        deltas += stream.feed(piece)
    deltas += stream.finish()
    assert as_message_dict(stream.message) == as_message_dict(expected)
    assert not [w for w in stream.message.warnings if w.startswith("stream:")]
    assert _replay(deltas) == as_message_dict(expected)
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in stream.chunks(deltas):
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    final = state.get_final_completion().choices[0]
    got = final.message
    assert (got.content or None) == expected.content
    assert (got.model_extra or {}).get("reasoning_content") == expected.reasoning_content
    assert [(c.id, c.function.name, c.function.arguments) for c in got.tool_calls or []] == [
        (c.id, c.function.name, c.function.arguments) for c in expected.tool_calls
    ]
    assert final.finish_reason == ("tool_calls" if expected.tool_calls else "stop")


# --- grammars -----------------------------------------------------------------------------------------------------
def trigger_start(grammar: LazyGrammar, text: str) -> int:
    """Where a sampler's trigger would start the grammar in ``text`` (-1: never)."""
    starts = []
    for t in grammar.triggers:
        value = str(t.value)
        if t.type == "word":
            starts.append(text.find(value))
        elif t.type == "pattern":
            m = re.search(value, text)
            starts.append((m.start(1) if m.groups() else m.start()) if m else -1)
        elif t.type == "pattern_full":
            m = re.fullmatch(value, text)
            starts.append((m.start(1) if m.groups() else 0) if m else -1)
    found = [s for s in starts if s >= 0]
    return min(found) if found else -1


# --- round trip ---------------------------------------------------------------------------------------------------
SEEDS = (0, 1, 2)
WORDS = ["alpha", "beta", "gamma", "delta", "Paris", "42", "why?", "ok,", "so:", "[1]", "{x}", "é"]
CLOSERS = ("\n</parameter>", "\n</function>", '"', "'", "}", "]", ")", "```")
"""Closing texts the sampler tries (with the format's preserved tokens) so that random values end."""


def structural_bias(vocab: Vocabulary, markup: bytes = b'"}]>|') -> np.ndarray[Any, np.dtype[np.float64]]:
    """Logit offsets favouring tokens holding one of the ``markup`` characters and disfavouring blank or long
    tokens (random logits would otherwise write whitespace or prose forever). Cost: one pass over the vocabulary."""
    out = np.zeros(vocab.size)
    for i, piece in enumerate(vocab.token_bytes):
        if any(bytes([c]) in piece for c in markup):
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


def sample(
    fmt: ChatFormat,
    vocab: Vocabulary,
    bias: np.ndarray[Any, Any],
    seed: int,
    setup: tuple[str, str],
    closers: Sequence[str] = CLOSERS,
    budget: int = 500,
) -> str:
    """One output drawn under ``fmt``'s lazy grammar, every token checked by the matcher: ``setup`` is the text
    before the trigger (``{free}`` replaced by random words) and the trigger text; then tokens from random logits
    plus ``bias`` under the grammar's mask, trying ``closers`` after a while. Cost: up to ``budget`` masks."""
    rng = np.random.default_rng(seed)
    before, trigger = setup
    free = " ".join(rng.choice(WORDS, size=int(rng.integers(1, 8))))
    text = before.format(free=free) + trigger
    matcher = fmt.matcher(vocab)
    assert matcher.is_awaiting_trigger() is fmt.grammar().lazy
    assert matcher.accept_string(text) and not matcher.is_awaiting_trigger()
    tries = sorted({*fmt.definition.preserved_tokens, *closers}, key=len, reverse=True)
    bitmask = np.zeros((1, (vocab.size + 31) // 32), dtype=np.int32)
    pieces: list[bytes] = []
    for step in range(budget):
        if matcher.can_end() and rng.random() < 0.7:
            break
        if step > 60 and rng.random() < 0.5:  # try to close what is open
            closer = _closer(matcher, tries)
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


# --- command line -------------------------------------------------------------------------------------------------
def run_cli(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``pegchat ARGS`` (the installed script, else ``python -m chat_formats.cli``) with ``stdin``."""
    exe = shutil.which("pegchat")
    command = [exe, *args] if exe else [sys.executable, "-m", "chat_formats.cli", *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=60, check=False)
