# cython: annotation_typing=False
"""Parse results and the AST: nodes exist only for :func:`peg.tag` and :func:`peg.rule` matches."""

from __future__ import annotations

import enum
from collections.abc import Iterator

from . import _compiled
from .errors import ParseError

__all__ = ["AstNode", "ParseResult", "Source", "Status", "make_node", "make_result"]


class Status(enum.Enum):
    """How a parse ended."""

    SUCCESS = "success"
    FAIL = "fail"
    NEED_MORE_INPUT = "need_more_input"


class Source:
    """The text of a (growing) parse, shared by the parse's nodes: a stream appends to ``text`` in place (its only
    reference is here, so CPython grows the string without copying it; see ``peg.Stream.feed``) and every node
    reads its slice from it. The text only ever grows, so a node's ``input[start:end]`` never changes."""

    __slots__ = ("text",)

    def __init__(self, text: str = "") -> None:
        self.text = text


class AstNode:
    """A tagged or named region of the input.

    ``tag`` is the tag ('' for rule nodes), ``rule`` the rule name ('' for tag nodes), ``start``/``end`` code
    point offsets, ``text`` the matched text, ``partial`` whether the match was cut off by the end of a partial
    input (its text may still grow), ``children`` the nodes inside, in order.
    """

    __slots__ = ("_source", "children", "end", "partial", "rule", "start", "tag")

    def __init__(
        self,
        tag: str,
        rule: str,
        start: int,
        end: int,
        partial: bool,
        children: tuple[AstNode, ...],
        source: str | Source,
    ) -> None:
        # One assignment per slot: cheaper than tuple unpacking on this hot path (a few nodes per stream feed).
        self.tag = tag
        self.rule = rule
        self.start = start
        self.end = end
        self.partial = partial
        self.children = children
        self._source = source

    @property
    def text(self) -> str:
        """``input[start:end]``; cost O(end - start) (sliced on each access)."""
        source = self._source
        return (source if type(source) is str else source.text)[self.start : self.end]  # type: ignore[union-attr]

    def text_from(self, offset: int) -> str:
        """``input[offset:end]``: the node's text from the input offset ``offset`` on (a growing node's new part);
        cost O(end - offset)."""
        source = self._source
        return (source if type(source) is str else source.text)[offset : self.end]  # type: ignore[union-attr]

    def walk(self) -> Iterator[AstNode]:
        """This node and all nodes below it, pre-order (iterative: safe on very deep trees)."""
        todo = [self]
        while todo:
            node = todo.pop()
            yield node
            todo.extend(reversed(node.children))

    def _key(self) -> tuple[object, ...]:
        return (self.tag, self.rule, self.start, self.end, self.partial, self.text, self.children)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AstNode) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.tag, self.rule, self.start, self.end, self.partial))

    def __repr__(self) -> str:
        kind = f"tag={self.tag!r}" if self.tag else f"rule={self.rule!r}"
        partial = ", partial" if self.partial else ""
        kids = f", {len(self.children)} children" if self.children else ""
        return f"AstNode({kind}, {self.start}:{self.end}, {self.text[:40]!r}{partial}{kids})"

    def dump(self, indent: int = 0) -> str:
        """An indented multi-line picture of this subtree (for debugging)."""
        lines = []
        stack: list[tuple[AstNode, int]] = [(self, indent)]
        while stack:
            node, depth = stack.pop()
            label = f"tag {node.tag}" if node.tag else f"rule {node.rule}"
            partial = " (partial)" if node.partial else ""
            lines.append(f"{'  ' * depth}{label} [{node.start}:{node.end}]{partial} {node.text[:60]!r}")
            stack.extend((c, depth + 1) for c in reversed(node.children))
        return "\n".join(lines)


_UNTRACK = _compiled.COMPILED  # (a C constant once compiled: the pure path pays one global look-up per node)


def make_node(
    tag: str, rule: str, start: int, end: int, partial: bool, children: tuple[AstNode, ...], source: str | Source
) -> AstNode:
    """``AstNode(tag, rule, start, end, partial, children, source)``, made the way the parser makes its nodes (a
    few per stream feed): compiled, this skips the constructor's argument parsing; as Python it costs the same.

    Compiled, neither the node nor its tuple of children is tracked by the cyclic garbage collector (see
    peg/_compiled.py): no reference cycle can pass through them, because a node holds only strings, integers, the
    source (which holds only its text) and its children, which were all made before it (a node is made once its
    children are known and never changed)."""
    node = AstNode.__new__(AstNode)
    node.tag = tag
    node.rule = rule
    node.start = start
    node.end = end
    node.partial = partial
    node.children = children
    node._source = source
    if _UNTRACK:
        _compiled.untrack(node)
        _compiled.untrack(children)  # (nodes only: no cycle through it either)
    return node


class ParseResult:
    """The outcome of a parse.

    ``status``; ``end`` (where the match stopped; on failure the furthest offset reached); ``nodes`` the
    top-level AST nodes — on failure, those of the longest successful prefix: the parse path that reached the
    furthest failure, closed there as if the input ended (nodes open on that path are ``partial``), which is
    what ``parse(text[:end], partial=True)`` gives along that path, without parsing again; ``error`` a
    :class:`~peg.errors.ParseError` (furthest position, expected set,
    caret snippet) when the status is FAIL, else ``None``.
    """

    __slots__ = ("end", "error", "nodes", "status")

    def __init__(self, status: Status, end: int, nodes: tuple[AstNode, ...], error: ParseError | None) -> None:
        self.status = status
        self.end = end
        self.nodes = nodes
        self.error = error

    @property
    def success(self) -> bool:
        return self.status is Status.SUCCESS

    @property
    def failed(self) -> bool:
        return self.status is Status.FAIL

    def walk(self) -> Iterator[AstNode]:
        """Every node, pre-order, top-level nodes in order."""
        for node in self.nodes:
            yield from node.walk()

    def find(self, tag: str) -> list[AstNode]:
        """All nodes with this tag, pre-order."""
        return [n for n in self.walk() if n.tag == tag]

    def find_rule(self, rule: str) -> list[AstNode]:
        """All nodes of this rule, pre-order."""
        return [n for n in self.walk() if n.rule == rule]

    def tag_texts(self) -> dict[str, str]:
        """For each tag, the concatenated text of its nodes in pre-order (handy for tests and simple mappers)."""
        out: dict[str, str] = {}
        for n in self.walk():
            if n.tag:
                out[n.tag] = out.get(n.tag, "") + n.text
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParseResult):
            return NotImplemented
        return (self.status, self.end, self.nodes) == (other.status, other.end, other.nodes)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ParseResult({self.status.name}, end={self.end}, {len(self.nodes)} nodes)"


def make_result(status: Status, end: int, nodes: tuple[AstNode, ...]) -> ParseResult:
    """``ParseResult(status, end, nodes, None)``, made the way a stream makes its partial results (one per feed):
    compiled, this skips the constructor's argument parsing; as Python it costs the same."""
    result = ParseResult.__new__(ParseResult)
    result.status = status
    result.end = end
    result.nodes = nodes
    result.error = None
    return result
