"""The compiled grammar builder (``engine/_native/gbnf_build.hpp``) against the Python code it replaces (the oracle).

``Grammar.from_gbnf`` takes the compiled path when the core is built: it must build exactly the rules, names, ids,
nullable flags, repetition chains and helper set the Python path builds, and give up (``None``) on every text the
Python path refuses, so that the Python path reports the error with its message and place. The JSON Schema
converter's unused-rule pruning and key-automaton subset construction must likewise equal their Python versions.
"""

from __future__ import annotations

import json
import os
import random
import types
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbnf_backend import Grammar, GrammarError, SchemaError
from gbnf_backend import grammar as grammar_module
from gbnf_backend._elements import RepetitionChain
from gbnf_backend.engine._native import PURE_PYTHON_VARIABLE, load_core
from gbnf_backend.schema import _keys as keys_module
from gbnf_backend.schema import json_schema
from gbnf_backend.schema.json_schema import convert_json_schema
from gbnf_backend.schema.regex_gbnf import RegexError
from tests.corpora import CORPORA
from tests.gbnf_backend.test_json_schema_props import _wide_schemas

CORE = load_core()
pytestmark = pytest.mark.skipif(CORE is None, reason="the compiled core is not built (pip install -e .)")

PARSER_CORPUS = json.loads((CORPORA / "gbnf-parser.json").read_text())
GRAMMAR_FILES = sorted((CORPORA / "grammars").glob("*.gbnf"))
INTEGRATION = json.loads((CORPORA / "gbnf-integration.json").read_text())
BENCH_SCHEMAS = sorted((CORPORA / "jsonschemabench").glob("*/*.json"))

Outcome = tuple[object, ...]


def _python_outcome(text: str, root: str) -> Outcome | None:
    """The Python path's grammar as plain data, or None when it refuses the text."""
    try:
        g = Grammar._from_gbnf_python(text, root)
    except GrammarError:
        return None
    return (g.names, g.rules, g.nullable, g.chains, g.generated, g.root_id)


def _native_outcome(text: str, root: str) -> Outcome | None:
    """The compiled builder's answer as the same plain data, or None when it gives up."""
    assert CORE is not None
    built = CORE.build_grammar(text, root)
    if built is None:
        return None
    names, rules, nullable, chains, generated, root_id = built
    return (
        tuple(names),
        tuple(rules),
        tuple(nullable),
        tuple(RepetitionChain(tuple(links), unit) for links, unit in chains),
        frozenset(generated),
        root_id,
    )


def _assert_same(text: str, root: str = "root", *, must_accept: bool = False) -> None:
    python = _python_outcome(text, root)
    native = _native_outcome(text, root)
    assert native == python
    if must_accept:
        assert native is not None


def _corpus_texts() -> list[str]:
    texts = [c if isinstance(c, str) else c["grammar"] for cases in PARSER_CORPUS.values() for c in cases]
    texts += [c["grammar"] for c in INTEGRATION if c.get("grammar")]
    return texts + [p.read_text(encoding="utf-8") for p in GRAMMAR_FILES]


def test_every_corpus_grammar_builds_the_same_or_is_left_to_the_python_path() -> None:
    texts = _corpus_texts()
    assert len(texts) > 60
    accepted = 0
    for text in texts:
        python = _python_outcome(text, "root")
        assert _native_outcome(text, "root") == python, text
        accepted += python is not None
    assert accepted > 30


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "lenient"])
def test_converter_grammars_build_the_same(strict: bool) -> None:
    """Every in-repo JSONSchemaBench schema's grammar (the converter's output) is built by the compiled path."""
    built = 0
    for path in BENCH_SCHEMAS[::3]:
        try:
            text = convert_json_schema(json.loads(path.read_text())["schema"], strict=strict).to_gbnf()
        except SchemaError:
            continue
        _assert_same(text, must_accept=True)
        built += 1
    assert built > 40


