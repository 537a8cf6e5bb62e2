# cython: annotation_typing=False
"""The walk below a tool call's node and the JSON text of its XML-style arguments, for :mod:`chat_formats.mapper`.

:class:`_Below` walks the nodes of a call once, recording what the mapping of the call reads (the first node of
each tag it looks up, the arguments in order, where the head ends); :func:`_xml_arguments` turns the recorded
``tool-arg`` nodes into the JSON text of the arguments so far (what streams and what is held back: see the
mapper's docstring). A stream keeps three memos across feeds: :data:`ArgCache` (closed arguments mapped once),
:data:`StringCache` (string values escaped once) and :class:`OpenCall` (what the mapping of its open call learnt:
name, id, closed arguments, the last call), so that a feed re-reads only what can have changed.
"""

from __future__ import annotations

from types import FunctionType
from typing import TYPE_CHECKING, Any

from peg import AstNode

from ._values import converted_value, encode, python_value, typed_value
from .builder import (
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

if TYPE_CHECKING:
    from .mapper import MappedCall

__all__ = ["CALL_SLOTS", "ArgCache", "OpenCall", "StringCache"]

_IMPLIED_NAME = TOOL_NAME + "="
_HEAD_TAGS = frozenset((TOOL_OPEN, TOOL_NAME, TOOL_ID))


# A walk records, in a list of slots, the first node of each tag some lookup of a call's mapping reads (most nodes are
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
        compiled = _COMPILED  # (a local: interpreted, a global is looked up at each node)
        if compiled:
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
                    if compiled:
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
                key = id(n)
                if closed is not None:
                    hit = closed.get(key)
                    if hit is not None and hit[0] is n and hit[5]:
                        continue
                if split and n.children:
                    scan = scans[key] = _scan(n)
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
                if compiled:
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
    ``span``, ``open_string`` (compared without reading the call's attributes), and whether a closer of the call
    (its ``tool-close`` node) was closed then (``closer``), and the name of the argument whose string value was
    open then (``open_key``, read when ``open_string`` is a span). ``args``: its first
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
        "closer",
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
        "open_key",
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
        self.node_warnings: tuple[str, ...] = ()
        self.arguments = ""
        self.call_end = -1
        self.complete = False
        self.closer = False
        self.last_id = ""
        self.span = self.open_string = (-1, -1)
        self.open_key = ""
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
        arg_id = id(arg)
        hit = cache.get(arg_id) if cache is not None else None
        if hit is not None and hit[0] is arg and hit[1] is spec:
            _, _, key, part, value_warnings, _plain = hit
            warnings.extend(value_warnings)
            closed = True
        else:
            scan = below.scans.get(arg_id)
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
                        if memo is not None:
                            memo.open_key = key
                else:
                    end = _head_end(arg, scan)
                break
            if cache is not None:
                if len(cache) > 1024:
                    cache.clear()
                plain = (
                    scan.head_end < 0 and not scan.nested and not scan.args and inner[:_CALL_SLOTS] == _NO_CALL_SLOTS
                )
                cache[arg_id] = (arg, spec, key, part, tuple(warnings[before:]), plain)
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


def _named(arg: AstNode, cache: ArgCache | None, below: _Below) -> _Below | bool:
    """Whether the ``tool-arg`` node ``arg`` has a name node (a closed argument in ``cache`` has one): True, or
    the walk of ``arg`` when it has one (the caller reuses it), or False. ``below``: the call's walk, whose
    walk of ``arg`` is reused when it made one."""
    arg_id = id(arg)
    hit = cache.get(arg_id) if cache is not None else None
    if hit is not None and hit[0] is arg:
        return True
    if not arg.children:
        return False  # (an argument just begun: nothing to walk)
    scan = below.scans.get(arg_id) or _scan(arg)
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


CALL_SLOTS = (_V_NAME, _S_ID, _S_ARGS, _S_CLOSE)
"""The slots of :attr:`_Below.first` the mapping of a call reads: its name's value, its id, JSON arguments and
closer nodes (for :mod:`chat_formats.mapper`, which reads them by these indices)."""

# Whether this module runs compiled (Cython makes _scan a C function, not a Python one): see _push_reversed.
_COMPILED = not isinstance(_scan, FunctionType)
