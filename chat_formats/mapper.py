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
from types import FunctionType
from typing import Any, Literal

from peg import AstNode

from ._values import converted_value, encode, json_string_text, python_value, typed_value
from .builder import (
    BLOCK,
    CONTENT,
    CONTENT_JSON_STRING,
    REASONING,
    TOOL,
    TOOL_ARG,
    TOOL_ARG_CLOSE,
    TOOL_ARG_CONVERTED_VALUE,
    TOOL_ARG_JSON_VALUE,
    TOOL_ARG_NAME,
    TOOL_ARG_OPEN,
    TOOL_ARG_PYTHON_VALUE,
    TOOL_ARG_STRING_VALUE,
    TOOL_ARGS,
    TOOL_CLOSE,
    TOOL_ID,
    TOOL_NAME,
    TOOL_OPEN,
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


_IMPLIED_NAME = TOOL_NAME + "="
_HEAD_TAGS = frozenset((TOOL_OPEN, TOOL_NAME, TOOL_ID))


# A walk records, in a list of slots, the first node of each tag some lookup of this module reads (most nodes are
# rules, tag '', or markers nobody looks up), then the first value of each name (a name node, or an implied
# ``tool-name=NAME`` / ``tool-arg-name=KEY``): a list per walk instead of dicts (a stream walks its open call
# on every feed).
_SLOT_TAGS = (
    TOOL_NAME,
    TOOL_ID,
    TOOL_ARGS,
    TOOL_CLOSE,
    TOOL_ARG,
    TOOL,
    TOOL_ARG_NAME,
    TOOL_ARG_OPEN,
    TOOL_ARG_CLOSE,
    TOOL_ARG_STRING_VALUE,
    TOOL_ARG_JSON_VALUE,
    TOOL_ARG_PYTHON_VALUE,
)
_S_ID, _S_ARGS, _S_CLOSE = 1, 2, 3
_S_ARG_NAME, _S_ARG_OPEN, _S_ARG_CLOSE, _S_STRING, _S_JSON, _S_PYTHON = 6, 7, 8, 9, 10, 11
_CALL_SLOTS = 6  # slots 0-5: the tags a call's own lookups read (a plain argument has none of them)
_V_NAME, _V_ARG_NAME = 12, 13
_NSLOTS = 14
_NO_CALL_SLOTS = [None] * _CALL_SLOTS
_NO_WARNINGS: list[str] = []  # shared by memos whose call made no warning (never changed in place)

# What _Below does with a node of a tag, as bits, with the slot of its first node (bits 8-15) and of its value
# (bits 16-23) (memoised per tag string: tags come from a small closed set).
_HEAD, _CALL, _ARG, _CONVERTED, _READ, _VALUE = 2, 4, 8, 16, 32, 64
_TAG_KINDS: dict[str, int] = {}
_NO_SCANS: dict[int, _Below] = {}  # the scans of a walk that makes none (never written)


def _tag_kind(tag: str) -> int:
    kind = _HEAD if tag in _HEAD_TAGS or tag.startswith(_IMPLIED_NAME) else 0
    kind |= _CALL if tag == TOOL else _ARG if tag == TOOL_ARG else 0
    kind |= _CONVERTED if tag.startswith(TOOL_ARG_CONVERTED_VALUE) else 0
    if tag in _SLOT_TAGS:
        kind |= _READ | _SLOT_TAGS.index(tag) << 8
    base = tag.partition("=")[0]
    if base == TOOL_NAME:
        kind |= _VALUE | _V_NAME << 16
    elif base == TOOL_ARG_NAME:
        kind |= _VALUE | _V_ARG_NAME << 16
    if len(_TAG_KINDS) < 4096:
        _TAG_KINDS[tag] = kind
    return kind


class _Below:
    """One walk of the nodes below a node — pre-order, not descending into nested tool calls — recording what
    every lookup of this module asks: the first node of each tag it reads and the first value of each name
    (``first``, by slot: see :meth:`value`), the ``tool-arg`` nodes in order (``args``), the first value tagged
    for a converter (``converted``), where the last head node (opener, name, id) ends (``head_end``, -1 if
    none) and whether a nested call was passed (``nested``). Cost O(nodes below).

    A walk with arguments split (a call's, see ``split``) is read only for the call's own slots (name, id,
    arguments, closer), its arguments' walks in ``scans`` for theirs: it takes only the former from them."""

    __slots__ = ("args", "converted", "first", "head_end", "nested", "scans")

    first: list[Any]
    args: list[AstNode]
    converted: AstNode | None
    head_end: int
    nested: bool
    scans: dict[int, _Below]

    def __init__(self, node: AstNode, closed: ArgCache | None = None, *, split: bool = False) -> None:
        """``closed``: arguments mapped before (see :data:`ArgCache`); the walk records one that is marked plain
        but does not descend into it (what it skips is nothing a call's lookups read). ``split``: walk each
        ``tool-arg`` node's inside as a walk of its own, kept in ``scans`` (by ``id`` of the node) and merged
        into this one — the same records as one walk (the inside is contiguous in pre-order), and the mapping
        of the arguments reuses it instead of walking the argument again."""
        self._walk(node, closed, split)

    def _walk(self, node: AstNode, closed: ArgCache | None, split: bool) -> None:
        first: list[Any] = [None] * _NSLOTS
        args: list[AstNode] = []
        converted: AstNode | None = None
        head_end = -1
        nested = False
        scans = {} if split else _NO_SCANS
        self.scans = scans
        todo: list[AstNode] = []
        if _COMPILED:
            _push_reversed(todo, node.children)
        else:
            todo.extend(node.children[::-1])
        kinds = _TAG_KINDS
        while todo:
            n = todo.pop()
            tag = n.tag
            kind = kinds.get(tag, -1)
            if kind < 0:
                kind = _tag_kind(tag)
            if not kind:  # most nodes (rules, markers): nothing to record
                if n.children:
                    if _COMPILED:
                        _push_reversed(todo, n.children)
                    else:
                        todo.extend(n.children[::-1])
                continue
            if kind & _READ:
                slot = (kind >> 8) & 255
                if first[slot] is None:
                    first[slot] = n
            if kind & _VALUE:
                slot = kind >> 16
                if first[slot] is None:
                    first[slot] = n if kind & _READ else tag.partition("=")[2]
            if kind & _HEAD and n.end > head_end:
                head_end = n.end
            if kind & _CALL:
                nested = True
                continue
            if kind & _ARG:
                args.append(n)
                if closed is not None:
                    hit = closed.get(id(n))
                    if hit is not None and hit[0] is n and hit[5]:
                        continue
                if split and n.children:
                    scan = scans[id(n)] = _scan(n)
                    # The records of the inside as if walked here: those a walk with arguments split is read for.
                    inner = scan.first
                    if first[_V_NAME] is None:
                        first[_V_NAME] = inner[_V_NAME]
                    if first[_S_ID] is None:
                        first[_S_ID] = inner[_S_ID]
                    if first[_S_ARGS] is None:
                        first[_S_ARGS] = inner[_S_ARGS]
                    if first[_S_CLOSE] is None:
                        first[_S_CLOSE] = inner[_S_CLOSE]
                    args.extend(scan.args)
                    if converted is None:
                        converted = scan.converted
                    if scan.head_end > head_end:
                        head_end = scan.head_end
                    nested = nested or scan.nested
                    continue
            elif converted is None and kind & _CONVERTED:
                converted = n
            if n.children:
                if _COMPILED:
                    _push_reversed(todo, n.children)
                else:
                    todo.extend(n.children[::-1])
        self.first = first
        self.args = args
        self.converted = converted
        self.head_end = head_end
        self.nested = nested

    def value(self, slot: int) -> str | None:
        """The value of a name (slot ``_V_NAME`` or ``_V_ARG_NAME``): the text of the first name node, or the
        value of the first implied ``tag=value``, whichever comes first; None if there is neither."""
        v = self.first[slot]
        return v if v is None or type(v) is str else v.text


def _push_reversed(todo: list[AstNode], items: tuple[AstNode, ...]) -> None:
    """``todo.extend(items[::-1])`` without making the reversed tuple: compiled, a C loop (interpreted, the slice
    is cheaper, and the walk uses it instead)."""
    i = len(items)
    while i:
        i -= 1
        todo.append(items[i])


def _scan(node: AstNode, closed: ArgCache | None = None, split: bool = False) -> _Below:
    """``_Below(node, closed, split=split)``, without the constructor's argument parsing once compiled."""
    scan = _Below.__new__(_Below)
    scan._walk(node, closed, split)
    return scan


ArgCache = dict[int, tuple[AstNode, "ToolSpec | None", str, str, tuple[str, ...], bool]]
"""Closed XML-style arguments already mapped, by ``id`` of their node: (node, tool spec, name, ``"name": value``
text, warnings, whether the inside holds no node a call's own lookups read — name, id, arguments, closer, head,
nested argument or call —, so a walk of the call may pass over it). A stream passes one so that each feed maps
only the open argument of the open call."""


StringCache = dict[int, tuple[int, str]]
"""XML-style string values by start offset: (end, the JSON-escaped text up to that end). A stream passes one so
that a growing value costs its new characters (the output only grows: the text of a span never changes)."""


class OpenCall:
    """What :func:`map_call` learnt of a stream's open call, so that the next feed re-reads only what can have
    changed: the call at ``start`` with index ``index`` is named ``name`` (from ``name_from``, the node or implied
    value the walk found first), has the tool spec ``spec`` and, once asked for, the generated id ``generated``
    (None until then); its id node ``id_from`` (None: none seen yet) reads ``call_id``. ``call``: the call last
    mapped (None: none yet), from the node ``node`` (when not final; None: none) with the warnings
    ``node_warnings``, whose other fields are copied in ``arguments``, ``call_end``, ``complete``, ``last_id``,
    ``span``, ``open_string`` (compared without reading the call's attributes). ``args``: its first
    closed XML-style arguments in order (the very nodes), whose ``"name": value`` texts joined by ``", "`` are
    ``text``, with their keys ``seen``, their warnings ``warnings`` and the end of the last ``end``.

    A feed whose walk finds the same name source and the same argument nodes first reuses all of it (nodes are
    never changed in place, so the same node maps to the same fields); anything else starts the memo again."""

    __slots__ = (
        "args",
        "arguments",
        "call",
        "call_end",
        "call_id",
        "complete",
        "end",
        "generated",
        "id_from",
        "index",
        "last_id",
        "name",
        "name_from",
        "node",
        "node_warnings",
        "open_string",
        "seen",
        "span",
        "spec",
        "start",
        "text",
        "warnings",
    )

    def __init__(self) -> None:
        self.start = -1
        self.index = -1
        self.name_from: AstNode | str | None = None
        self.name = ""
        self.spec: ToolSpec | None = None
        self.generated: str | None = None
        self.id_from: AstNode | None = None
        self.call_id = ""
        self.call: MappedCall | None = None
        self.node: AstNode | None = None
        self.node_warnings: list[str] = _NO_WARNINGS
        self.arguments = ""
        self.call_end = -1
        self.complete = False
        self.last_id = ""
        self.span = self.open_string = (-1, -1)
        self.args: list[AstNode] = []
        self.text = ""
        self.seen: set[str] = set()
        self.warnings: list[str] = []
        self.end = -1

    def reset(self, start: int, index: int, name_from: AstNode | str, name: str, spec: ToolSpec | None) -> None:
        """Start the memo again for the call at ``start`` (index ``index``) named ``name`` (read from
        ``name_from``)."""
        self.start = start
        self.index = index
        self.name_from = name_from
        self.name = name
        self.spec = spec
        self.generated = None
        self.id_from = None
        self.call = self.node = None
        self.args = []
        self.text = ""
        self.seen = set()
        self.warnings = []
        self.end = -1


def _escaped(node: AstNode, cache: StringCache | None) -> str:
    """The JSON-escaped text of ``node`` (no quotes), from ``cache`` plus what the node gained since."""
    if cache is None:
        return encode(node.text)[1:-1]
    hit = cache.get(node.start)
    if hit is not None and hit[0] <= node.end:
        text = hit[1] + encode(node.text_from(hit[0]))[1:-1] if hit[0] < node.end else hit[1]
    else:
        text = encode(node.text)[1:-1]
        if len(cache) > 64:
            cache.clear()
    cache[node.start] = (node.end, text)
    return text


def _xml_arguments(
    below: _Below,
    spec: ToolSpec | None,
    complete: bool,
    warnings: list[str],
    cache: ArgCache | None = None,
    strings: StringCache | None = None,
    first_scan: _Below | None = None,
    memo: OpenCall | None = None,
) -> tuple[str, int, tuple[int, int]]:
    """The JSON text of a call's XML-style arguments so far (see the module docstring for what streams), the
    offset up to which that text represents the call's text (-1: no argument yet) and the span of the open
    string value the text ends with (see :attr:`MappedCall.open_string`); ``cache``: see :data:`ArgCache`,
    ``strings``: :data:`StringCache`; ``first_scan``: the walk of the first argument, if done already;
    ``memo``: the call's :class:`OpenCall` (its closed arguments are taken from it when they are the first
    arguments still, and the arguments that closed since are added to it; not used for a complete call)."""
    parts: list[str] = []
    end = -1
    open_string = (-1, -1)
    args = below.args
    done = 0  # the arguments taken from the memo
    if memo is not None and not complete:
        known = memo.args
        done = len(known)
        if done and len(args) >= done and args[done - 1] is known[done - 1]:
            i = 0
            while i < done - 1 and args[i] is known[i]:
                i += 1
            if i < done - 1:
                done = 0
        else:
            done = 0
        if done:
            parts.append(memo.text)
            warnings.extend(memo.warnings)
            end = memo.end
        elif known:
            memo.args, memo.text, memo.seen, memo.warnings, memo.end = [], "", set(), [], -1
        seen = memo.seen
    else:
        memo = None
        seen = set()
    for j in range(done, len(args)):
        arg = args[j]
        before = len(warnings)
        hit = cache.get(id(arg)) if cache is not None else None
        if hit is not None and hit[0] is arg and hit[1] is spec:
            _, _, key, part, value_warnings, _plain = hit
            warnings.extend(value_warnings)
            closed = True
        else:
            scan = below.scans.get(id(arg))
            if scan is None:
                scan = first_scan if first_scan is not None and j == 0 else _scan(arg)
            name = scan.value(_V_ARG_NAME)
            if name is None:
                break
            key = name
            inner = scan.first
            closed = inner[_S_ARG_CLOSE] is not None and not arg.partial
            string_node = inner[_S_STRING]
            json_node = inner[_S_JSON]
            python_node = inner[_S_PYTHON]
            converted = scan.converted
            head = encode(key) + ": "
            if converted is not None:  # a value in a syntax of the format's own: held back until complete
                if not closed:
                    parts.append(head)
                    end = _head_end(arg, scan)
                    break
                body = converted_value(converted, f"{_where(spec)}.{key}", warnings)
            elif python_node is not None:
                if not closed:
                    parts.append(head)  # the name is complete; its value is held back until it is
                    end = _head_end(arg, scan)
                    break
                body = python_value(python_node.text, f"{_where(spec)}.{key}", warnings)
            elif string_node is not None:
                body = '"' + _escaped(string_node, strings) + ('"' if closed else "")
            elif json_node is not None and closed:
                prop = spec.property_schema(key) if spec else {}
                body = typed_value(json_node.text, prop, f"{_where(spec)}.{key}", warnings)
            else:
                break  # a JSON-typed value still being written: held back until its closer
            part = head + body
            if not closed:
                if memo is None:
                    seen.add(key)  # (a complete call's required check reads it)
                parts.append(part)
                if string_node is not None:
                    end = string_node.end
                    if not complete:
                        open_string = (string_node.start, end)
                else:
                    end = _head_end(arg, scan)
                break
            if cache is not None:
                if len(cache) > 1024:
                    cache.clear()
                plain = (
                    scan.head_end < 0 and not scan.nested and not scan.args and inner[:_CALL_SLOTS] == _NO_CALL_SLOTS
                )
                cache[id(arg)] = (arg, spec, key, part, tuple(warnings[before:]), plain)
        # A closed argument.
        if key in seen:
            warnings.append(f"{_where(spec)}: argument {key!r} given twice (the last one wins)")
        seen.add(key)
        parts.append(part)
        end = arg.end
        if memo is not None and j == len(memo.args):  # the memo's arguments are this one's predecessors
            memo.args.append(arg)
            memo.text = memo.text + ", " + part if memo.text else part
            memo.warnings.extend(warnings[before:])
            memo.end = end
    text = "{" + ", ".join(parts)
    if complete:
        text += "}"
        if spec is not None:
            missing = [r for r in spec.required if r not in seen]
            if missing:
                warnings.append(f"{_where(spec)}: required argument(s) missing: {', '.join(missing)}")
    return text, end, open_string


def _where(spec: ToolSpec | None) -> str:
    """What a warning about an argument of a call of ``spec`` names (read only when there is one to make)."""
    return spec.name if spec is not None else "tool call"


def _head_end(arg: AstNode, scan: _Below) -> int:
    """Where an argument's published head (its name) ends in the text: the end of its opener or name node."""
    opener = scan.first[_S_ARG_OPEN] or scan.first[_S_ARG_NAME]
    return opener.end if opener is not None else arg.start


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
    complete = not node.partial and (
        below.first[_S_CLOSE] is not None or (args_node is not None and not args_node.partial)
    )
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
        memo.node_warnings = warnings[before:] if len(warnings) > before else _NO_WARNINGS
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


def _named(arg: AstNode, cache: ArgCache | None, below: _Below) -> _Below | bool:
    """Whether the ``tool-arg`` node ``arg`` has a name node (a closed argument in ``cache`` has one): True, or
    the walk of ``arg`` when it has one (the caller reuses it), or False. ``below``: the call's walk, whose
    walk of ``arg`` is reused when it made one."""
    hit = cache.get(id(arg)) if cache is not None else None
    if hit is not None and hit[0] is arg:
        return True
    if not arg.children:
        return False  # (an argument just begun: nothing to walk)
    scan = below.scans.get(id(arg)) or _scan(arg)
    return scan if scan.first[_S_ARG_NAME] is not None else False


def _head_of_call_end(node: AstNode, below: _Below) -> int:
    """Where the published head of a call (opener, name, id) ends in the text (nested calls included)."""
    if not below.nested:
        return max(node.start, below.head_end)
    end = node.start
    for n in node.walk():
        if n.tag in _HEAD_TAGS or n.tag.startswith(_IMPLIED_NAME):
            end = max(end, n.end)
    return end


def _unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" else text


# Whether this module runs compiled (Cython makes map_call a C function, not a Python one): see _push_reversed.
_COMPILED = not isinstance(map_call, FunctionType)


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