def test_errors_are_reported_by_the_python_path_with_their_place() -> None:
    for text, fragment in [
        ('root ::= "a" (\n', "unbalanced '('"),
        ("root ::= x\n", "undefined rule 'x'"),
        ('root ::= root "a"\n', "left recursion"),
        ('root ::= "a" root\n', "can never finish"),
        ('root ::= "a"{3,2}\n', "maximum below its minimum"),
        ('root ::= ("a"{0,200}){0,200}\n', "nested bounded repetitions"),
    ]:
        assert CORE is not None and CORE.build_grammar(text, "root") is None
        with pytest.raises(GrammarError, match=fragment.replace("(", r"\(")) as info:
            Grammar.from_gbnf(text)
        assert info.value.line >= 1


def test_a_root_that_names_only_a_helper_rule_is_refused() -> None:
    # "r_1" is the helper made for the group, but no rule of the text is called r_1.
    _assert_same('r ::= ("a" | "b")\n', "r_1")
    with pytest.raises(GrammarError, match="no rule named 'r_1'"):
        Grammar.from_gbnf('r ::= ("a" | "b")\n', "r_1")


def test_the_pure_python_switch_builds_the_same_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (GRAMMAR_FILES[0]).read_text(encoding="utf-8")
    native = Grammar.from_gbnf(text)
    monkeypatch.setenv(PURE_PYTHON_VARIABLE, "1")
    python = Grammar.from_gbnf(text)
    assert (native.names, native.rules, native.nullable, native.chains) == (
        python.names,
        python.rules,
        python.nullable,
        python.chains,
    )


_ATOMS = ['"a"', '"b\\n"', '"\\x41"', "[a-c]", "[^a]", ".", "[\\]-]", "<[1]>", "!<[2]>", '""', "r0", "r1", "r2", "x"]
_SUFFIXES = ["", "", "*", "+", "?", "{2}", "{0,3}", "{1,}", "{0,40}", "{3,1}", "{ 2 , 4 }", "{,2}"]
_SPACES = [" ", "  ", "\t", " # note\n  ", "\n "]


@st.composite
def _grammar_texts(draw: st.DrawFn) -> str:
    """Rules r0..r2 (and root) of atoms, groups, suffixes and spacing, with occasional breakage."""

    def expression(depth: int) -> str:
        alternatives = []
        for _ in range(draw(st.integers(1, 3))):
            items = []
            for _ in range(draw(st.integers(1, 3))):
                item = draw(st.sampled_from(_ATOMS))
                if depth < 2 and draw(st.booleans()):
                    item = "(" + expression(depth + 1) + ")"
                items.append(item + draw(st.sampled_from(_SUFFIXES)))
            alternatives.append(draw(st.sampled_from(_SPACES)).join(items))
        return " | ".join(alternatives)

    lines = ["root ::= " + expression(0)]
    for index in range(draw(st.integers(0, 3))):
        lines.append(f"r{index} ::= " + expression(0))
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "\r\n", ""]))
    if draw(st.integers(0, 4)) == 0:  # a random cut or insertion: the error paths
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["", "(", ")", "|", '"', "[", "::=", "\n", "{"])) + text[at + 1 :]
    return text


@settings(max_examples=200, deadline=None)
@given(_grammar_texts(), st.sampled_from(["root", "root", "r0", "root_1"]))
def test_generated_grammars_build_the_same(text: str, root: str) -> None:
    """Law: for any text (valid or not) the compiled builder gives the Python path's grammar or gives up."""
    _assert_same(text, root)


_PIECES = ["(", ")", "|", "*", "+", "?", "{", "}", "{2,3}", "{0,}", '"', "[", "]", "\\", "\\x4", "::=", "\n", " "]
_PIECES += ["#", "root", "^", ".", "<[", "]>", "!", "<[3]>", "\x00", "é", "\\n", "a-z", "x", "0", "99999", "\r\n"]


