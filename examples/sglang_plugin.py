"""Use pegchat in SGLang: register the detectors and the grammar backend, then launch the server.

    python examples/sglang_plugin.py --model-path Qwen/Qwen3-8B \\
        --tool-call-parser pegchat-qwen3 --reasoning-parser pegchat-qwen3 --grammar-backend pegchat

Importing ``chat_formats.integrations.sglang_detectors`` and ``sglang_grammar`` adds ``pegchat-NAME`` to
SGLang's parser tables (and to the names its command line accepts) and ``pegchat`` to its grammar-backend
registry; then this script hands its arguments to ``sglang.launch_server``. With ``--check`` it only registers
and parses one output through SGLang's own ``FunctionCallParser``. Needs ``pip install --no-deps sglang`` plus
the light packages listed in the README.
"""

from __future__ import annotations

import runpy
import sys

import chat_formats.integrations.sglang_detectors as detectors
import chat_formats.integrations.sglang_grammar as grammar_backend

OUTPUT = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
    "city": {"type": "string"}}}}}]  # fmt: skip


def check() -> tuple[str, list[tuple[str, str]]]:
    """Parse ``OUTPUT`` through SGLang's FunctionCallParser with our detector; returns (text, calls)."""
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    print(len(detectors.REGISTERED), "detectors registered; grammar backend:", grammar_backend.REGISTERED)
    parser = FunctionCallParser([Tool.model_validate(t) for t in TOOLS], "pegchat-hermes")
    text, calls = parser.parse_non_stream(OUTPUT)
    result = [(str(c.name), c.parameters) for c in calls]
    print(repr(text), result)
    return text, result


if __name__ == "__main__":
    if "--check" in sys.argv or len(sys.argv) == 1:
        check()
    else:
        sys.argv[0] = "sglang.launch_server"
        runpy.run_module("sglang.launch_server", run_name="__main__")
