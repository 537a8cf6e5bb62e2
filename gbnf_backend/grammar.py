"""The public :class:`Grammar`: GBNF text in, validated rules and a matcher out.

>>> g = Grammar.from_gbnf('root ::= "a"+ [0-9]?')
>>> g.matches("aaa7"), g.matches("7")
(True, False)
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import cast

from ._analysis import check_grammar
from ._elements import Element, ElementType, Rule, char_run_end, is_end_of_alternative
from ._gbnf_parser import RepetitionChain, parse_gbnf
from ._gbnf_text import gbnf_class, gbnf_literal, gbnf_quantifier, gbnf_rules
from .engine._native import load_core
from .engine._npda import DEAD, NPDA
from .engine._utf8 import feed_bytes
from .errors import ArgumentTypeError, GrammarError

__all__ = ["Grammar"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while building: a large grammar allocates ~10^5 tuples and lists,
    which would trigger many collections that each walk every live object (a fifth of the build time) and find
    no cycle. Reference counting still frees everything; the collector resumes (if it was on) on exit."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_E = ElementType


class Grammar:
    """A validated GBNF grammar.

    Attributes: ``text`` (the source), ``root`` (root rule name), ``names`` (rule name by symbol id),
    ``symbol_ids`` (the inverse), ``rules`` (element tuples by symbol id, llama.cpp's encoding),
    ``nullable`` (per rule: can match the empty string), ``chains`` (the helper rules of each bounded repetition)
    and ``generated`` (ids of helper rules created for groups and repetitions).

    Build with :meth:`from_gbnf`. Matching state lives in :attr:`automaton` (an :class:`NPDA`), built on first use.
    """

    def __init__(
        self,
        *,
        text: str,
        root: str,
        names: Sequence[str],
        rules: Sequence[Rule],
        nullable: Sequence[bool],
        chains: Sequence[RepetitionChain],
        generated: Iterable[int],
    ) -> None:
        self.text = text
        self.root = root
        self.names: tuple[str, ...] = tuple(names)
        self.symbol_ids: dict[str, int] = dict(zip(self.names, range(len(self.names)), strict=True))
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.nullable: tuple[bool, ...] = tuple(nullable)
        self.chains: tuple[RepetitionChain, ...] = tuple(chains)
        self.generated: frozenset[int] = frozenset(generated)
        self.root_id = self.symbol_ids[root]

    @classmethod
    def from_gbnf(cls, text: str, root: str = "root") -> Grammar:
        """Parse and validate GBNF ``text``; return the grammar.

        Raises :class:`GrammarError` (a ``ValueError`` with ``.line``, ``.column`` and the offending line) for
        syntax errors, a missing root, undefined rules, left recursion (direct, indirect or through rules that can
        be empty), rules that can never finish, bad or oversized repetitions. Cost: linear in the expanded size;
        with the compiled core built, the parse and the checks run in C++ (about 20x faster; the Python path
        still reports every error, with the same message and place).
        """
        if not isinstance(text, str):
            raise ArgumentTypeError(f"grammar text must be str, not {type(text).__name__}")
        with gc_paused():
            return cls._from_gbnf(text, root)

    @classmethod
    def _from_gbnf(cls, text: str, root: str) -> Grammar:
        core = load_core()
        # (getattr: a core built before this function existed is still used for matching, not for parsing)
        build = getattr(core, "build_grammar", None)
        built = build(text, root) if build is not None else None
        if built is not None:
            # The compiled parser and checks (engine/_native/gbnf_build.hpp) built the same rules as the Python
            # path below would; it gives up (None) on any error, which the Python path then reports.
            names, rules, nullable, chain_parts, generated, _root_id = built
            chains = [RepetitionChain(links, unit) for links, unit in chain_parts]
            return cls(
                text=text, root=root, names=names, rules=rules, nullable=nullable, chains=chains, generated=generated
            )
        return cls._from_gbnf_python(text, root)

    @classmethod
    def _from_gbnf_python(cls, text: str, root: str) -> Grammar:
        """:meth:`from_gbnf` by the Python parser and checks (the oracle; the one that reports errors)."""
        parsed = parse_gbnf(text)
        if root not in parsed.symbol_ids or parsed.symbol_ids[root] not in parsed.defined:
            where = len(text.rstrip()) if text.strip() else 0
            raise GrammarError(f"the grammar has no rule named '{root}' (the root)", text=text, offset=where)
        names = list(parsed.symbol_ids)  # ids are handed out in insertion order
        root_id = parsed.symbol_ids[root]
        nullable = check_grammar(text, parsed.rules, names, parsed.offsets, root_id, parsed.chains)
        rules = list(map(tuple, cast("list[Sequence[Element]]", parsed.rules)))  # checked: no None left
        return cls(
            text=text,
            root=root,
            names=names,
            rules=rules,
            nullable=nullable,
            chains=parsed.chains,
            generated=parsed.generated,
        )

    # ---- matching -----------------------------------------------------------------------------------------
    @cached_property
    def automaton(self) -> NPDA:
        """The NPDA that runs this grammar (built on first use, O(grammar size); then cached)."""
        return NPDA(self.rules, self.root_id, nullable=self.nullable)

    def matches(self, text: str) -> bool:
        """Return whether the whole of ``text`` is in the language (code point by code point, O(len) steps)."""
        npda = self.automaton
        state = npda.step_text(npda.initial, text)
        return npda.can_end(state)

    def matches_prefix(self, text: str) -> bool:
        """Return whether ``text`` can be continued into a string of the language."""
        return self.automaton.step_text(self.automaton.initial, text) != DEAD

    def matches_bytes(self, data: bytes) -> bool:
        """Return whether ``data`` is valid UTF-8 whose text is in the language."""
        npda = self.automaton
        state, partial = feed_bytes(npda, npda.initial, None, data)
        return partial is None and npda.can_end(state)

    def matches_pieces(self, pieces: Iterable[str | int]) -> bool:
        """Return whether a mix of text pieces and token ids (for ``<[id]>`` references) is in the language."""
        npda = self.automaton
        state = npda.initial
        for piece in pieces:
            if isinstance(piece, int):
                state = npda.step_token_reference(state, piece)
            else:
                for ch in piece:
                    # A text character is one unit that is no vocabulary token reference: it can satisfy
                    # ``!<[id]>`` as well as a character class (llama.cpp's test convention).
                    state = npda.union(npda.step_char(state, ord(ch)), npda.step_token_reference(state, -1))
                    if state == DEAD:
                        return False
            if state == DEAD:
                return False
        return npda.can_end(state)

    # ---- printing -----------------------------------------------------------------------------------------
    def to_gbnf(self) -> str:
        """Return GBNF text (one rule per line, helper rules included) that parses back to the same rules.

        A long bounded repetition is printed as written (``x{0,100000}``), not as its chain of helper rules, so
        the text stays as small as the source and re-parses as fast. "The same rules" is :meth:`canonical`'s
        equality. Literals and classes are written by the shared printer (:mod:`._gbnf_text`), so the text also
        loads in xgrammar and llguidance, except that ``.`` stays ``.`` (it is its own element; generators write
        :data:`~._gbnf_text.ANY_CHAR`). Cost: linear in the printed size.
        """
        chains = {chain.rule_ids[0]: chain for chain in self.chains}
        links = {rule for chain in self.chains for rule in chain.rule_ids}
        return gbnf_rules(
            (name, format_rule(self.rules[sid], self.names, chains))
            for sid, name in enumerate(self.names)
            if sid not in links
        )

    def __str__(self) -> str:
        return self.to_gbnf()

    def __repr__(self) -> str:
        return f"<Grammar root={self.root!r} rules={len(self.rules)}>"

    def canonical(self) -> dict[str, tuple[tuple[int, int | str | tuple[object, ...]], ...]]:
        """Return the rules keyed by name with references by name: equal for grammars with the same rules.

        The helper rules of a long bounded repetition (whose names depend on where the repetition was written) are
        left out; a reference to such a chain reads ``(RULE_REF, ("repeat", unit, links))``.
        """
        chains = {chain.rule_ids[0]: chain for chain in self.chains}
        links = {rule for chain in self.chains for rule in chain.rule_ids}
        names = self.names

        def reference(kind: int, value: int) -> int | str | tuple[object, ...]:
            if kind != _E.RULE_REF:
                return value
            chain = chains.get(value)
            if chain is None:
                return names[value]
            unit = tuple((k, reference(k, v)) for k, v in chain.unit)  # a nested chain reads "repeat" too
            return ("repeat", unit, len(chain.rule_ids))

        return {
            names[sid]: tuple((kind, reference(kind, value)) for kind, value in rule)
            for sid, rule in enumerate(self.rules)
            if sid not in links
        }


def format_rule(rule: Rule, names: Sequence[str], chains: Mapping[int, RepetitionChain] | None = None) -> str:
    """Return the GBNF body of ``rule`` (element tuples) with references printed by name.

    A reference to the first helper rule of a repetition chain in ``chains`` is printed as ``unit{0,n}``.
    """
    # An empty alternative is written "" so that it may stand anywhere (a trailing bare '|' would swallow the
    # next line).
    return " | ".join(" ".join(items) if items else '""' for items in _alternatives(rule, names, chains))


def _alternatives(rule: Rule, names: Sequence[str], chains: Mapping[int, RepetitionChain] | None) -> list[list[str]]:
    """The printed items of each alternative of ``rule`` (see :func:`format_rule`)."""
    alts: list[list[str]] = []
    items: list[str] = []
    literal: list[int] = []

    def flush_literal() -> None:
        if literal:
            items.append(gbnf_literal("".join(map(chr, literal))))
            literal.clear()

    i = 0
    while i < len(rule):
        element: Element = rule[i]
        kind, value = element
        if is_end_of_alternative(element):
            flush_literal()
            alts.append(items)
            items = []
            if kind == _E.END:
                break
            i += 1
            continue
        if kind in (_E.CHAR, _E.CHAR_NOT):
            end = char_run_end(rule, i)
            if kind == _E.CHAR and end == i + 1:
                literal.append(value)
                i = end
                continue
            flush_literal()
            members: list[tuple[int, int]] = []  # (cp, -1): one character; (lo, hi): a range as written
            for j in range(i, end):
                member_kind, member = rule[j]
                if member_kind == _E.CHAR_RNG_UPPER:
                    members[-1] = (members[-1][0], member)
                else:
                    members.append((member, -1))
            items.append(gbnf_class(members, negated=kind == _E.CHAR_NOT, as_ranges=True))
            i = end
            continue
        flush_literal()
        if kind == _E.CHAR_ANY:
            items.append(".")
        elif kind == _E.RULE_REF:
            chain = chains.get(value) if chains else None
            if chain is None:
                items.append(names[value])
            else:
                items.append(_as_item(chain.unit, names, chains) + gbnf_quantifier(0, len(chain.rule_ids)))
        elif kind == _E.TOKEN:
            items.append(f"<[{value}]>")
        elif kind == _E.TOKEN_NOT:
            items.append(f"!<[{value}]>")
        else:
            raise ValueError(f"unexpected element {element!r} in rule")
        i += 1
    return alts


def _as_item(unit: Sequence[Element], names: Sequence[str], chains: Mapping[int, RepetitionChain] | None) -> str:
    """``unit`` printed as one GBNF item that parses back to exactly these elements — the operand a following
    quantifier repeats: a literal, class or reference as printed; ``u{k,n}`` for the expansion of a repetition
    (``k`` copies of ``u`` and a chain of ``n - k``); ``u{k}`` for ``k`` copies of a shorter item. Anything else
    (not made by the parser) becomes a parenthesised group: the same language, a new helper rule when parsed.
    Cost: O(len(unit)²) at worst, for units that are no repetition."""
    alts = _alternatives((*unit, (int(_E.END), 0)), names, chains)
    if len(alts) == 1 and len(alts[0]) == 1:
        return alts[0][0]
    last_kind, last_value = unit[-1]
    inner = chains.get(last_value) if chains and last_kind == _E.RULE_REF else None
    if inner is not None:
        width, prefix = len(inner.unit), unit[:-1]
        copies = len(prefix) // width
        if len(prefix) == copies * width and tuple(prefix) == tuple(inner.unit) * copies:
            return _as_item(inner.unit, names, chains) + gbnf_quantifier(copies, copies + len(inner.rule_ids))
    for width in range(1, len(unit) // 2 + 1):
        copies = len(unit) // width
        if len(unit) == copies * width and tuple(unit) == tuple(unit[:width]) * copies:
            return _as_item(unit[:width], names, chains) + gbnf_quantifier(copies, copies)
    return "(" + " | ".join(" ".join(items) if items else '""' for items in alts) + ")"