def _mutated(rng: random.Random, text: str, texts: list[str]) -> str:
    """``text`` with one to four random edits: delete a span, insert a GBNF piece, repeat a span, splice a line."""
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(text))
        end = min(len(text), at + rng.randint(0, 12))
        edit = rng.randrange(4)
        if edit == 0:
            text = text[:at] + text[end:]
        elif edit == 1:
            text = text[:at] + rng.choice(_PIECES) + text[at:]
        elif edit == 2:
            text = text[:at] + text[at:end] * rng.randint(2, 5) + text[at:]
        else:
            lines = rng.choice(texts).splitlines() or [""]
            text = text[:at] + "\n" + rng.choice(lines) + "\n" + text[at:]
    return text


def test_mutated_corpus_grammars_build_the_same() -> None:
    """Random edits of the corpus grammars (a fixed sample): mostly broken texts, some still valid."""
    rng = random.Random(12)
    texts = _corpus_texts()
    accepted = 0
    for _ in range(1500):
        text = _mutated(rng, rng.choice(texts), texts)
        if len(text) <= 20_000:
            _assert_same(text)
            accepted += _python_outcome(text, "root") is not None
    assert accepted > 100


def _reachable_both_ways(rules: dict[str, str], root: str) -> None:
    assert json_schema._reachable(rules, root) == json_schema._reachable_python(rules, root)


_BODY_PIECES = ["a", "b-1", "c--d", "12", "e_f", '"a"', '"\\"b-1\\""', "[a-c]", "[\\]a]", '"x\\\nroot"', "(", "|"]
_BODY_PIECES += ['"unclosed', "[unclosed", "c--d{2,3}", "a*", "é"]


def test_converter_rule_tables_are_pruned_the_same() -> None:
    """The compiled reference scan keeps exactly the rules the Python scan keeps (converter tables, unpruned)."""
    tables = []
    original = json_schema._reachable

    def capture(rules: dict[str, str], root: str) -> dict[str, str]:
        tables.append((dict(rules), root))
        return original(rules, root)

    json_schema._reachable = capture  # type: ignore[assignment]
    try:
        for path in BENCH_SCHEMAS[::5]:
            try:
                convert_json_schema(json.loads(path.read_text())["schema"], strict=False)
            except SchemaError:
                continue
    finally:
        json_schema._reachable = original  # type: ignore[assignment]
    assert len(tables) > 30
    assert any(len(json_schema._reachable(r, root)) < len(r) for r, root in tables)  # some helpers end up unused
    for rules, root in tables:
        _reachable_both_ways(rules, root)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["root", "a", "b-1", "c--d", "12", "e_f", "é"]),
        st.lists(
            st.sampled_from(_BODY_PIECES),
            max_size=6,
        ).map(" ".join),
        min_size=1,
    )
)
def test_reference_scans_agree(rules: dict[str, str]) -> None:
    """Law: on any table, even with unclosed literals and escaped line breaks, both scans keep the same rules."""
    _reachable_both_ways(rules, next(iter(rules)))


def _dfa_both_ways(patterns: tuple[str, ...], names: tuple[tuple[str, ...], ...]) -> None:
    def build(determinize: object) -> object:
        saved = keys_module._determinize
        keys_module._determinize = determinize  # type: ignore[assignment]
        try:
            dfa = keys_module._build(patterns, names)
            return (dfa.transitions, dfa.accepts, dfa.by_target)  # (by_target: given by the core, else computed)
        except (keys_module.KeyDfaTooLarge, RegexError) as exc:
            return type(exc)
        finally:
            keys_module._determinize = saved  # type: ignore[assignment]

    assert build(keys_module._determinize) == build(keys_module._determinize_python)


def test_key_automata_of_the_corpus_are_determinised_the_same() -> None:
    """The compiled subset construction gives the Python one's DFA (states, numbering, rows, accepting sets) for
    every key automaton the in-repo JSONSchemaBench sample asks for."""
    asked: list[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]] = []
    original = keys_module._build

    def spy(patterns: Sequence[str], names: Sequence[Sequence[str]]) -> keys_module.KeyDfa:
        asked.append((tuple(patterns), tuple(tuple(group) for group in names)))
        return original(patterns, names)

    keys_module._build = spy  # type: ignore[assignment]
    keys_module._build_cached.cache_clear()
    try:
        for path in BENCH_SCHEMAS:
            try:
                convert_json_schema(json.loads(path.read_text())["schema"], strict=False)
            except SchemaError:
                continue
    finally:
        keys_module._build = original  # type: ignore[assignment]
    assert len(asked) > 10
    for patterns, names in asked:
        _dfa_both_ways(patterns, names)


