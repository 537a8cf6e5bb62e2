"""Parse a Qwen3 output with reasoning and a tool call, then stream the same output in small pieces.

Run: ``python examples/parse_and_stream.py`` — prints the parsed message and the OpenAI chunk deltas.
"""

from __future__ import annotations

import json

from chat_formats import get_format

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
OUTPUT = (
    "<think>The user asks about Paris; I should call the tool.</think>\n\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)


def main() -> dict[str, object]:
    """Parse and stream ``OUTPUT``; returns the parsed message (OpenAI shape) for the caller to check."""
    fmt = get_format("qwen3", tools=TOOLS)
    message = fmt.parse(OUTPUT)
    print("parsed:", json.dumps(message.to_openai(), indent=2))

    stream = fmt.stream()
    for i in range(0, len(OUTPUT), 9):  # 9 characters at a time, as a detokeniser might hand them over
        for delta in stream.feed(OUTPUT[i : i + 9]):
            print("delta:", json.dumps(delta.delta_dict()))
    for delta in stream.finish():
        print("final:", json.dumps(delta.delta_dict()), "finish_reason:", delta.finish_reason)
    assert stream.message.tool_calls[0].function.arguments == message.tool_calls[0].function.arguments
    return message.to_openai()


if __name__ == "__main__":
    main()
