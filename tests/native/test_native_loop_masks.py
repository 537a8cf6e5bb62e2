"""Masks of states inside character-class loops equal the oracle's and brute force.

The core decides such states by routes of their own (see ``mask_engine.hpp``): a state that loops on a broad byte
class takes the class's tokens from a vocabulary-level cache and walks only the tails of the tokens that leave
the loop; a state inside a counted repetition (``x{0,n}`` with fewer copies left than a token may be long) takes
the short tokens from its relaxed twin's mask and walks only the longer ones. These tests drive both routes with
loops with and without counts, nested in counted arrays, with and without non-ASCII members, on the small
vocabulary (against brute force) and on the real 131k vocabulary (full masks at fixed states).
"""

from __future__ import annotations

import json
from functools import cache

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gbnf_backend import Grammar, GrammarCompiler, GrammarError, GrammarMatcher, Trigger, json_schema_to_gbnf
from gbnf_backend.vocab.vocabulary import Vocabulary

from .support import OracleMatcher, mask_of, native_matcher, requires_core, small_vocab, walk_and_compare

pytestmark = requires_core

# Bodies: broad classes (the signature route), with and without non-ASCII members, escapes, counts.
_BODIES = [
    '[^"\\\\]',
    "[ -~]",
    '[^"]',
    "[a-z A-Z0-9.,;:()é中]",
    '[^"\\\\\\x7F\\x00-\\x1F]',
    '([^"\\\\] | "\\\\" [nt"\\\\])',
    "[^\\x00-\\x7F]",
    "[^a]",
]
_COUNTS = ["*", "+", "{0,3}", "{0,12}", "{1,40}", "{0,200}", "{2,5}"]


@st.composite
def loop_grammars(draw: st.DrawFn) -> str:
    """A quoted class loop, maybe counted, maybe inside a counted array, maybe followed by more text."""
    body = draw(st.sampled_from(_BODIES)) + draw(st.sampled_from(_COUNTS))
    string = f'"\\"" {body} "\\""'
    shape = draw(st.sampled_from(["plain", "array", "nested", "tail"]))
    if shape == "plain":
        return f"root ::= {string}"
    if shape == "tail":
        return f'root ::= {string} ("," [ ]? {string})? "."'
    items = draw(st.sampled_from(["*", "{0,2}", "{0,9}", "{1,4}"]))
    array = f'"[" (item ("," " "? item){items})? "]"'
    if shape == "array":
        return f"root ::= {array}\nitem ::= {string}"
    key = f'"\\"" {draw(st.sampled_from(_BODIES))}{draw(st.sampled_from(_COUNTS))} "\\""'
    pairs = 'root ::= "{" (pair ("," pair){0,3})? "}"\npair ::= key ":" (array | key)'
    return f"{pairs}\narray ::= {array}\nitem ::= {string}\nkey ::= {key}"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=loop_grammars(), seed=st.integers(0, 2**31))
def test_masks_inside_class_loops_equal_the_oracle_and_brute_force(text: str, seed: int) -> None:
    try:
        grammar = Grammar.from_gbnf(text)
    except GrammarError:
        assume(False)
        raise
    walk_and_compare(grammar, small_vocab(), seed, steps=16)


def test_a_loop_state_and_its_counted_twin_share_nothing_wrong_after_many_states() -> None:
    # Many loop states in one engine (every array item is its own context): the cached text masks of relaxed twins
    # and the vocabulary's signature cache stay exact across all of them.
    grammar = Grammar.from_gbnf('root ::= "[" (item ("," item){0,30})? "]"\nitem ::= "\\"" [^"\\\\]{0,6} "\\""')
    native, oracle = native_matcher(grammar, small_vocab()), OracleMatcher(grammar, small_vocab())
    text = "[" + ",".join(f'"{"abcdefg"[: i % 7]}"' for i in range(20))
    for end in range(1, len(text) + 1):
        native.reset()
        oracle.reset()
        assert native.accept_string(text[:end]) and oracle.accept_string(text[:end])
        got, expected = mask_of(native), mask_of(oracle)
        assert (got == expected).all(), f"{text[:end]!r}: differs at {np.flatnonzero(got != expected)[:10]}"


# A state one character before a loop: its first character may lead into the loop, elsewhere, or into a loop
# without the non-ASCII characters (the core decides tokens by their first byte there).
BEFORE_A_LOOP = [
    r'root ::= "\"" [^"\\] [^"\\]* "\""',
    r'root ::= "\"" [^"\\] [^"\\\x80-\U0010FFFF]* "\""',
    r'root ::= "\"" ([^"\x00-\x7F] "!" | [a-z ] [ -~]*) "\""',
    r'root ::= "\"" ([^"\x00-\x7F] [a-z]* | [ -~] [^"]{0,8}) "\""',
    r'root ::= "\"" [ -~] [ -~]{0,30} "\"" ("," "\"" [a-z] [^"]* "\"")?',
]