_PATTERN_PIECES = ["a", "b", "[a-c]", "[^b]", ".", "\\d", "(a|bc)", "x{2,3}", "y*", "z+", "é", "\\u00e9", "_", "-"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.lists(st.sampled_from(_PATTERN_PIECES), max_size=5), st.booleans()).map(
            lambda p: ("^" if p[0] else "") + "".join(p[1]) + ("$" if p[2] else "")
        ),
        max_size=3,
    ),
    st.lists(st.lists(st.text(alphabet="abcé_-", max_size=4), max_size=4), max_size=2),
)
def test_generated_key_automata_are_determinised_the_same(patterns: list[str], names: list[list[str]]) -> None:
    """Law: for any patterns and name sets, both subset constructions give the same DFA (or both are too large)."""
    _dfa_both_ways(tuple(patterns), tuple(tuple(group) for group in names))


def _conversion(schema: Any, strict: bool) -> tuple[object, ...]:
    """Everything a conversion gives: the grammar text, warnings and built rules, or the error with its pointer."""
    try:
        result = convert_json_schema(schema, strict=strict)
        grammar = result.to_grammar()
    except (SchemaError, GrammarError) as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", result.to_gbnf(), result.warnings, grammar.names, grammar.rules, grammar.nullable, grammar.chains)


def _without_core(schema: Any, strict: bool) -> tuple[object, ...]:
    saved = os.environ.get(PURE_PYTHON_VARIABLE)
    os.environ[PURE_PYTHON_VARIABLE] = "1"
    try:
        return _conversion(schema, strict)
    finally:
        if saved is None:
            del os.environ[PURE_PYTHON_VARIABLE]
        else:
            os.environ[PURE_PYTHON_VARIABLE] = saved


def test_corpus_schemas_convert_and_match_the_same_with_and_without_the_core() -> None:
    """Every in-repo JSONSchemaBench schema: the same grammar text, warnings, rules and errors whether the compiled
    core builds (key automata, pruning, parse, checks) or Python does; and its sample instances are accepted alike."""
    compiled = 0
    for path in BENCH_SCHEMAS:
        entry = json.loads(path.read_text())
        native = _conversion(entry["schema"], True)
        assert native == _without_core(entry["schema"], True), path.name
        if native[0] != "ok":
            continue
        compiled += 1
        grammar = convert_json_schema(entry["schema"]).to_grammar()
        oracle = Grammar._from_gbnf_python(grammar.text, "root")
        for test in entry["tests"][:4]:
            text = json.dumps(test["data"])
            assert grammar.matches(text) == oracle.matches(text)
    assert compiled > 150


@settings(max_examples=60, deadline=None)
@given(_wide_schemas, st.booleans())
def test_generated_schemas_convert_the_same_with_and_without_the_core(schema: Any, strict: bool) -> None:
    """Law: a generated schema (patterns, objects, combinators) converts to the same grammar either way."""
    assert _conversion(schema, strict) == _without_core(schema, strict)


def test_a_core_built_before_these_functions_leaves_them_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stale build of the core (no build_grammar, reachable_rules or determinize) is not an error: the Python
    paths run, with the same result."""
    schema = json.loads(BENCH_SCHEMAS[0].read_text())["schema"]
    expected = _conversion(schema, True)
    stale = types.SimpleNamespace()
    for module in (grammar_module, json_schema, keys_module):
        monkeypatch.setattr(module, "load_core", lambda: stale)
    keys_module._build_cached.cache_clear()
    assert _conversion(schema, True) == expected
    assert Grammar.from_gbnf('root ::= "a"+').matches("aa")
