"""SGLang detectors and grammar backend, driven through SGLang's own ``FunctionCallParser``,
``ReasoningParser`` and grammar-backend registry (``pip install --no-deps sglang`` plus light deps)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("sglang")
detectors = pytest.importorskip("chat_formats.integrations.sglang_detectors")
grammar_mod = pytest.importorskip("chat_formats.integrations.sglang_grammar")

import torch  # noqa: E402
from sglang.srt.constrained.base_grammar_backend import (  # noqa: E402
    GRAMMAR_BACKEND_REGISTRY,
    InvalidGrammarObject,
)
from sglang.srt.entrypoints.openai.protocol import Tool  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402

from chat_formats import available_formats  # noqa: E402

from .tiny import byte_tokenizer  # noqa: E402

TOOLS = [
    Tool.model_validate(
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            },
        }
    )
]
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "%s"}}\n</tool_call>'
OUTPUT = "Checking.\n" + CALL % "Paris" + "\n" + CALL % "Rome"


def test_every_format_is_registered_with_sglang() -> None:
    for name in available_formats():
        assert f"pegchat-{name}" in FunctionCallParser.ToolCallParserEnum
        assert f"pegchat-{name}" in ReasoningParser.DetectorMap


def _stream_calls(parser: Any, pieces: list[str]) -> tuple[str, dict[int, dict[str, str]]]:
    text, calls = "", {}
    for piece in pieces:
        normal, items = parser.parse_stream_chunk(piece)
        text += normal
        for item in items:
            entry = calls.setdefault(item.tool_index, {"name": "", "arguments": ""})
            entry["name"] += item.name or ""
            entry["arguments"] += item.parameters
    normal, items = parser.parse_stream_end()
    text += normal
    for item in items:
        calls[item.tool_index]["arguments"] += item.parameters
    return text, calls


@pytest.mark.parametrize("step", [1, 5, 1000])
def test_function_call_stream_matches_the_whole_parse(step: int) -> None:
    parser = FunctionCallParser(TOOLS, "pegchat-hermes")
    text, calls = _stream_calls(parser, [OUTPUT[i : i + step] for i in range(0, len(OUTPUT), step)])
    assert text.strip() == "Checking."
    assert [calls[i]["name"] for i in (0, 1)] == ["get_weather", "get_weather"]
    assert [json.loads(calls[i]["arguments"]) for i in (0, 1)] == [{"city": "Paris"}, {"city": "Rome"}]
    whole_text, whole_calls = FunctionCallParser(TOOLS, "pegchat-hermes").parse_non_stream(OUTPUT)
    assert whole_text.strip() == "Checking."
    assert [c.tool_index for c in whole_calls] == [0, 0]  # the tool's position in the request
    assert [json.loads(c.parameters)["city"] for c in whole_calls] == ["Paris", "Rome"]


def test_marker_prefix_at_the_end_is_released_by_finish() -> None:
    text, calls = _stream_calls(FunctionCallParser(TOOLS, "pegchat-hermes"), list("x <tool_"))
    assert text == "x <tool_" and not calls


def test_required_tool_choice_parses_the_native_syntax() -> None:
    parser = FunctionCallParser(TOOLS, "pegchat-qwen3", tool_choice="required")
    assert parser.detector.parses_required_natively()
    _, calls = parser.parse_non_stream(CALL % "Oslo")
    assert json.loads(calls[0].parameters) == {"city": "Oslo"}


@pytest.mark.parametrize("stream_reasoning", [True, False])
def test_reasoning_detector_splits_reasoning_from_normal_text(stream_reasoning: bool) -> None:
    out = "<think>Rome is nice.</think>\n" + CALL % "Rome"
    whole = ReasoningParser("pegchat-qwen3").parse_non_stream(out)
    assert whole[0] == "Rome is nice." and whole[1].strip() == (CALL % "Rome").strip()
    parser = ReasoningParser("pegchat-qwen3", stream_reasoning=stream_reasoning)
    reasoning, normal = "", ""
    for ch in out:
        r, n = parser.parse_stream_chunk(ch)
        reasoning, normal = reasoning + (r or ""), normal + (n or "")
    r, n = parser.detector.finish().reasoning_text, parser.detector.finish().normal_text
    reasoning, normal = reasoning + r, normal + n
    assert reasoning == "Rome is nice."
    assert normal.strip() == (CALL % "Rome").strip()


def test_forced_reasoning_reads_an_output_without_the_opener() -> None:
    parser = ReasoningParser("pegchat-qwen3", force_reasoning=True)
    assert parser.parse_non_stream("thinking</think>answer") == ("thinking", "answer")


# --- grammar backend -------------------------------------------------------------------------------------------

TOKENIZER = byte_tokenizer()
VOCAB_SIZE = 320  # wider than the tokenizer, as model heads often are


def _backend() -> Any:
    factory = GRAMMAR_BACKEND_REGISTRY["pegchat"]
    return factory(None, TOKENIZER, VOCAB_SIZE, {TOKENIZER.eos_token_id})


def _allowed(grammar: Any) -> set[int]:
    mask = grammar.allocate_vocab_mask(VOCAB_SIZE, 1, "cpu")
    grammar.fill_vocab_mask(mask, 0)
    logits = torch.zeros((1, VOCAB_SIZE))
    grammar.apply_vocab_mask(logits, mask)
    return set(torch.nonzero(logits[0] == 0).flatten().tolist())


def test_json_schema_grammar_walks_masks_and_rolls_back() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    grammar = _backend().dispatch_json(json.dumps(schema)).copy()
    ids = TOKENIZER.encode('{"ok": true}', add_special_tokens=False)
    assert _allowed(grammar) >= {ord("{")} and ord("x") not in _allowed(grammar)
    for i, token in enumerate(ids):
        assert token in _allowed(grammar), f"token {i} refused"
        grammar.accept_token(token)
    assert _allowed(grammar) == {TOKENIZER.eos_token_id}
    grammar.rollback(5)  # back before "true}"
    assert ord("t") in _allowed(grammar) and ord("f") in _allowed(grammar)
    assert all(token < VOCAB_SIZE for token in _allowed(grammar))
    fresh = grammar.copy()
    assert ord("{") in _allowed(fresh)


def test_jump_forward_returns_the_forced_text() -> None:
    grammar = _backend().dispatch_ebnf('root ::= "{\\"name\\": \\"" [a-z]+ "\\"}"').copy()
    helper = grammar.try_jump_forward(TOKENIZER)
    assert helper is not None and grammar.jump_forward_str_state(helper)[0] == '{"name": "'
    old = TOKENIZER.encode("{", add_special_tokens=False)
    grammar.accept_token(old[0])
    grammar.jump_and_retokenize(old, TOKENIZER.encode('{"name": "', add_special_tokens=False), -1)
    assert ord("a") in _allowed(grammar) and ord('"') not in _allowed(grammar)


def test_refused_token_never_raises_and_leaves_only_eos() -> None:
    grammar = _backend().dispatch_regex("[0-9]+").copy()
    grammar.accept_token(ord("x"))
    assert grammar.matcher.is_error()
    assert grammar.is_terminated()


def test_bad_requests_become_invalid_grammar_objects() -> None:
    backend = _backend()
    bad = backend.dispatch_ebnf("root ::= undefined-rule")
    assert isinstance(bad, InvalidGrammarObject) and "undefined" in bad.error_message
    assert isinstance(backend.dispatch_structural_tag('{"type": "other"}'), InvalidGrammarObject)


def test_format_structural_tag_is_lazy_until_its_trigger() -> None:
    spec = {"type": "pegchat", "format": "hermes", "tools": [t.model_dump() for t in TOOLS]}
    grammar = _backend().dispatch_structural_tag(json.dumps(spec)).copy()
    assert ord("Z") in _allowed(grammar)  # free text before a call
    # The marker spelled as text bytes (ids 0-255 are bytes): special-token markers are the matcher's job.
    for token in b'<tool_call>\n{"name": "':
        grammar.accept_token(token)
    assert not grammar.matcher.is_error()
    assert _allowed(grammar) == {ord("g")}  # the only tool's name
