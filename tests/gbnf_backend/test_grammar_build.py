"""Building a Grammar fast: the one-line-rule path of the parser agrees with the general path; the GC pause."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbnf_backend import Grammar, GrammarError
from gbnf_backend import _gbnf_parser as parser_module
from gbnf_backend._gbnf_parser import ParsedGrammar, parse_gbnf
from gbnf_backend.errors import SchemaError
from gbnf_backend.grammar import gc_paused
from gbnf_backend.schema.json_schema import convert_json_schema
from tests.corpora import CORPORA

PARSER_CORPUS = json.loads((CORPORA / "gbnf-parser.json").read_text())
GRAMMAR_FILES = sorted((CORPORA / "grammars").glob("*.gbnf"))
BENCH_SCHEMAS = sorted((CORPORA / "jsonschemabench").glob("*/*.json"))


@contextmanager
def _general_path_only() -> Iterator[None]:
    """Parse every rule with the general scanner (the one-line fast path declines every rule)."""
    fast = parser_module._Parser.parse_flat_rule
    parser_module._Parser.parse_flat_rule = lambda self, pos: None  # type: ignore[method-assign,assignment,return-value]
    try:
        yield
    finally:
        parser_module._Parser.parse_flat_rule = fast  # type: ignore[method-assign]


def _summary(parsed: ParsedGrammar) -> tuple[object, ...]:
    return (
        parsed.symbol_ids,
        [None if r is None else tuple(r) for r in parsed.rules],
        parsed.offsets,
        parsed.defined,
        parsed.generated,
        parsed.chains,
        parsed.weights,
        parsed.element_count,
    )


def _outcome(text: str) -> tuple[object, ...]:
    """What parsing ``text`` gives: the parsed grammar, or the error with its place."""
    try:
        return ("ok", _summary(parse_gbnf(text)))
    except GrammarError as exc:
        return ("error", str(exc), exc.line, exc.column)


def _assert_same_both_ways(text: str) -> None:
    fast = _outcome(text)
    with _general_path_only():
        general = _outcome(text)
    assert fast == general


def _schema_texts() -> list[tuple[str, str]]:
    """The GBNF the converter writes for the in-repo JSONSchemaBench sample (every 4th schema: ~65 grammars)."""
    out = []
    for path in BENCH_SCHEMAS[::4]:
        try:
            text = convert_json_schema(json.loads(path.read_text())["schema"]).to_gbnf()
        except SchemaError:
            continue
        out.append((f"{path.parent.name}/{path.name}", text))
    return out


@pytest.mark.parametrize("text", PARSER_CORPUS["valid"] + PARSER_CORPUS["invalid"])
def test_corpus_grammars_parse_the_same_by_both_paths(text: str) -> None:
    _assert_same_both_ways(text)


@pytest.mark.parametrize("path", GRAMMAR_FILES, ids=lambda p: p.name)
def test_grammar_files_parse_the_same_by_both_paths(path: Path) -> None:
    _assert_same_both_ways(path.read_text())


def test_converter_grammars_parse_the_same_by_both_paths() -> None:
    texts = _schema_texts()
    assert len(texts) > 30
    for _name, text in texts:
        _assert_same_both_ways(text)
        with _general_path_only():
            general = Grammar.from_gbnf(text)
        assert Grammar.from_gbnf(text).canonical() == general.canonical()


_NAMES = st.sampled_from(["root", "a", "b-1", "x_2", "value"])
_LITERALS = st.text(alphabet='ab "\\\n\t[]|#(', max_size=4).map(
    lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'
)
_SUFFIXES = st.sampled_from(["", "", "*", "+", "?", " *", "**"])
_ITEMS = st.one_of(
    st.builds(lambda item, suffix: item + suffix, st.one_of(_NAMES, _LITERALS, st.just('""')), _SUFFIXES),
    st.just("|"),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(_NAMES, st.lists(_ITEMS, min_size=1, max_size=6), st.sampled_from([" ", "  ", "\t"])),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["\n", "\r\n", "\n\n"]),
)
def test_one_line_rules_parse_as_the_general_path_does(rules: list[tuple[str, list[str], str]], newline: str) -> None:
    """Law: any text of one-line rules (names, literals with escapes, repetition suffixes, '|', even a trailing
    '|', a repeated empty literal or a rule defined twice) gives the same rules, ids, offsets (of helper rules
    too) and errors whichever path reads it."""
    text = newline.join(f"{name} ::={space}{space.join(items)}" for name, items, space in rules) + newline
    _assert_same_both_ways(text)


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ('root ::= "a" foo bar\nbar ::= "x"\n', 14),
        ('root ::= "\\"q\\"" | bar foo\nbar ::= "x"\n', 24),
        ('root ::= bar\nbar ::= "x" | "foo" foo\n', 21),
    ],
)
def test_an_undefined_rule_is_reported_at_its_first_reference(text: str, column: int) -> None:
    with pytest.raises(GrammarError, match="undefined rule 'foo'") as info:
        Grammar.from_gbnf(text)
    assert info.value.column == column


@pytest.mark.parametrize("enabled", [True, False])
def test_gc_paused_restores_the_collector(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        with gc_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(GrammarError), gc_paused():
            Grammar.from_gbnf("root ::= missing\n")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
