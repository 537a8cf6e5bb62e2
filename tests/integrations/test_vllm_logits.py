"""The vLLM V1 logits-processor plugin, driven through vLLM's own ``BatchUpdate`` records and ``SamplingParams``."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("vllm")
plugin = pytest.importorskip("chat_formats.integrations.vllm_logits")

import torch  # noqa: E402
from vllm import SamplingParams  # noqa: E402
from vllm.v1.sample.logits_processor.interface import BatchUpdate, MoveDirectionality  # noqa: E402

from gbnf_backend.contrib.transformers import vocabulary_from_huggingface  # noqa: E402

from .tiny import byte_tokenizer  # noqa: E402

TOKENIZER = byte_tokenizer(special=())
WIDTH = len(TOKENIZER) + 3


class Processor(plugin.PegchatLogitsProcessor):  # type: ignore[misc,name-defined]
    vocabulary = vocabulary_from_huggingface(TOKENIZER, size=WIDTH)


def _params(spec: Any) -> Any:
    return SamplingParams(extra_args={"pegchat": spec}) if spec is not None else SamplingParams()


def _allowed(logits: Any, row: int) -> set[int]:
    return set(torch.nonzero(torch.isfinite(logits[row])).flatten().tolist())


def test_rows_follow_their_own_grammar_as_tokens_arrive_and_move() -> None:
    proc = Processor(None, torch.device("cpu"), False)
    digits: list[int] = []
    schema_out: list[int] = []
    free: list[int] = []
    proc.update_state(
        BatchUpdate(
            batch_size=3,
            removed=[],
            added=[
                (0, _params({"gbnf": 'root ::= [0-9]+ "."'}), [1, 2], digits),
                (1, _params(json.dumps({"json_schema": {"type": "boolean"}})), None, schema_out),
                (2, _params(None), None, free),
            ],
            moved=[],
        )
    )
    logits = proc.apply(torch.zeros((3, WIDTH)))
    assert _allowed(logits, 0) == {ord(c) for c in "0123456789"}
    assert _allowed(logits, 1) == {ord("t"), ord("f")}
    assert len(_allowed(logits, 2)) == WIDTH  # not opted in: untouched
    digits.extend([ord("4"), ord("2")])  # vLLM appends sampled tokens to the live list
    schema_out.append(ord("t"))
    proc.update_state(None)
    logits = proc.apply(torch.zeros((3, WIDTH)))
    assert ord(".") in _allowed(logits, 0) and ord("x") not in _allowed(logits, 0)
    assert _allowed(logits, 1) == {ord("r")}
    proc.update_state(BatchUpdate(batch_size=2, removed=[2], added=[], moved=[(0, 1, MoveDirectionality.SWAP)]))
    logits = proc.apply(torch.zeros((2, WIDTH)))
    assert _allowed(logits, 1) >= {ord(".")} and _allowed(logits, 0) == {ord("r")}


def test_format_spec_is_lazy_until_its_trigger() -> None:
    tools = [{"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}}]
    proc = Processor(None, torch.device("cpu"), False)
    out: list[int] = []
    proc.update_state(BatchUpdate(1, [], [(0, _params({"format": "hermes", "tools": tools}), None, out)], []))
    assert len(_allowed(proc.apply(torch.zeros((1, WIDTH))), 0)) >= 256
    out.extend(b'<tool_call>\n{"name": "')
    assert _allowed(proc.apply(torch.zeros((1, WIDTH))), 0) == {ord("p")}


def test_bad_specs_are_refused_up_front_and_never_raise_in_the_loop() -> None:
    with pytest.raises(ValueError):
        Processor.validate_params(_params({"nothing": 1}))
    proc = Processor(None, torch.device("cpu"), False)
    out: list[int] = []
    proc.update_state(BatchUpdate(1, [], [(0, _params({"gbnf": "root ::= missing"}), None, out)], []))
    logits = proc.apply(torch.zeros((1, WIDTH)))
    assert _allowed(logits, 0) == {TOKENIZER.eos_token_id}
    out.append(ord("x"))
    proc.apply(torch.zeros((1, WIDTH)))  # a refused token is recorded, not raised
    assert proc.rows[0].matcher.is_error()
