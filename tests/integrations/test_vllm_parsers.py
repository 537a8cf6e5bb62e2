"""The vLLM tool and reasoning parser plugins, driven through vLLM's own ``ParserManager`` / ``DelegatingParser``.

Needs vLLM's parser modules: ``pip install --no-deps vllm`` plus the light packages its protocol modules import
(listed in the README section "Using pegchat in a server").
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chat_formats import available_formats, get_format

pytest.importorskip("vllm")
vllm_parsers = pytest.importorskip("chat_formats.integrations.vllm_parsers")

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser, ReasoningParserManager  # noqa: E402
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager  # noqa: E402

from .tiny import byte_tokenizer  # noqa: E402

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
QWEN3_OUTPUT = (
    "<think>The user wants Paris.</think>\n\nLet me check.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)
TOKENIZER = byte_tokenizer()


def _request(tool_choice: Any = "auto", tools: list[dict[str, Any]] | None = None) -> Any:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools or TOOLS, tool_choice=tool_choice
    )


def _parser(name: str, *, reasoning: bool) -> Any:
    cls = ParserManager.get_parser(
        tool_parser_name=f"pegchat-{name}",
        reasoning_parser_name=f"pegchat-{name}" if reasoning else None,
        enable_auto_tools=True,
        tokenizer=TOKENIZER,
    )
    assert cls is not None
    return cls(TOKENIZER, tools=None)


def _stream(parser: Any, request: Any, pieces: list[str], prompt: str = "") -> dict[str, Any]:
    """Feed ``pieces`` through ``parse_delta`` and accumulate the deltas the way the OpenAI client does."""
    out: dict[str, Any] = {"reasoning": "", "content": "", "calls": {}}
    prompt_ids = TOKENIZER.encode(prompt, add_special_tokens=False)
    for i, piece in enumerate(pieces):
        ids = TOKENIZER.encode(piece, add_special_tokens=False)
        delta = parser.parse_delta(
            delta_text=piece,
            delta_token_ids=ids,
            request=request,
            prompt_token_ids=prompt_ids,
            finished=i == len(pieces) - 1,
        )
        if delta is None:
            continue
        out["reasoning"] += delta.reasoning or ""
        out["content"] += delta.content or ""
        seen = set()
        for call in delta.tool_calls:
            assert call.index not in seen, "one DeltaMessage holds at most one fragment per call"
            seen.add(call.index)
            entry = out["calls"].setdefault(call.index, {"id": call.id, "name": call.function.name, "arguments": ""})
            if call.index in out["calls"] and entry["id"] != call.id:
                assert call.id is None and call.function.name is None, "id and name only in the first fragment"
            entry["arguments"] += call.function.arguments or ""
    return out


def test_every_format_registers_a_tool_and_a_reasoning_parser() -> None:
    for name in available_formats():
        assert issubclass(ToolParserManager.get_tool_parser(f"pegchat-{name}"), ToolParser)
        assert issubclass(ReasoningParserManager.get_reasoning_parser(f"pegchat-{name}"), ReasoningParser)


def test_plugin_module_path_registers_through_vllm_import_plugin() -> None:
    ToolParserManager.import_tool_parser("chat_formats.integrations.vllm_parsers")
    assert "pegchat-qwen3" in ToolParserManager.list_registered()


@pytest.mark.parametrize("reasoning", [True, False])
def test_stream_char_by_char_matches_the_whole_parse(reasoning: bool) -> None:
    request = _request()
    got = _stream(_parser("qwen3", reasoning=reasoning), request, list(QWEN3_OUTPUT))
    reasoning_text, content, calls = _parser("qwen3", reasoning=reasoning).parse(
        QWEN3_OUTPUT, request, enable_auto_tools=True
    )
    assert got["reasoning"] == (reasoning_text or "")
    assert got["content"].strip() == (content or "").strip()
    assert len(got["calls"]) == len(calls or []) == 1
    assert got["calls"][0]["name"] == "get_weather"
    assert json.loads(got["calls"][0]["arguments"]) == {"city": "Paris"}
    if reasoning:
        assert got["reasoning"] == "The user wants Paris."
        assert "<think>" not in got["content"]
    else:  # no reasoning parser: reasoning markup stays content, as vLLM's own parsers leave it
        assert got["content"].startswith("<think>The user wants Paris.</think>")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(QWEN3_OUTPUT) - 1), max_size=12, unique=True))
def test_any_chunking_gives_the_same_call_and_nothing_is_held_back(cuts: list[int]) -> None:
    cuts = sorted(cuts)
    pieces = [QWEN3_OUTPUT[a:b] for a, b in zip([0, *cuts], [*cuts, len(QWEN3_OUTPUT)], strict=True)]
    got = _stream(_parser("qwen3", reasoning=True), _request(), pieces)
    assert got["reasoning"] == "The user wants Paris."
    assert got["content"].strip() == "Let me check."
    assert json.loads(got["calls"][0]["arguments"]) == {"city": "Paris"}


def test_trailing_text_that_looks_like_a_marker_is_released_at_the_end() -> None:
    text = "Answer: 1 <tool_c"
    got = _stream(_parser("qwen3", reasoning=False), _request(), [*list(text)])
    assert got["content"] == text
    assert not got["calls"]


def test_parallel_calls_get_dense_indices_and_their_own_ids() -> None:
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "%s"}}\n</tool_call>'
    text = call % "Paris" + "\n" + call % "Rome"
    got = _stream(_parser("hermes", reasoning=False), _request(), [text[i : i + 7] for i in range(0, len(text), 7)])
    assert sorted(got["calls"]) == [0, 1]
    assert got["calls"][0]["id"] != got["calls"][1]["id"]
    assert [json.loads(got["calls"][i]["arguments"])["city"] for i in (0, 1)] == ["Paris", "Rome"]


def test_required_tool_choice_is_parsed_natively_and_constrained_by_our_grammar() -> None:
    tool_parser = ToolParserManager.get_tool_parser("pegchat-qwen3")(TOKENIZER, None)
    request = _request("required")
    request.skip_special_tokens = True
    adjusted = tool_parser.adjust_request(request)
    assert adjusted.skip_special_tokens is False
    gbnf = adjusted.structured_outputs.grammar
    assert gbnf == get_format("qwen3", tools=TOOLS, tool_choice="required").grammar().gbnf
    info = tool_parser.extract_tool_calls(QWEN3_OUTPUT, request)
    assert info.tools_called and info.tool_calls[0].function.name == "get_weather"


def test_reasoning_token_methods_follow_the_markers() -> None:
    parser = ReasoningParserManager.get_reasoning_parser("pegchat-qwen3")(TOKENIZER)
    enc = lambda s: TOKENIZER.encode(s, add_special_tokens=False)  # noqa: E731
    assert parser.reasoning_start_str == "<think>" and parser.reasoning_end_str == "</think>"
    assert not parser.is_reasoning_end(enc("<|im_start|>assistant\n<think>\nhmm"))
    assert parser.is_reasoning_end(enc("<think>hmm</think>\nok"))
    assert parser.is_reasoning_end(enc("<think>hmm <tool_call>"))  # qwen3: a call ends unclosed reasoning
    ids = enc("<think>hmm</think>\nok")
    assert TOKENIZER.decode(parser.extract_content_ids(ids)) == "\nok"
    assert parser.extract_content_ids(enc("<think>still")) == []
    assert parser.count_reasoning_tokens(ids) == len(enc("<think>hmm</think>"))
    whole = enc("<think>a</think>b")
    assert parser.is_reasoning_end_streaming(whole, whole[-2:])  # "</think>" is one token, then "b"
    assert not parser.is_reasoning_end_streaming(whole, whole[-1:])


def test_prompt_that_opens_the_block_is_noticed() -> None:
    parser = _parser("qwen3", reasoning=True)
    got = _stream(
        parser, _request(), ["still thinking", "</think>", "Done."], prompt="<|im_start|>assistant\n<think>\n"
    )
    assert got["reasoning"] == "still thinking"
    assert got["content"] == "Done."


def test_format_without_reasoning_is_always_past_reasoning() -> None:
    parser = ReasoningParserManager.get_reasoning_parser("pegchat-llama3")(TOKENIZER)
    assert parser.is_reasoning_end([])
    assert parser.extract_content_ids([1, 2]) == [1, 2]
