"""llama.cpp's grammar integration cases and example grammars, run through our parser and NPDA."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gbnf_backend import Grammar, GrammarError
from tests.corpora import CORPORA

INTEGRATION = json.loads((CORPORA / "gbnf-integration.json").read_text())
GRAMMAR_CASES = [c for c in INTEGRATION if c["kind"] == "grammar"]
BUILD_CASES = [c for c in INTEGRATION if c["kind"] == "build"]
GRAMMAR_FILES = sorted((CORPORA / "grammars").glob("*.gbnf"))


def _pieces(sample: Any) -> list[str | int]:
    if isinstance(sample, str):
        return [sample]
    return [piece["token"] if isinstance(piece, dict) else piece for piece in sample]


@pytest.mark.parametrize("case", GRAMMAR_CASES, ids=lambda c: c["name"])
def test_integration_grammar_cases(case: dict[str, Any]) -> None:
    grammar = Grammar.from_gbnf(case["grammar"], case.get("root", "root"))
    wrongly_refused = [s for s in case["pass"] if not grammar.matches_pieces(_pieces(s))]
    wrongly_accepted = [s for s in case["fail"] if grammar.matches_pieces(_pieces(s))]
    assert wrongly_refused == [] and wrongly_accepted == []
    assert len(case["pass"]) + len(case["fail"]) > 0


@pytest.mark.parametrize("case", BUILD_CASES, ids=lambda c: c["name"])
def test_integration_build_cases(case: dict[str, Any]) -> None:
    if case["expect_build_ok"]:
        grammar = Grammar.from_gbnf(case["grammar"], case["root"])
        assert grammar.root == case["root"]
        return
    with pytest.raises(GrammarError) as info:
        Grammar.from_gbnf(case["grammar"], case["root"])
    error = info.value
    assert error.line >= 1
    if not case["expect_parse_ok"]:
        assert "undefined rule" in str(error)
    elif "left recursion" in case["name"]:
        assert "left recursion" in str(error)
    else:
        assert "no rule named" in str(error)


@pytest.mark.parametrize("path", GRAMMAR_FILES, ids=lambda p: p.name)
def test_example_grammars_parse_and_print_back(path: Path) -> None:
    grammar = Grammar.from_gbnf(path.read_text())
    assert Grammar.from_gbnf(grammar.to_gbnf()).canonical() == grammar.canonical()


def _load(name: str) -> Grammar:
    return Grammar.from_gbnf((CORPORA / "grammars" / name).read_text())


def test_example_grammars_accept_and_reject() -> None:
    arithmetic = _load("arithmetic.gbnf")
    assert arithmetic.matches("1+2*(3-x)=4\nab = 7\n")
    assert not arithmetic.matches("1+2*(3-x)\n")
    chess = _load("chess.gbnf")
    assert chess.matches("1. e4 e5\n2. Nf3 Nc6\n")
    assert not chess.matches("1. e9 e5\n")
    c = _load("c.gbnf")
    assert c.matches("int main(){return 0;}")
    assert not c.matches("int main(){return 0}")
    japanese = _load("japanese.gbnf")
    assert japanese.matches_prefix("こんにちは")
    lists = _load("list.gbnf")
    assert lists.matches("- one\n- two\n")
    assert not lists.matches("one\n")


# json.gbnf (llama.cpp's example) leaves DEL (0x7F) out of strings.
TEXT = st.text(st.characters(blacklist_characters="\x7f"), max_size=12)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(value=st.dictionaries(TEXT, JSON_VALUES, max_size=4), indent=st.sampled_from([None, 2]))
def test_json_grammar_accepts_json_documents(value: dict[str, Any], indent: int | None) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    assert _JSON.matches(text)
    # Cutting the document short is never a full match, but stays a viable prefix.
    if len(text) > 1:
        assert not _JSON.matches(text[:-1]) and _JSON.matches_prefix(text[:-1])


_JSON = _load("json.gbnf")


def test_json_grammar_rejects_malformed_json() -> None:
    for bad in ['{"a": 01}', '{"a": tru}', '{"a" 1}', "{'a': 1}", '{"a": "\x01"}', '{"a": [1,]}', "[1]"]:
        assert not _JSON.matches(bad), bad
