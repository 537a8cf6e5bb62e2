"""Arrays and objects as GBNF.

Arrays: prefix items in order, then the ``items`` schema, with ``minItems``/``maxItems`` as a bounded
repetition (never nested optionals), so ``maxItems: 500`` stays one rule.

Objects: listed properties appear in the order of ``properties`` (each at most once, required ones
mandatory), then additional members. An additional member's key is a string that is *not* a listed
property (decoded, so ``"\\u0061"`` cannot smuggle in ``a``): a trie over the listed names whose every
node also offers "any other character". With ``minProperties``/``maxProperties`` the rules carry the count
so far in their names (``…-o3-c1``): exact, and at most (#properties + 1) × (bound + 1) rules.

``patternProperties`` (one pattern, or all patterns sharing one schema, matching no listed property): a
key matching a pattern takes the pattern's schema; any other unlisted key takes ``additionalProperties``,
exactly when that implies the pattern's schema (forbidden, the same schema, or a pattern schema accepting
anything), else with a value valid under both (narrower than JSON Schema, never wider).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import SchemaError
from ._ir import ArrAlt, Conj, ObjAlt
from ._keys import KeyDfa, KeyDfaTooLarge, build_key_dfa, emit_keys
from ._keywords import count_keyword
from ._resolve import Sub
from ._text import (
    Charset,
    charset,
    complement,
    gbnf_class,
    json_char_expr,
    json_string_literal,
    subtract,
    union,
)
from .regex_gbnf import RegexError, counted_repeat, translate_regex

if TYPE_CHECKING:
    from ._emit import Emitter

__all__ = ["array_expr", "object_expr"]

MAX_OBJECT_RULES = 20000
# Printable ASCII other than the quote and the backslash: the characters json.dumps writes raw.
_PLAIN_LO, _PLAIN_HI = 0x20, 0x7E
_PLAIN: Charset = subtract(charset([(_PLAIN_LO, _PLAIN_HI)]), charset([(0x22, 0x22), (0x5C, 0x5C)]))
_PLAIN_CHARS = frozenset(chr(cp) for lo, hi in _PLAIN for cp in range(lo, hi + 1))
#: Nodes of a key trie spelled by one rule when each has one child (see _key_not_in).
_CHAIN_DEPTH = 3


def array_expr(em: Emitter, alt: ArrAlt, owner: str, anchor: Sub) -> str | None:
    """Expression for arrays accepted by ``alt``; None if no array is. Cost: O(#prefix items) rules."""
    ws = em.ws()
    if alt.contains:
        found, expr = _contains_expr(em, alt, owner, anchor)
        if found:
            return expr
    lo, hi = alt.min_items, alt.max_items
    prefix: list[str] = []
    for conj in alt.prefix:
        rule = em.rule_for(conj, anchor)
        if rule is None:  # nothing fits at this position: the array must end before it
            hi = len(prefix) if hi is None else min(hi, len(prefix))
            break
        prefix.append(rule)
    item = em.rule_for(alt.items, anchor)
    if item is None:
        hi = len(prefix) if hi is None else min(hi, len(prefix))
    if hi is not None and hi < lo:
        return None
    if hi is not None:
        prefix = prefix[:hi]
    if hi == 0:
        return em.seq('"["', ws, '"]"')
    tail = ""  # elements from position len(prefix) on, each after a comma
    if prefix and item is not None and (hi is None or hi > len(prefix)):
        r_lo = max(lo - len(prefix), 0)
        r_hi = None if hi is None else hi - len(prefix)
        nxt = em.helper(owner, "next", em.seq('","', ws, item, ws))
        tail = _rep(em, owner, nxt, r_lo, r_hi)
    first_item = prefix[0] if prefix else item
    assert first_item is not None
    # Prefix positions 1..n-1, built from the end; each is optional once lo elements are present.
    for i in range(len(prefix) - 1, 0, -1):
        seg = em.seq('","', ws, prefix[i], ws, tail)
        tail = em.helper(owner, f"tail{i}", seg)
        if i >= lo:
            tail = f"{tail}?"
    if not prefix:
        # Only the items schema: the first element, then count - 1 more.
        r_lo = max(lo - 1, 0)
        r_hi = None if hi is None else hi - 1
        nxt = em.helper(owner, "next", em.seq('","', ws, first_item, ws))
        tail = _rep(em, owner, nxt, r_lo, r_hi)
    content = em.seq(first_item, ws, tail)
    if lo == 0:
        content = f"{content}?" if content.startswith("(") or " " not in content else f"({content})?"
    return em.seq('"["', ws, content, '"]"')


def _contains_expr(em: Emitter, alt: ArrAlt, owner: str, anchor: Sub) -> tuple[bool, str | None]:
    """Arrays with at least ``minContains`` items matching ``contains`` (all items matching ``items``).

    Exact for one ``contains`` without prefix items, ``maxItems``, or a ``minItems`` above ``minContains``:
    ``[ I* C (I* C){m-1} I* ]`` in JSON syntax, where C is an item valid under both schemas. Otherwise the
    keyword is a weakening and (False, None) is returned (the caller then ignores it).
    """
    conj, least, ptr = alt.contains[0]
    if len(alt.contains) > 1 or alt.prefix or alt.max_items is not None or alt.min_items > least:
        em.norm.weaken(ptr, "'contains' combined with prefixItems, maxItems, a larger minItems or another contains")
        return False, None
    ws = em.ws()
    item = em.rule_for(alt.items, anchor)
    hit = em.rule_for(alt.items + conj, anchor)
    if hit is None:
        return True, None
    if least > 1000:
        em.norm.weaken(ptr, "minContains above 1000")
        return False, None
    skip = "" if item is None else em.helper(owner, "skip", em.seq(item, ws, '","', ws))
    after = "" if item is None else em.helper(owner, "after", em.seq('","', ws, item, ws))
    lead = f"{skip}*" if skip else ""
    body = em.seq(lead, hit, ws)
    if least > 1:
        again = em.helper(owner, "again", em.seq('","', ws, lead, hit, ws))
        body = em.seq(body, _rep(em, owner, again, least - 1, least - 1))
    body = em.seq(body, f"{after}*" if after else "")
    return True, em.seq('"["', ws, body, '"]"')


def _rep(em: Emitter, owner: str, name: str, lo: int, hi: int | None) -> str:
    if hi is not None and hi <= 0:
        return ""
    return counted_repeat(name, lo, hi, lambda b: em.helper(owner, "rep", b))


def _matches(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:
        return True  # cannot tell: treat as overlapping (the caller then refuses or narrows)


@dataclass
class _KeyClasses:
    """The key automaton of one object and the meaning of its components.

    Components: ``0..n_patterns-1`` the patternProperties patterns, ``listed`` the listed property names,
    ``required`` the propertyNames constraints every key must satisfy.
    """

    dfa: KeyDfa
    n_patterns: int
    listed: int
    required: frozenset[int]

    def names_ok(self, acc: frozenset[int]) -> bool:
        return self.required <= acc

    def matched(self, key: str) -> frozenset[int]:
        return frozenset(i for i in self.dfa.run(key) if i < self.n_patterns)


def _name_constraints(em: Emitter, alt: ObjAlt) -> tuple[list[str], list[list[str]]] | None:
    """propertyNames as key-automaton components: (patterns, finite name sets); None if no key is allowed.

    Handled: ``true``/``{}``, ``false``, and schemas made of ``pattern``, ``enum``/``const``,
    ``minLength``/``maxLength`` and ``type: string`` (after following plain ``$ref``). Anything else is a
    weakening (dropped with a warning, or refused in strict mode).
    """
    patterns: list[str] = []
    sets: list[list[str]] = []
    for raw in alt.names:
        sub = em._deref(raw)
        s = sub.schema
        if s is True:
            continue
        if s is False:
            return None
        extra = set(s) - _NAME_KEYWORDS
        if extra or s.get("type", "string") not in ("string", ["string"]):
            em.norm.weaken(sub.ptr, f"propertyNames with {sorted(extra) or ['type']}")
            continue
        if "pattern" in s:
            patterns.append(s["pattern"])
        if "const" in s or "enum" in s:
            values = [s["const"]] if "const" in s else s["enum"]
            sets.append([v for v in values if isinstance(v, str)])
        if "minLength" in s or "maxLength" in s:
            lo = count_keyword(s, "minLength", sub.ptr) or 0
            hi = count_keyword(s, "maxLength", sub.ptr)
            if hi is not None and hi < lo:
                return None
            patterns.append(f"^[\\s\\S]{{{lo},{'' if hi is None else hi}}}$")
    return patterns, sets


_NAME_KEYWORDS = frozenset(
    {"pattern", "enum", "const", "type", "minLength", "maxLength", "title", "description", "$comment", "examples"}
)


def _key_classes(em: Emitter, alt: ObjAlt, known: list[str]) -> _KeyClasses | None:
    """Build the key automaton, or None when it is too large (callers fall back to narrower forms).

    Raises SchemaError for invalid patterns.
    """
    constraints = _name_constraints(em, alt) if alt.names else ([], [])
    if constraints is None:
        constraints = (["[]"], [])  # propertyNames: false (the empty class matches no key)
    name_patterns, name_sets = constraints
    patterns = [p for p, _, _ in alt.patterns]
    n = len(patterns)
    try:
        dfa = build_key_dfa(patterns + name_patterns, [known, *name_sets])
    except KeyDfaTooLarge:
        return None
    except RegexError as exc:
        ptr = next((ptr for p, _, ptr in alt.patterns if p == exc.pattern), alt.ptr)
        if exc.invalid:
            raise SchemaError(f"invalid pattern: {exc}", pointer=ptr) from None
        em.norm.weaken(ptr, f"pattern: {exc}")
        return None
    listed = n + len(name_patterns)
    required = frozenset(range(n, listed)) | frozenset(range(listed + 1, listed + 1 + len(name_sets)))
    return _KeyClasses(dfa, n, listed, required)


def object_expr(em: Emitter, alt: ObjAlt, owner: str, anchor: Sub) -> str | None:
    """Expression for objects accepted by ``alt``; None if none is. Cost: O(#props × count bound)."""
    ws = em.ws()
    names = [k for k, _ in alt.props]
    listed = dict(alt.props)
    for key in sorted(alt.required - set(names)):
        names.append(key)
    classes = _key_classes(em, alt, list(dict.fromkeys(names))) if (alt.patterns or alt.names) else None
    # Listed keys are checked against propertyNames directly (jsonschema, references resolved).
    name_subs = list(alt.names)
    members: list[tuple[str, str | None, bool]] = []  # key, member expression, required
    for key in names:
        required = key in alt.required
        if not all(em.norm.valid(sub, key) for sub in name_subs):
            if required:
                return None
            continue
        conj: Conj = listed.get(key, ())
        if classes is not None:
            hit = classes.matched(key)
            matched: Conj = tuple(s for i, (_, c, _) in enumerate(alt.patterns) if i in hit for s in c)
        else:
            matched = tuple(s for p, c, _ in alt.patterns if _matches(p, key) for s in c)
        conj = conj + matched if key in listed else matched if matched else alt.additional
        rule = em.rule_for(conj, anchor)
        if rule is None and required:
            return None
        member = None if rule is None else em.seq(json_string_literal(key), ws, '":"', ws, rule, ws)
        members.append((key, member, required))
    members = [m for m in members if m[1] is not None]
    if len(members) > 1:
        # A member is written in the "first" rule and in every "o" rule of its position (one per count with
        # min/maxProperties): one rule per member, shared by content across objects, keeps each spelled once.
        members = [(key, em.helper(owner, "m", member), req) for key, member, req in members if member]
    known = list(dict.fromkeys([k for k, _, _ in members] + names))
    if classes is not None:
        extra = _classified_member(em, alt, owner, anchor, classes)
    else:
        if alt.names:
            em.norm.weaken(alt.ptr, "propertyNames (key automaton too large)")
        extra = _additional_member(em, alt, owner, anchor, known)
    return _object_rules(em, owner, ws, members, extra, alt.min_props, alt.max_props)


def _classified_member(em: Emitter, alt: ObjAlt, owner: str, anchor: Sub, classes: _KeyClasses) -> str | None:
    """One unlisted member, exactly: for each set T of patterns a key can match (none: additionalProperties),
    the keys matching exactly T (and propertyNames), with a value valid under T's schemas."""
    ws = em.ws()
    n = len(alt.patterns)
    sets = {
        frozenset(i for i in acc if i < n)
        for acc in classes.dfa.accepts
        if classes.listed not in acc and classes.names_ok(acc)
    }
    options = []
    key_base = em.sub_name(owner, "k")
    for hit in sorted(sets, key=sorted):
        conj: Conj = (
            tuple(s for i, (_, c, _) in enumerate(alt.patterns) if i in hit for s in c) if hit else alt.additional
        )
        value = em.rule_for(conj, anchor)
        if value is None:
            continue

        def accept(acc: frozenset[int], hit: frozenset[int] = hit) -> bool:
            return classes.listed not in acc and classes.names_ok(acc) and frozenset(i for i in acc if i < n) == hit

        def new_rule() -> str:
            return em.fresh(key_base)

        def set_rule(name: str, body: str) -> None:
            em.rules[name] = body

        key = emit_keys(classes.dfa, accept, em.charset_rule, new_rule, set_rule)
        if key is not None:
            options.append(em.seq(key, ws, '":"', ws, value, ws))
    if not options:
        return None
    return options[0] if len(options) == 1 else "(" + " | ".join(options) + ")"


def _additional_member(em: Emitter, alt: ObjAlt, owner: str, anchor: Sub, known: list[str]) -> str | None:
    """Expression for one additional member (key, colon, value), or None if none is allowed.

    The fallback when the key automaton is too large: exact without patterns, narrower with them.
    """
    ws = em.ws()
    known = list(dict.fromkeys(known))
    additional_false = em.rule_for(alt.additional, anchor) is None
    if not alt.patterns:
        if additional_false:
            return None
        value = em.rule_for(alt.additional, anchor)
        assert value is not None
        return em.seq(_key_not_in(em, owner, known), ws, '":"', ws, value, ws)
    schemas = {tuple((s.base, s.ptr) for s in c) for _, c, _ in alt.patterns}
    for p, _, ptr in alt.patterns:
        if any(_matches(p, k) for k in known):
            em.norm.weaken(ptr, f"pattern {p!r} also matches a listed property")
    if len(schemas) > 1:
        em.norm.weaken(alt.patterns[0][2], "several patternProperties with different schemas")
    conj: Conj = alt.patterns[0][1]
    pattern_value = em.rule_for(conj, anchor)
    key = _pattern_keys(em, alt, owner)
    by_pattern = None if key is None or pattern_value is None else em.seq(key, ws, '":"', ws, pattern_value, ws)
    if additional_false:
        return by_pattern
    # A key matching the pattern takes the pattern's schema only; any other unlisted key takes
    # additionalProperties. "Any other" would need the complement of the pattern, so the second branch
    # admits every unlisted key with a value valid under both schemas: exact when additionalProperties
    # implies the pattern's schema (the same schema, or a pattern schema accepting anything), narrower
    # otherwise, never wider.
    additional_value = em.rule_for(alt.additional, anchor)
    if pattern_value is not None and (pattern_value in (additional_value, em.prim("value"))):
        other_value = additional_value
    else:
        other_value = em.rule_for(conj + alt.additional, anchor)
    other = None if other_value is None else em.seq(_key_not_in(em, owner, known), ws, '":"', ws, other_value, ws)
    options = [o for o in (by_pattern, other) if o is not None]
    if not options:
        return None
    return options[0] if len(options) == 1 else "(" + " | ".join(options) + ")"


def _pattern_keys(em: Emitter, alt: ObjAlt, owner: str) -> str | None:
    """A JSON string matching one of the ``patternProperties`` patterns (None if none can match)."""
    char = em.prim("char")
    keys = []
    for p, ptr in dict.fromkeys((p, ptr) for p, _, ptr in alt.patterns):
        try:
            body = translate_regex(
                p, char_expr=em.charset_rule, any_star=f"{char}*", new_rule=lambda b: em.helper(owner, "re", b)
            )
        except RegexError as exc:
            raise SchemaError(f"pattern: {exc}", pointer=ptr) from None
        if body is not None:
            keys.append(f'"\\"" {body} "\\""')
    if not keys:
        return None
    return keys[0] if len(keys) == 1 else "(" + " | ".join(keys) + ")"


def _deviation(em: Emitter, kid_set: Charset) -> str:
    """Shared rule: a plain-ASCII-or-other character outside ``kid_set``, then any rest of the string."""
    name = f"{em.prefix}json--dev-" + "-".join(f"{lo:x}" for lo, _ in kid_set)
    if name not in em.rules:
        raw = subtract(_PLAIN, union(kid_set))
        other = [gbnf_class(raw)] if raw else []
        other.append(em.prim("char-x"))
        em.rules[name] = f'({" | ".join(other)}) {em.prim("char")}* "\\""'
    return name


def _end_or_deviation(em: Emitter, kid_set: Charset) -> str:
    """Shared rule: the closing quote, or :func:`_deviation` (after a prefix that is no listed name)."""
    name = f"{em.prefix}json--end-or-dev-" + "-".join(f"{lo:x}" for lo, _ in kid_set)
    if name not in em.rules:
        em.rules[name] = f'"\\"" | {_deviation(em, kid_set)}'
    return name


def _key_not_in(em: Emitter, owner: str, known: list[str]) -> str:
    """A rule for JSON strings whose decoded value is none of ``known`` (a trie with escape hatches).

    Memoised per set of names, so objects sharing their property list share the trie.
    """
    if not known:
        return em.prim("string")
    memo_key = tuple(sorted(set(known)))
    memo = em.key_tries
    if memo_key in memo:
        return memo[memo_key]
    char = em.prim("char")
    # Trie over decoded characters; node 0 is the root.
    children: list[dict[str, int]] = [{}]
    terminal: list[bool] = [False]
    for key in known:
        node = 0
        for ch in key:
            branches = children[node]
            nxt = branches.get(ch)
            if nxt is None:
                nxt = branches[ch] = len(children)
                children.append({})
                terminal.append(False)
            node = nxt
        terminal[node] = True

    # What may follow each node, children before parents (a child is created after its parent): a reference,
    # or a rule shared by content (equal subtries, common across the objects of one schema, are spelled once).
    # One flat rule per node (no nested groups: a group costs the parser a helper rule anyway).
    follow: list[str] = [""] * len(children)
    memo_nodes = em.key_nodes
    endings = em.key_endings
    shared = em.shared_rule
    base = f"{em.name}--key"
    # A node with one plain child (the tail of one name) is not a rule of its own: up to _CHAIN_DEPTH such
    # nodes are spelled as one rule, ``"abc" rest | "ab" not-c | "a" not-b | not-a``, the same language as a
    # rule per node with a third of the rules (a long name costs a rule per character otherwise). ``chain[i]``
    # holds such a node's alternatives (literal prefix, what follows) until its parent inlines it or needs its
    # name. Chunks are cut from the end of the name, so equal tails in several objects are equal rules.
    chain: dict[int, tuple[list[tuple[str, str]], int]] = {}

    def name_of(j: int) -> str:
        pending = chain.pop(j, None)
        if pending is not None:
            follow[j] = shared(base, " | ".join(f'"{p}" {t}' if p else t for p, t in pending[0]))
        return follow[j]

    for i in range(len(children) - 1, -1, -1):
        node_kids = children[i]
        if len(node_kids) == 1:
            ((ch, j),) = node_kids.items()
            if ch in _PLAIN_CHARS:
                kid_set: Charset = ((ord(ch), ord(ch)),)
                ending = endings.get((terminal[i], kid_set))
                if ending is None:
                    ending = _deviation(em, kid_set) if terminal[i] else _end_or_deviation(em, kid_set)
                    endings[(terminal[i], kid_set)] = ending
                below = chain.get(j)
                if below is not None and below[1] < _CHAIN_DEPTH:
                    del chain[j]
                    chain[i] = ([(ch + p, t) for p, t in below[0]] + [("", ending)], below[1] + 1)
                else:
                    chain[i] = ([(ch, name_of(j)), ("", ending)], 1)
                continue
        for j in node_kids.values():
            name_of(j)
        kids = sorted(node_kids.items())
        # A node is its end flag and its children's follow-ups: nodes equal so are found before any text is built.
        signature = (terminal[i], tuple((ch, follow[j]) for ch, j in kids))
        known_follow = memo_nodes.get(signature)
        if known_follow is not None:
            follow[i] = known_follow
            continue
        # Printable ASCII is matched raw only: an escaped spelling such as \u0061 is refused on both sides
        # (listed keys and the "other character" branch), so the split stays exact.
        is_plain = all(ch in _PLAIN_CHARS for ch, _ in kids)
        if is_plain:  # (such a character is its own GBNF literal)
            alts = [f'"{ch}" {follow[j]}' for ch, j in kids]
        else:
            alts = [f"{json_char_expr(((ord(ch), ord(ch)),))} {follow[j]}" for ch, j in kids]
        kid_set = tuple((ord(ch), ord(ch)) for ch, _ in kids)
        if is_plain:
            ending = endings.get((terminal[i], kid_set))
            if ending is None:
                ending = _deviation(em, kid_set) if terminal[i] else _end_or_deviation(em, kid_set)
                endings[(terminal[i], kid_set)] = ending
            alts.append(ending)
        else:
            if not terminal[i]:
                alts.insert(0, '"\\""')
            rule = em.charset_rule(complement(kid_set))
            if rule is not None:
                alts.append(f'{rule} {char}* "\\""')
        body = " | ".join(alts)
        follow[i] = body if " " not in body else shared(base, body)
        memo_nodes[signature] = follow[i]
    memo[memo_key] = f'"\\"" {name_of(0)}'
    return memo[memo_key]


def _object_rules(
    em: Emitter,
    owner: str,
    ws: str,
    members: list[tuple[str, str | None, bool]],
    extra: str | None,
    cmin: int,
    cmax: int | None,
) -> str | None:
    """Build the ordered-members rules; returns the object expression or None if no object fits."""
    n = len(members)
    required_count = sum(1 for _, _, r in members if r)
    if cmax is not None and (cmax < required_count or cmax < cmin):
        return None
    counting = cmin > 0 or cmax is not None
    cap = (cmax if cmax is not None else cmin) if counting else 0
    if (n + 1) * (cap + 1) > MAX_OBJECT_RULES:
        raise SchemaError("minProperties/maxProperties too large for this many properties", pointer=owner)
    extra_rule = em.helper(owner, "extra", em.seq('","', ws, extra)) if extra is not None else None

    def sat(c: int) -> int:
        return min(c, cap)

    # rest[i][c]: members from position i on, each after a comma, given c members so far (capped).
    rest: dict[tuple[int, int], str | None] = {}
    for c in range(cap + 1):
        need = max(cmin - c, 0) if counting else 0
        room = (cmax - c) if cmax is not None else None
        if extra_rule is None:
            rest[(n, c)] = "" if need == 0 else None
        elif room is not None and room < need:
            rest[(n, c)] = None
        else:
            rest[(n, c)] = _rep(em, owner, extra_rule, need, room) if room != 0 else ("" if need == 0 else None)
    for i in range(n - 1, -1, -1):
        _, member, required = members[i]
        for c in range(cap + 1):
            alts = []
            if cmax is None or c < cmax:
                after = rest[(i + 1, sat(c + 1))]
                if after is not None:
                    alts.append(em.unwrap(em.seq('","', ws, member or "", after)))
            if not required:
                skip = rest[(i + 1, c)]
                if skip is not None:
                    alts.append(skip if skip else '""')
            if not alts:
                rest[(i, c)] = None
            elif alts == ['""']:
                rest[(i, c)] = ""
            else:
                suffix = f"o{i}" + (f"-c{c}" if counting else "")
                rest[(i, c)] = em.helper(owner, suffix, " | ".join(alts))
    # first(i): the first member is at position >= i (no comma before it), nothing so far.
    first_alts: list[str] = []
    for i in range(n):
        _, member, required = members[i]
        after = rest[(i + 1, sat(1))] if (cmax is None or cmax >= 1) else None
        if after is not None:
            first_alts.append(em.unwrap(em.seq(member or "", after)))
        if required:
            break
    else:
        if extra is not None and (cmax is None or cmax >= 1):
            more_lo = max(cmin - 1, 0)
            more_hi = None if cmax is None else cmax - 1
            assert extra_rule is not None
            first_alts.append(em.unwrap(em.seq(extra, _rep(em, owner, extra_rule, more_lo, more_hi))))
        if cmin == 0:
            first_alts.append('""')
    if not first_alts:
        return None
    body = first_alts[0] if len(first_alts) == 1 else em.helper(owner, "first", " | ".join(first_alts))
    if body == '""':
        return em.seq('"{"', ws, '"}"')
    return em.seq('"{"', ws, body, '"}"')
