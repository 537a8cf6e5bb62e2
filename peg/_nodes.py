"""The combinator graph: immutable node records, operator sugar, and printing as the DSL that built them.

The graph is an intermediate form. Two back ends walk it: the packrat partial parser (``_packrat.py``) and the
GBNF emitter (``gbnf.py``). Nodes never change after construction; cycles exist only through :class:`Ref`
(resolved by name when a parser is built), so plain traversal of child slots always terminates.
"""

from __future__ import annotations

import json as _json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias, cast, get_args

from ._charclass import CharClass

if TYPE_CHECKING:
    from ._runs import QuietTags
    from .ast import ParseResult
    from .parser import Stream

__all__ = [
    "AnyChar",
    "Atomic",
    "Chars",
    "Choice",
    "End",
    "Eps",
    "Json",
    "Literal",
    "Negate",
    "Node",
    "Parser",
    "ParserLike",
    "Peek",
    "Ref",
    "Repeat",
    "Rule",
    "Schema",
    "Sequence",
    "Space",
    "Start",
    "Tag",
    "Until",
    "as_node",
    "promote",
]


class Parser:
    """Base of every combinator node. Build them with the functions in :mod:`peg`, not directly.

    ``a + b`` is a sequence, ``a | b`` an ordered choice, ``a << b`` a sequence with optional whitespace
    between; a plain ``str`` operand becomes a literal. ``repr(p)`` prints the DSL expression that builds ``p``.
    """

    __slots__ = ("_program",)
    kind: ClassVar[str] = ""

    def __init__(self) -> None:
        self._program: Any = None  # the compiled form, built on first use (see _compile.py)

    def children(self) -> tuple[Parser, ...]:
        """The direct child nodes (references are not followed)."""
        return ()

    def args_repr(self) -> list[str]:
        """The arguments printed inside ``kind(...)``."""
        return [repr(c) for c in self.children()]

    def __repr__(self) -> str:
        return f"{self.kind}({', '.join(self.args_repr())})"

    # --- operator sugar -------------------------------------------------------------------------------------
    def __add__(self, other: ParserLike) -> Parser:
        return Sequence.of(self, promote(other))

    def __radd__(self, other: ParserLike) -> Parser:
        return Sequence.of(promote(other), self)

    def __or__(self, other: ParserLike) -> Parser:
        return Choice.of(self, promote(other))

    def __ror__(self, other: ParserLike) -> Parser:
        return Choice.of(promote(other), self)

    def __lshift__(self, other: ParserLike) -> Parser:
        return Sequence.of(self, Space(), promote(other))

    def __rlshift__(self, other: ParserLike) -> Parser:
        return Sequence.of(promote(other), Space(), self)

    # --- back ends ----------------------------------------------------------------------------------------
    def parse(self, text: str | bytes, *, partial: bool = False, trace: bool = False) -> ParseResult:
        """Parse ``text`` from offset 0 and return a :class:`~peg.ParseResult`.

        ``partial=True`` means more text may follow (streaming): running out of input gives
        ``NEED_MORE_INPUT`` instead of failing. ``bytes`` are decoded as UTF-8; a truncated character at the
        end is treated as "more input needed" and invalid bytes fail. ``trace=True`` prints an indented
        combinator/position log to stderr. Offsets in the result are code-point offsets. Cost: linear in
        ``len(text)`` (packrat memoisation); the parser graph is compiled once, on first use.
        """
        from .parser import parse_text

        return parse_text(self, text, partial=partial, trace=trace)

    def stream(self, *, trace: bool = False, quiet: QuietTags | None = None) -> Stream:
        """Return an incremental parser: ``.feed(more) -> ParseResult`` and ``.finish() -> ParseResult``
        (``quiet``: see :class:`peg.Stream`)."""
        from .parser import Stream

        return Stream(self, trace=trace, quiet=quiet)

    def walk(self) -> Iterator[Parser]:
        """Every node reachable through child slots, each once, pre-order (references not followed)."""
        seen: set[int] = set()
        todo: list[Parser] = [self]
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            yield node
            todo.extend(reversed(node.children()))


ParserLike = Parser | str


def promote(p: ParserLike) -> Parser:
    """A :class:`Parser` as is; a ``str`` as :class:`Literal`; anything else is a ``TypeError``."""
    if isinstance(p, Parser):
        return p
    if isinstance(p, str):
        return Literal(p)
    raise TypeError(f"expected a Parser or str, got {type(p).__name__}")


