"""An OpenAI-compatible ``/v1/chat/completions`` endpoint (stdlib ``http.server``) that streams pegchat deltas.

There is no model here: every request "generates" a canned Qwen3 output (reasoning, then a call to the first
tool in the request), handed to the parser a few characters at a time like a detokeniser would. Swap
``generate`` for your engine. The ``openai`` client reads the stream back unchanged::

    python examples/openai_server.py --port 8000 &
    python -c "import openai; c = openai.OpenAI(base_url='http://127.0.0.1:8000/v1', api_key='x'); ..."
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from chat_formats import get_format
from chat_formats.integrations.openai_sse import chat_completion, sse_events
from gbnf_backend import PegchatError

FORMAT = "qwen3"


def generate(request: dict[str, Any]) -> Iterator[str]:
    """The canned model: reasoning, then a call of the first tool (or an answer without tools), in pieces."""
    tools = request.get("tools") or []
    if tools:
        name = tools[0]["function"]["name"]
        call = json.dumps({"name": name, "arguments": {"city": "Paris"}})
        text = f"<think>I will call {name}.</think>\n\n<tool_call>\n{call}\n</tool_call>"
    else:
        text = "<think>Simple question.</think>\n\nParis is the capital of France."
    for i in range(0, len(text), 5):
        yield text[i : i + 5]


class Handler(BaseHTTPRequestHandler):
    """``POST /v1/chat/completions`` (streamed or not); anything else is a 404."""

    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        try:
            fmt = get_format(
                FORMAT,
                tools=request.get("tools") or [],
                tool_choice=request.get("tool_choice") or "auto",
                parallel_tool_calls=request.get("parallel_tool_calls", True),
            )
        except (PegchatError, ValueError) as e:  # a bad tools list or tool_choice is the client's error
            self._json(400, {"error": {"message": str(e), "type": "invalid_request_error"}})
            return
        model = request.get("model", "pegchat-demo")
        stream = fmt.stream(reasoning_field="reasoning_content")
        if not request.get("stream"):
            self._json(200, chat_completion(stream, "".join(generate(request)), model=model))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for event in sse_events(stream, generate(request), model=model):
            self.wfile.write(event.encode())
            self.wfile.flush()

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass


def serve(port: int = 0) -> ThreadingHTTPServer:
    """Start the server on ``127.0.0.1:port`` (0: any free port) in a daemon thread; returns it."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    server = serve(parser.parse_args().port)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/v1")
    threading.Event().wait()
