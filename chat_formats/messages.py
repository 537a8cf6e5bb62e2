"""Messages and streaming deltas in the OpenAI Chat Completions shape (pydantic models).

:class:`ChatMessage` is the parsed assistant message (``role``, ``content``, ``reasoning_content``,
``tool_calls``) plus ``warnings`` — what did not fit the format and where it went (never silently dropped).
:class:`ChatDelta` is one ``choices[0]`` entry of a ``chat.completion.chunk``; :meth:`ChatDelta.to_chunk` wraps it
in the full chunk object, with the reasoning field under a configurable name (``reasoning_content`` as DeepSeek
and llama.cpp send it, or ``reasoning`` as vLLM does).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChatDelta",
    "ChatMessage",
    "DeltaFunction",
    "DeltaToolCall",
    "FunctionCall",
    "ToolCall",
]


class FunctionCall(BaseModel):
    """The function of a tool call: ``name`` and ``arguments`` (JSON text of an object)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: str

    def parsed_arguments(self) -> Any:
        """``json.loads(arguments)``; raises ``json.JSONDecodeError`` if the text is not JSON (e.g. truncated)."""
        return json.loads(self.arguments)


class ToolCall(BaseModel):
    """One tool call of a message: ``{id, type: "function", function: {name, arguments}}``."""

    model_config = ConfigDict(extra="forbid")

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class ChatMessage(BaseModel):
    """A parsed assistant message.

    ``content``/``reasoning_content`` are ``None`` when the model wrote none. ``warnings`` lists what did not
    fit the format (unparsed text returned as content, unknown tool names, truncated arguments); it is not part
    of the OpenAI shape — :meth:`to_openai` leaves it out.
    """

    model_config = ConfigDict(extra="forbid")

    role: Literal["assistant"] = "assistant"
    content: str | None = None
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    def to_openai(self, *, reasoning_field: str = "reasoning_content") -> dict[str, Any]:
        """The message as an OpenAI ``choices[0].message`` dict (no ``warnings``; no empty ``tool_calls``)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.reasoning_content is not None:
            out[reasoning_field] = self.reasoning_content
        if self.tool_calls:
            out["tool_calls"] = [call.model_dump() for call in self.tool_calls]
        return out


class DeltaFunction(BaseModel):
    """The function part of a tool-call fragment: ``name`` only in a call's first fragment."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    arguments: str | None = None


class DeltaToolCall(BaseModel):
    """A tool-call fragment: ``index`` always; ``id``, ``type`` and the complete name only in the first one."""

    model_config = ConfigDict(extra="forbid")

    index: int
    id: str | None = None
    type: Literal["function"] | None = None
    function: DeltaFunction = Field(default_factory=DeltaFunction)


class ChatDelta(BaseModel):
    """One streamed step: what to append to the message (``choices[0].delta``) and maybe ``finish_reason``."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["assistant"] | None = None
    content: str | None = None
    reasoning_content: str | None = None
    tool_calls: list[DeltaToolCall] = Field(default_factory=list)
    finish_reason: Literal["stop", "length", "tool_calls"] | None = None

    def delta_dict(self, *, reasoning_field: str = "reasoning_content") -> dict[str, Any]:
        """The ``delta`` object of a chunk: only the fields that are set."""
        out: dict[str, Any] = {}
        if self.role is not None:
            out["role"] = self.role
        if self.reasoning_content is not None:
            out[reasoning_field] = self.reasoning_content
        if self.content is not None:
            out["content"] = self.content
        if self.tool_calls:
            out["tool_calls"] = [call.model_dump(exclude_none=True) for call in self.tool_calls]
        return out

    def to_chunk(
        self,
        *,
        chunk_id: str = "chatcmpl-pegchat",
        created: int = 0,
        model: str = "pegchat",
        reasoning_field: str = "reasoning_content",
    ) -> dict[str, Any]:
        """The whole ``chat.completion.chunk`` object (one choice, index 0) for this delta."""
        return {
            "id": chunk_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "delta": self.delta_dict(reasoning_field=reasoning_field),
                    "finish_reason": self.finish_reason,
                    "logprobs": None,
                }
            ],
        }