class _Leaf(Parser):
    __slots__ = ()


class Eps(_Leaf):
    __slots__ = ()
    kind = "eps"


class Start(_Leaf):
    __slots__ = ()
    kind = "start"


class End(_Leaf):
    __slots__ = ()
    kind = "end"


class AnyChar(_Leaf):
    __slots__ = ()
    kind = "any_char"


class Space(_Leaf):
    """A run of whitespace: at most ``max`` code points (``-1``: unbounded)."""

    __slots__ = ("max",)
    kind = "space"

    def __init__(self, max: int = -1) -> None:
        super().__init__()
        self.max = max

    def args_repr(self) -> list[str]:
        return [] if self.max == -1 else [f"max={self.max}"]


class Literal(_Leaf):
    __slots__ = ("text",)
    kind = "literal"

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def args_repr(self) -> list[str]:
        return [repr(self.text)]


class Chars(_Leaf):
    __slots__ = ("cls", "max", "min")
    kind = "chars"

    def __init__(self, cls: CharClass, min: int, max: int) -> None:
        super().__init__()
        self.cls, self.min, self.max = cls, min, max

    def args_repr(self) -> list[str]:
        out = [repr(self.cls.gbnf())]
        if (self.min, self.max) != (1, -1):
            out += [str(self.min), str(self.max)]
        return out


class Until(_Leaf):
    """Text up to (not including) the first of ``delimiters``; all remaining text when there are none."""

    __slots__ = ("delimiters", "strict")
    kind = "until"

    def __init__(self, delimiters: tuple[str, ...], strict: bool) -> None:
        super().__init__()
        self.delimiters, self.strict = delimiters, strict

    def __repr__(self) -> str:
        strict = ", strict=True" if self.strict else ""
        if not self.delimiters:
            return "rest()" if not self.strict else "until_one_of([], strict=True)"
        if len(self.delimiters) == 1:
            return f"until({self.delimiters[0]!r}{strict})"
        return f"until_one_of({list(self.delimiters)!r}{strict})"


JSON_KINDS = ("value", "object", "array", "string", "number", "bool", "null", "string_content")


class Json(_Leaf):
    """A JSON value of one ``kind`` (see ``JSON_KINDS``); parsed by a native resumable scanner."""

    __slots__ = ("json_kind",)
    kind = "json"

    def __init__(self, json_kind: str) -> None:
        super().__init__()
        self.json_kind = json_kind

    def __repr__(self) -> str:
        return "json()" if self.json_kind == "value" else f"json_{self.json_kind}()"


