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
    "arguments_delta",
    "call_start_delta",
    "text_delta",
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


# Deltas built without validation, for the stream's hot path: the values are valid by construction (strings and
# an index), and pydantic's validating ``__init__`` would cost about as much as the rest of a feed. The objects
# are the ones ``model_construct`` makes — equal to validated ones, with the same ``model_fields_set``. The four
# instance slots of a pydantic model are set through their descriptors (no attribute lookup per object).
_new = object.__new__
_set_dict = object.__dict__["__setattr__"]
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _built(cls: type[Any], values: dict[str, Any], fields_set: set[str]) -> Any:
    obj = _new(cls)
    _set_dict(obj, "__dict__", values)
    _set_fields(obj, fields_set)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj


def text_delta(field: Literal["content", "reasoning_content"], text: str) -> ChatDelta:
    """``ChatDelta(**{field: text})`` without validation. Cost ~1 µs."""
    values: dict[str, Any] = {
        "role": None,
        "content": None,
        "reasoning_content": None,
        "tool_calls": [],
        "finish_reason": None,
    }
    values[field] = text
    delta: ChatDelta = _built(ChatDelta, values, {field})
    return delta


def arguments_delta(index: int, arguments: str) -> ChatDelta:
    """``ChatDelta(tool_calls=[DeltaToolCall(index=index, function=DeltaFunction(arguments=arguments))])``
    without validation: a later fragment of call ``index``. Cost ~2 µs."""
    fn = _built(DeltaFunction, {"name": None, "arguments": arguments}, {"arguments"})
    call = _built(DeltaToolCall, {"index": index, "id": None, "type": None, "function": fn}, {"index", "function"})
    values = {"role": None, "content": None, "reasoning_content": None, "tool_calls": [call], "finish_reason": None}
    delta: ChatDelta = _built(ChatDelta, values, {"tool_calls"})
    return delta


def call_start_delta(index: int, call_id: str, name: str, arguments: str) -> ChatDelta:
    """``ChatDelta(tool_calls=[DeltaToolCall(index=index, id=call_id, type="function", function=DeltaFunction(
    name=name, arguments=arguments))])`` without validation: the first fragment of call ``index``. Cost ~2 µs."""
    fn = _built(DeltaFunction, {"name": name, "arguments": arguments}, {"name", "arguments"})
    call = _built(
        DeltaToolCall,
        {"index": index, "id": call_id, "type": "function", "function": fn},
        {"index", "id", "type", "function"},
    )
    values = {"role": None, "content": None, "reasoning_content": None, "tool_calls": [call], "finish_reason": None}
    delta: ChatDelta = _built(ChatDelta, values, {"tool_calls"})
    return delta
