"""Use pegchat's parsers in vLLM: register them, then point ``vllm serve`` at them.

    vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice \\
        --tool-parser-plugin chat_formats.integrations.vllm_parsers --tool-call-parser pegchat-qwen3 \\
        --reasoning-parser-plugin chat_formats.integrations.vllm_parsers --reasoning-parser pegchat-qwen3

Running this script registers the plugins in-process (what ``--tool-parser-plugin`` does), lists them, and
streams a Qwen3 output through the parser vLLM itself composes (``ParserManager.get_parser``), one piece per
engine step, with the tokenizer replaced by a byte-level stand-in. Needs vLLM's parser modules
(``pip install --no-deps vllm`` plus the light packages listed in the README).
"""

from __future__ import annotations

import json

from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.parser.parser_manager import ParserManager
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

import chat_formats.integrations.vllm_parsers as plugin

OUTPUT = (
    '<think>Paris, then.</think>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
    "city": {"type": "string"}}}}}]  # fmt: skip


def byte_tokenizer() -> PreTrainedTokenizerFast:
    """A stand-in tokenizer: one token per byte, ``<think>``/``</think>`` as special tokens."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet(), key=lambda c: ord(c) if ord(c) < 256 else 1000 + ord(c))
    tok = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(["<think>", "</think>", "<eos>"])
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<eos>")


def main() -> dict[str, object]:
    """Stream ``OUTPUT`` through vLLM's composed parser; returns the accumulated message."""
    print(
        len(plugin.REGISTERED),
        "formats registered, e.g.",
        [n for n in ToolParserManager.list_registered() if n.startswith("pegchat-q")],
    )
    tokenizer = byte_tokenizer()
    parser_cls = ParserManager.get_parser(tool_parser_name="pegchat-qwen3", reasoning_parser_name="pegchat-qwen3",
                                          enable_auto_tools=True, tokenizer=tokenizer)  # fmt: skip
    parser = parser_cls(tokenizer)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "weather?"}], tools=TOOLS)
    message: dict[str, object] = {"reasoning": "", "content": "", "arguments": ""}
    pieces = [OUTPUT[i : i + 6] for i in range(0, len(OUTPUT), 6)]
    for i, piece in enumerate(pieces):
        delta = parser.parse_delta(piece, tokenizer.encode(piece, add_special_tokens=False), request,
                                   prompt_token_ids=[], finished=i == len(pieces) - 1)  # fmt: skip
        if delta is None:
            continue
        print(delta.model_dump_json(exclude_none=True))
        message["reasoning"] = str(message["reasoning"]) + (delta.reasoning or "")
        message["content"] = str(message["content"]) + (delta.content or "")
        for call in delta.tool_calls:
            message["name"] = call.function.name or message.get("name")
            message["arguments"] = str(message["arguments"]) + (call.function.arguments or "")
    print(json.dumps(message))
    return message


if __name__ == "__main__":
    main()