def test_masks_one_character_before_a_loop_equal_the_oracle() -> None:
    vocab = small_vocab()
    for gbnf in BEFORE_A_LOOP:
        grammar = Grammar.from_gbnf(gbnf)
        for prefix in ['"', '"a', '"\u00e9', '"ab"', '"ab","', '"ab","x']:
            native, oracle = native_matcher(grammar, vocab), OracleMatcher(grammar, vocab)
            if not oracle.accept_string(prefix):
                continue
            assert native.accept_string(prefix)
            got, expected = mask_of(native), mask_of(oracle)
            assert (got == expected).all(), f"{gbnf} {prefix!r}: differs at {np.flatnonzero(got != expected)[:10]}"
        for seed in range(6):
            walk_and_compare(grammar, vocab, seed, steps=6)


# ---- the real 131k vocabulary -----------------------------------------------------------------------------------
@cache
def tekken() -> Vocabulary:
    return Vocabulary.from_tekken()


TOOL_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "maxLength": 200},
        "city": {"type": "string", "minLength": 1, "maxLength": 100},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 10},
        "plain": {"type": "array", "items": {"type": "string"}},
        "notes": {"type": "string", "maxLength": 2000},
    },
    "required": ["title", "city", "tags", "plain", "notes"],
    "additionalProperties": False,
}
DOCUMENT = {
    "title": "Weekly outlook (draft \u00e9dition 2)",
    "city": "Lyon",
    "tags": ["weather", "r\u00e9sum\u00e9", "\u5929\u6c14", "", "x" * 39],
    "plain": ["a", '\u00e9t\u00e9 \\ "q"', ""],
    "notes": 'Fog, then rain: "bring an umbrella" (18\u00b0C \u2192 22\u00b0C).',
}


def _cuts(text: str) -> list[int]:
    # Every string start and end, the first characters of each string, and every 9th position.
    cuts = {len(text), *range(0, len(text), 9)}
    for i, ch in enumerate(text):
        if ch == '"':
            cuts.update({i, i + 1, i + 2, i + 3})
    return sorted(c for c in cuts if c <= len(text))


def test_full_masks_along_a_schema_with_counted_and_plain_strings_on_the_real_vocabulary() -> None:
    vocab = tekken()
    grammar = Grammar.from_gbnf(json_schema_to_gbnf(TOOL_SCHEMA))
    text = json.dumps(DOCUMENT, ensure_ascii=False)
    for cut in _cuts(text):
        native, oracle = native_matcher(grammar, vocab), OracleMatcher(grammar, vocab)
        assert native.accept_string(text[:cut]) and oracle.accept_string(text[:cut]), text[:cut]
        got, expected = mask_of(native), mask_of(oracle)
        assert (got == expected).all(), f"{text[:cut]!r}: differs at {np.flatnonzero(got != expected)[:10]}"


def test_full_masks_of_class_loops_without_non_ascii_members_on_the_real_vocabulary() -> None:
    # An ASCII-only class (non-ASCII bytes leave the loop) and a class of CJK only (no ASCII loop: the whole walk).
    vocab = tekken()
    cases = [
        ('root ::= "<" [ -;=-~]{0,60} ">" [a-z]*', "<tag name=x y>abc", (1, 2, 5, 14, 15, 16)),
        ('root ::= "<" [ -;=-~]* ">" ("\\n" | [\\u4e00-\\u9fff]+)', "<a b c>\u4e2d\u6587", (1, 3, 7, 8, 9)),
    ]
    for gbnf, text, cuts in cases:
        grammar = Grammar.from_gbnf(gbnf)
        for cut in cuts:
            native, oracle = native_matcher(grammar, vocab), OracleMatcher(grammar, vocab)
            assert native.accept_string(text[:cut]) and oracle.accept_string(text[:cut])
            got, expected = mask_of(native), mask_of(oracle)
            assert (got == expected).all(), f"{gbnf} {text[:cut]!r}: differs at {np.flatnonzero(got != expected)[:10]}"


def test_full_masks_of_a_lazy_schema_call_on_the_real_vocabulary() -> None:
    # The lazy route: free text, a word trigger, then the schema's counted and plain strings (fresh engines: the
    # vocabulary's loop signatures are shared with the tests above, the engine's caches are not).
    vocab = tekken()
    schema_gbnf = json_schema_to_gbnf(TOOL_SCHEMA).replace("root ::=", "call ::=", 1)
    gbnf = schema_gbnf + '\nroot ::= "<tool_call>" "\\n"? call "\\n"? "</tool_call>"\n'
    compiled = GrammarCompiler(vocab, cache_size=0).compile_gbnf(gbnf, triggers=[Trigger.word("<tool_call>")])
    native, oracle = GrammarMatcher(compiled), OracleMatcher(compiled)
    assert type(native).__name__ == "NativeGrammarMatcher"
    text = "Sure, one call: <tool_call>\n" + json.dumps(DOCUMENT, ensure_ascii=False) + "\n</tool_call>"
    for chunk in [text[i : i + 5] for i in range(0, len(text), 5)]:
        got, expected = mask_of(native), mask_of(oracle)
        assert (got == expected).all(), f"before {chunk!r}: differs at {np.flatnonzero(got != expected)[:10]}"
        assert native.accept_string(chunk) and oracle.accept_string(chunk)
    assert (mask_of(native) == mask_of(oracle)).all()
