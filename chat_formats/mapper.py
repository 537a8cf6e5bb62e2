# cython: annotation_typing=False
"""AST → message: turn the tagged nodes of a (possibly partial) parse into reasoning, content and tool calls.

The mapping is a pure function of the parse result, so a streamed message and a one-shot parse of the same text
agree. It is built to be *monotone* while the text grows: every field of the mapped message for a prefix is a
prefix of the field for any longer text (given a monotone parse). Concretely:

* a tool call is published only once its name is complete (and, for formats that write ids after the name,
  once the id is known or can no longer come); generated ids are a hash of the call's index and name;
* JSON arguments are the raw JSON text so far (peg withholds dangling escapes);
* XML-style string values are JSON-escaped as they stream; the closing quote comes with the argument's closer;
  other values are held back until their closer and then typed by the tool's JSON Schema (``"5"`` → ``5``);
  a value that is not valid JSON for its schema is kept as a string, with a warning;
* the closing ``}`` of XML-style arguments comes with the call's closer;
* Python-literal values (pythonic calls) are held back until complete, then converted to JSON (the argument's
  name is published as soon as it is complete);
* content written as the inside of a JSON string is decoded as it streams (a trailing half surrogate pair
  waits for its second half).

:func:`frontier` says how far the mapped message accounts for the text — the rest is what a final parse returns
as content when the output does not fit the format.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from peg import AstNode

from ._arguments import (
    CALL_SLOTS,
    ArgCache,
    OpenCall,
    StringCache,
    _Below,
    _head_of_call_end,
    _named,
    _scan,
    _xml_arguments,
)
from ._values import json_string_text
from .builder import (
    BLOCK,
    CONTENT,
    CONTENT_JSON_STRING,
    REASONING,
    TOOL,
    ToolSpec,
)

__all__ = [
    "ArgCache",
    "CallCache",
    "IdPosition",
    "MappedCall",
    "MappedMessage",
    "OpenCall",
    "StringCache",
    "frontier",
    "generated_id",
    "json_string_text",
    "map_call",
    "map_nodes",
    "new_salt",
]

_V_NAME, _S_ID, _S_ARGS, _S_CLOSE = CALL_SLOTS  # (see _arguments: the walk's slots a call's mapping reads)

IdPosition = Literal["none", "before_args", "after_args"]
"""Where a format's model writes call ids: nowhere (ids are generated), before the arguments (publish the call
once the id or the arguments start), or after them (publish once the id is seen or the call closed)."""


@dataclass(slots=True)
class MappedCall:
    """A published tool call: ``name``, ``id`` (the model's, or generated), ``arguments`` so far, ``complete``;
    ``end``: the offset up to which the call's text is represented by these fields (the end of the call when
    complete; for an incomplete call, the end of its last published piece — what follows is not in the call);
    ``args_span``: ``(start, end)`` in the text when ``arguments`` is that text as written (JSON arguments), else
    ``(-1, -1)`` (a stream diffs a growing span without comparing the texts); ``open_string``: ``(start, end)``
    of an XML-style string value still being written when ``arguments`` ends with that text JSON-escaped (its
    closing quote not yet written), else ``(-1, -1)`` (a longer span from the same start adds its new
    characters, escaped)."""

    name: str
    id: str
    arguments: str
    complete: bool
    end: int = -1
    args_span: tuple[int, int] = (-1, -1)
    open_string: tuple[int, int] = (-1, -1)


@dataclass
class MappedMessage:
    """The mapped fields of one parse: reasoning and content texts, published calls, warnings."""

    reasoning: str = ""
    content: str = ""
    calls: list[MappedCall] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def new_salt() -> str:
    """A fresh random salt for :func:`generated_id` (16 hex digits): one per parse or stream."""
    return secrets.token_hex(8)


@functools.lru_cache(maxsize=4096)
def generated_id(salt: str, index: int, name: str) -> str:
    """A call id for a model that writes none: ``call_`` + 24 hex digits of a hash of (salt, index, name).

    Deterministic, so a stream's deltas and its final message agree; the salt (random per parse or stream, see
    :func:`new_salt`) keeps ids of different requests apart. Cost O(len(name)); memoised (a stream asks again
    for the id of its open call on every feed).
    """
    digest = hashlib.sha256(f"{salt}\x00{index}\x00{name}".encode()).hexdigest()
    return "call_" + digest[:24]


CallCache = dict[tuple[int, int, int], tuple["MappedCall", tuple[str, ...]]]
"""Complete calls already mapped by a stream, by (index, start, end): a complete call never changes, so a
stream maps each call once instead of once per feed (which made streaming quadratic in the number of calls)."""


def map_nodes(
    nodes: Sequence[AstNode],
    *,
    tools: Mapping[str, ToolSpec],
    salt: str,
    id_position: IdPosition = "none",
    final: bool,
    cache: CallCache | None = None,
) -> MappedMessage:
    """Map top-level parse nodes to a :class:`MappedMessage`. Cost O(number of nodes + text of value nodes),
    complete calls found in ``cache`` (same salt) costing O(1).

    ``final`` is whether the parse is final: then calls that never got their id are published with a generated
    one, and incomplete calls are reported in ``warnings``.
    """
    out = MappedMessage()
    reasoning: list[str] = []
    content: list[str] = []
    todo = list(reversed(nodes))
    while todo:
        node = todo.pop()
        if node.tag == REASONING:
            reasoning.append(node.text)
        elif node.tag == CONTENT:
            content.append(node.text)
        elif node.tag == CONTENT_JSON_STRING:
            content.append(json_string_text(node.text))
        elif node.tag == TOOL:
            key = (len(out.calls), node.start, node.end)
            hit = cache.get(key) if cache is not None and not node.partial else None
            if hit is not None:
                out.calls.append(hit[0])  # shared: mapped messages are read, never changed in place
                out.warnings.extend(hit[1])
                continue
            before = len(out.warnings)
            call = map_call(node, tools, salt, len(out.calls), id_position, final, out.warnings)
            if call is None:
                break  # an unpublished call: nothing after it can be published either (monotonicity)
            if cache is not None and call.complete:
                cache[key] = (call, tuple(out.warnings[before:]))
            out.calls.append(call)
        else:
            todo.extend(reversed(node.children))
    out.reasoning = "".join(reasoning)
    out.content = "".join(content)
    return out


def map_call(
    node: AstNode,
    tools: Mapping[str, ToolSpec],
    salt: str,
    index: int,
    id_position: IdPosition,
    final: bool,
    warnings: list[str],
    arg_cache: ArgCache | None = None,
    string_cache: StringCache | None = None,
    memo: OpenCall | None = None,
) -> MappedCall | None:
    """The call of the ``TOOL`` node ``node`` (the ``index``-th of the message), or None while it may not be
    published yet (name incomplete, or the id may still come); warnings appended. Cost O(nodes of the call),
    closed arguments found in ``arg_cache`` (see :data:`ArgCache`) costing O(1), string values in
    ``string_cache`` (:data:`StringCache`) their new characters; ``memo``: a stream's :class:`OpenCall`, which
    keeps the name, id and closed arguments of the call it maps on every feed (the same result, with less work)."""
    if memo is not None and node is memo.node and memo.index == index and not final:
        # The very node mapped last (peg handing back an unchanged node): its call, and its warnings again.
        warnings.extend(memo.node_warnings)
        return memo.call
    before = len(warnings)
    below = _scan(node, arg_cache, True)
    source = below.first[_V_NAME]
    if source is None:
        return None
    if (
        memo is not None
        and memo.start == node.start
        and memo.index == index
        and (source is memo.name_from or (type(source) is str and source == memo.name))
    ):
        name = memo.name
        spec = memo.spec
    else:
        name = source if type(source) is str else source.text
        spec = tools.get(name)
        if memo is not None:
            memo.reset(node.start, index, source, name, spec)
    id_node = below.first[_S_ID]
    args_node = below.first[_S_ARGS]
    # A JSON-arguments call without a closer tag is complete when its arguments are (``[TOOL_CALLS]n[ARGS]{}``).
    closer = below.first[_S_CLOSE]
    complete = not node.partial and (closer is not None or (args_node is not None and not args_node.partial))
    if memo is not None:
        memo.closer = closer is not None and not closer.partial
    args_started = args_node is not None or bool(below.args)
    if id_node is not None:
        if memo is None:
            call_id = _unquote(id_node.text)
        elif id_node is memo.id_from:
            call_id = memo.call_id
        else:
            call_id = memo.call_id = _unquote(id_node.text)
            memo.id_from = id_node
    elif id_position == "none" or final or complete or (id_position == "before_args" and args_started):
        if memo is None:
            call_id = generated_id(salt, index, name)
        elif memo.generated is None:
            call_id = memo.generated = generated_id(salt, index, name)
        else:
            call_id = memo.generated
    else:
        return None  # the id may still come: publishing now would send a generated id and then another
    end = -1
    span = open_string = (-1, -1)
    if args_node is not None:
        arguments = args_node.text
        end = args_node.end
        span = (args_node.start, end)
    elif not complete and not (below.args and (named := _named(below.args[0], arg_cache, below))):
        # Nothing yet (the first argument has no atomic opener: a ``<`` alone may still start the call's
        # closer): the first argument, or the closer, decides between "{…" and "{}".
        arguments = ""
    else:
        scanned = named if not complete and type(named) is _Below else None
        arguments, end, open_string = _xml_arguments(
            below, spec, complete, warnings, arg_cache, string_cache, scanned, memo
        )
    end = node.end if complete else max(end, _head_of_call_end(node, below))
    if final and not complete:
        warnings.append(f"tool call {index} ({name}) is incomplete: the output ended inside it")
    if memo is None:
        return MappedCall(name, call_id, arguments, complete, end, span, open_string)
    if not final:
        memo.node = node
        memo.node_warnings = tuple(warnings[before:]) if len(warnings) > before else ()
    last = memo.call
    if (
        last is not None
        and memo.arguments == arguments
        and memo.call_end == end
        and memo.complete == complete
        and memo.last_id == call_id
        and memo.span == span
        and memo.open_string == open_string
    ):
        return last  # the fields of the previous feed's call (read, never changed in place): the same object
    call = memo.call = MappedCall(name, call_id, arguments, complete, end, span, open_string)
    memo.arguments, memo.call_end, memo.complete, memo.last_id = arguments, end, complete, call_id
    memo.span, memo.open_string = span, open_string
    return call


def _unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" else text


def frontier(nodes: Iterable[AstNode], calls: Sequence[MappedCall]) -> int:
    """How far the message mapped from ``nodes`` accounts for the text: the end of the last complete node, of
    the last content/reasoning text, or of what the last of the published ``calls`` represents (its
    :attr:`MappedCall.end`: an incomplete call accounts only for its published pieces) (-1 if none).

    Text after it that a final parse could not place is returned as content. Cost O(number of nodes).
    """
    best = -1
    seen_calls = 0
    published = len(calls)
    todo = list(reversed(list(nodes)))
    while todo:
        node = todo.pop()
        if node.tag == TOOL:
            if seen_calls >= published:
                break
            call = calls[seen_calls]
            seen_calls += 1
            best = max(best, call.end if call.end >= 0 else node.end)
        elif not node.partial or node.tag in (CONTENT, CONTENT_JSON_STRING, REASONING):
            best = max(best, node.end)
            seen_calls += sum(1 for n in node.walk() if n.tag == TOOL)
        elif node.tag == BLOCK or node.children:
            todo.extend(reversed(node.children))
    return best