class _Flat(Parser):
    """A node with a tuple of ``items`` where directly nested nodes of the same class are spliced in."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[Parser, ...]) -> None:
        super().__init__()
        self.items = items

    @classmethod
    def of(cls, *items: Parser) -> Parser:
        """A node of ``items``; directly nested nodes of this class are spliced in (``a + b + c`` has 3 items)."""
        flat: list[Parser] = []
        for p in items:
            flat.extend(p.items if isinstance(p, cls) else (p,))
        return cls(tuple(flat))

    def children(self) -> tuple[Parser, ...]:
        return self.items


class Sequence(_Flat):
    __slots__ = ()
    kind = "sequence"


class Choice(_Flat):
    __slots__ = ()
    kind = "choice"


class Repeat(Parser):
    __slots__ = ("item", "max", "min")
    kind = "repeat"

    def __init__(self, item: Parser, min: int, max: int) -> None:
        super().__init__()
        self.item, self.min, self.max = item, min, max

    def children(self) -> tuple[Parser, ...]:
        return (self.item,)

    def __repr__(self) -> str:
        named = {(0, 1): "optional", (0, -1): "zero_or_more", (1, -1): "one_or_more"}.get((self.min, self.max))
        if named:
            return f"{named}({self.item!r})"
        return f"repeat({self.item!r}, {self.min}, {self.max})"


class _Wrapper(Parser):
    __slots__ = ("item",)

    def __init__(self, item: Parser) -> None:
        super().__init__()
        self.item = item

    def children(self) -> tuple[Parser, ...]:
        return (self.item,)


class _LookAhead(_Wrapper):
    """A zero-width test of ``item``. ``implied``: the caller vouches that the grammar of what follows already
    enforces it (GBNF has no look-ahead, so it is dropped from the grammar, silently only when ``implied``)."""

    __slots__ = ("implied",)

    def __init__(self, item: Parser, implied: bool = False) -> None:
        super().__init__(item)
        self.implied = implied

    def args_repr(self) -> list[str]:
        return [repr(self.item), "implied=True"] if self.implied else [repr(self.item)]


class Peek(_LookAhead):
    __slots__ = ()
    kind = "peek"


class Negate(_LookAhead):
    __slots__ = ()
    kind = "negate"


class Atomic(_Wrapper):
    __slots__ = ()
    kind = "atomic"


class Tag(_Wrapper):
    __slots__ = ("tag",)
    kind = "tag"

    def __init__(self, tag: str, item: Parser) -> None:
        super().__init__(item)
        self.tag = tag

    def args_repr(self) -> list[str]:
        return [repr(self.tag), repr(self.item)]


class Schema(_Wrapper):
    """Parses exactly like ``item``; in GBNF it stands for ``schema`` converted by the JSON Schema converter."""

    __slots__ = ("name", "raw", "schema")
    kind = "schema"

    def __init__(self, item: Parser, name: str, schema: Any, raw: bool) -> None:
        super().__init__(item)
        self.name, self.schema, self.raw = name, schema, raw

    def args_repr(self) -> list[str]:
        out = [repr(self.item), repr(self.name), _json.dumps(self.schema, sort_keys=True)]
        return [*out, "raw=True"] if self.raw else out


class Rule(_Wrapper):
    """A named rule: an AST node per match, a named GBNF rule, and a target for :class:`Ref`."""

    __slots__ = ("name", "trigger")
    kind = "rule"

    def __init__(self, name: str, item: Parser, trigger: bool) -> None:
        super().__init__(item)
        self.name, self.trigger = name, trigger

    def __repr__(self) -> str:
        return f"{'trigger_rule' if self.trigger else 'rule'}({self.name!r}, {self.item!r})"


class Ref(_Leaf):
    """A reference to the rule named ``name``, resolved when the parser is built."""

    __slots__ = ("name",)
    kind = "ref"

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def args_repr(self) -> list[str]:
        return [repr(self.name)]


Node: TypeAlias = (
    Eps
    | Start
    | End
    | AnyChar
    | Space
    | Literal
    | Chars
    | Until
    | Json
    | Sequence
    | Choice
    | Repeat
    | Peek
    | Negate
    | Atomic
    | Tag
    | Schema
    | Rule
    | Ref
)
"""Every concrete node kind: the closed union a back end matches on. A back end written as ``match as_node(p)``
with ``case _: assert_never(p)`` is checked by mypy to handle every kind, so a new kind cannot be forgotten."""


_NODE_KINDS: tuple[type[Parser], ...] = get_args(Node)


def as_node(p: Parser) -> Node:
    """``p`` typed as the closed union :data:`Node`; raises TypeError for a subclass from outside this module."""
    if isinstance(p, _NODE_KINDS):
        return cast(Node, p)
    raise TypeError(f"unknown parser node {type(p).__name__}")


def effective(p: Parser) -> Parser:
    """Look through wrappers that change neither the language nor the grammar shape (tag, atomic, raw schema)."""
    while True:
        if isinstance(p, Tag | Atomic) or (isinstance(p, Schema) and delegates(p)):
            p = p.item
        else:
            return p


def raw_literals(p: Schema) -> list[str] | None:
    """For a raw string value whose schema lists its texts (``enum``/``const`` of strings), those texts (the
    grammar is their alternatives); None otherwise."""
    if not p.raw or not isinstance(p.schema, dict):
        return None
    enum = p.schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return list(dict.fromkeys(enum))
    const = p.schema.get("const")
    return [const] if isinstance(const, str) else None


def delegates(p: Schema) -> bool:
    """Whether a schema node's grammar is its child's (raw string values that are not a list of texts, or no
    schema at all)."""
    if p.schema is None:
        return True
    if not p.raw or not isinstance(p.schema, dict) or raw_literals(p) is not None:
        return False
    t = p.schema.get("type")
    return t == "string" or (isinstance(t, list) and "string" in t)
