# cython: annotation_typing=False
"""The stream's deltas, built without validation: what :class:`~chat_formats.stream.ChatStream` sends per feed.

The values are valid by construction (strings and an index), and pydantic's validating ``__init__`` would cost
about as much as the rest of a feed. The objects are the ones ``model_construct`` makes — equal to validated
ones, with the same ``model_fields_set`` — made by :func:`chat_formats._unvalidated.model` (compiled, a C
function: see ``_deltas.pxd``). A module of its own so that it can be compiled (the models in
:mod:`chat_formats.messages` are not).
"""

from __future__ import annotations

from typing import Any, Literal

from . import _unvalidated
from .messages import ChatDelta, DeltaFunction, DeltaToolCall

__all__ = ["arguments_delta", "call_start_delta", "text_delta"]


# The values of each kind of delta, copied per delta (a dict copy costs less than a dict display); the mutable
# values (lists) are put in per copy, so that no two deltas share one.
_DELTA_VALUES: dict[str, Any] = {
    "role": None,
    "content": None,
    "reasoning_content": None,
    "tool_calls": None,
    "finish_reason": None,
}
_CALL_VALUES: dict[str, Any] = {"index": None, "id": None, "type": None, "function": None}


def text_delta(field: Literal["content", "reasoning_content"], text: str) -> ChatDelta:
    """``ChatDelta(**{field: text})`` without validation. Cost ~0.4 µs compiled."""
    values = _DELTA_VALUES.copy()
    values["tool_calls"] = []
    values[field] = text
    return _unvalidated.model(ChatDelta, values, {field})


def arguments_delta(index: int, arguments: str) -> ChatDelta:
    """``ChatDelta(tool_calls=[DeltaToolCall(index=index, function=DeltaFunction(arguments=arguments))])``
    without validation: a later fragment of call ``index``. Cost ~0.9 µs compiled (three models)."""
    fn = _unvalidated.model(DeltaFunction, {"name": None, "arguments": arguments}, {"arguments"})
    values = _CALL_VALUES.copy()
    values["index"] = index
    values["function"] = fn
    call = _unvalidated.model(DeltaToolCall, values, {"index", "function"})
    values = _DELTA_VALUES.copy()
    values["tool_calls"] = [call]
    return _unvalidated.model(ChatDelta, values, {"tool_calls"})


def call_start_delta(index: int, call_id: str, name: str, arguments: str) -> ChatDelta:
    """``ChatDelta(tool_calls=[DeltaToolCall(index=index, id=call_id, type="function", function=DeltaFunction(
    name=name, arguments=arguments))])`` without validation: the first fragment of call ``index``. Cost ~0.9 µs
    compiled."""
    fn = _unvalidated.model(DeltaFunction, {"name": name, "arguments": arguments}, {"name", "arguments"})
    call = _unvalidated.model(
        DeltaToolCall,
        {"index": index, "id": call_id, "type": "function", "function": fn},
        {"index", "id", "type", "function"},
    )
    values = _DELTA_VALUES.copy()
    values["tool_calls"] = [call]
    return _unvalidated.model(ChatDelta, values, {"tool_calls"})
