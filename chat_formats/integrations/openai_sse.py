"""OpenAI ``chat.completion.chunk`` server-sent events for a streamed output (stdlib only).

>>> for line in sse_events(fmt.stream(), model_text_pieces, model="my-model"):   # doctest: +SKIP
...     wfile.write(line.encode())

One event per piece that adds something (a piece's deltas merged into one chunk), the role first, the
``finish_reason`` chunk last, then ``data: [DONE]``. Every chunk of one response shares ``id`` and ``created``,
as the ``openai`` client's accumulator expects.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterable, Iterator
from typing import Any

from ..messages import ChatDelta
from ..stream import ChatStream
from ._common import merge_deltas

__all__ = ["chat_completion", "sse_events"]


def _chunk(delta: ChatDelta, *, stream: ChatStream, chunk_id: str, created: int, model: str) -> str:
    body = delta.to_chunk(chunk_id=chunk_id, created=created, model=model, reasoning_field=stream.reasoning_field)
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


def sse_events(
    stream: ChatStream,
    pieces: Iterable[str],
    *,
    model: str = "pegchat",
    chunk_id: str | None = None,
    created: int | None = None,
    length: bool = False,
) -> Iterator[str]:
    """``data: …`` lines for the text ``pieces`` of one output fed through ``stream`` (``length=True``: the
    budget cut the output, so ``finish_reason`` is ``length``). Never raises for odd model output."""
    cid = chunk_id or "chatcmpl-" + secrets.token_hex(12)
    when = int(time.time()) if created is None else created
    common: dict[str, Any] = {"stream": stream, "chunk_id": cid, "created": when, "model": model}
    yield _chunk(ChatDelta(role="assistant", content=""), **common)
    for piece in pieces:
        merged = merge_deltas(stream.feed(piece))
        if merged is not None:
            yield _chunk(merged, **common)
    tail = stream.finish(length=length)
    merged = merge_deltas(tail)
    if merged is not None:
        yield _chunk(merged, **common)
    yield _chunk(ChatDelta(finish_reason=tail[-1].finish_reason), **common)
    yield "data: [DONE]\n\n"


def chat_completion(stream: ChatStream, text: str, *, model: str = "pegchat", length: bool = False) -> dict[str, Any]:
    """A whole (non-streamed) ``chat.completion`` object for ``text``, parsed through ``stream``'s format."""
    stream.feed(text)
    reason = stream.finish(length=length)[-1].finish_reason
    message = stream.message
    return {
        "id": "chatcmpl-" + secrets.token_hex(12),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message.to_openai(reasoning_field=stream.reasoning_field),
                "finish_reason": reason,
                "logprobs": None,
            }
        ],
    }
