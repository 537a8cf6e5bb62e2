"""JSON combinators (§8.2 of the reference) and our decisions: numbers at the end, withheld escapes, depth."""

from __future__ import annotations

import json as pyjson
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import peg
from peg import Status, end, json, json_member, json_string_content, tag, to_gbnf

from .peg_support import load_everywhere

S, F, M = Status.SUCCESS, Status.FAIL, Status.NEED_MORE_INPUT
VALUE = json() + end()


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "test", "value": 42, "active": true}',
        '[1, "two", 3.5e-2, false, null, {"k": []}, -0]',
        '{"outer": {"inner": [1, [2, {"deep": "x"}]], "e": {}}, "s": "\\u00e9\\n\\"q\\""}',
        "  [ 1 ,\t2\n,\r3 ]  ".strip(),
        '"just a string"',
        "-12.5E+3",
    ],
)
def test_complete_values_match_to_the_end(text: str) -> None:
    r = VALUE.parse(text)
    assert (r.status, r.end) == (S, len(text))


@pytest.mark.parametrize("text", ['{"name": "test", "value": ', "[1, 2, 3, ", '{"data": {"nested": ', '{"a', "[tr"])
def test_values_cut_off_need_more_input(text: str) -> None:
    r = VALUE.parse(text, partial=True)
    assert r.status is M
    assert VALUE.parse(text).status is F


@pytest.mark.parametrize(
    "text", ["{'a': 1}", "[1,]", "[01]", '{"a" 1}', "[1 2]", '"tab\there"', "nul", "1.", "-", '"\\x41"', "{,}"]
)
def test_invalid_json_fails(text: str) -> None:
    assert VALUE.parse(text).status is F


def test_number_at_the_end_of_partial_input_needs_more() -> None:
    p = tag("n", json())
    r = p.parse("3", partial=True)
    assert (r.status, r.nodes[0].text, r.nodes[0].partial) == (M, "3", True)
    assert p.parse("3.1", partial=True).status is M
    assert p.parse("3", partial=False).status is S
    assert p.parse("3 ", partial=True).status is S  # something after it decides
    assert p.parse("[3", partial=True).status is M


def test_dangling_escape_is_withheld_not_emitted_half() -> None:
    p = tag("args", json())
    for cut, shown in [('{"a": "x\\', '{"a": "x'), ('{"a": "x\\u00', '{"a": "x'), ('{"a": "x\\n', '{"a": "x\\n')]:
        r = p.parse(cut, partial=True)
        assert (r.status, r.nodes[0].text) == (M, shown)
    r = tag("s", json_string_content()).parse("ab\\u12", partial=True)
    assert (r.status, r.nodes[0].text) == (M, "ab")
    assert json_string_content().parse('ab\\q"').status is F


def test_string_content_stops_before_the_closing_quote() -> None:
    text = 'he said \\"hi\\" \u00e9"rest'
    r = json_string_content().parse(text)
    assert (r.status, r.end) == (S, text.index('"rest'))
    assert json_string_content().parse("no quote").status is F
    assert json_string_content().parse("no quote", partial=True).status is M


def test_typed_json_combinators() -> None:
    cases: list[tuple[peg.Parser, str, str]] = [
        (peg.json_object(), '{"a": 1}', "[1]"),
        (peg.json_array(), "[1]", '{"a": 1}'),
        (peg.json_string(), '"x"', "1"),
        (peg.json_number(), "-1.5e3", '"1"'),
        (peg.json_bool(), "false", "null"),
        (peg.json_null(), "null", "true"),
    ]
    for p, good, bad in cases:
        assert (p + end()).parse(good).status is S, (p, good)
        assert (p + end()).parse(bad).status is F, (p, bad)


def test_json_member_escapes_the_key_and_allows_whitespace_around_the_colon() -> None:
    p = "{" + json_member('we"ird', tag("v", json())) + "}"
    r = p.parse('{"we\\"ird" :\n 5}')
    assert (r.status, r.find("v")[0].text) == (S, "5")


def test_100k_nested_arrays_parse_without_recursion_error() -> None:
    depth = 100_000
    text = "[" * depth + "]" * depth
    r = VALUE.parse(text)
    assert (r.status, r.end) == (S, 2 * depth)
    assert VALUE.parse(text[:-1], partial=True).status is M
    assert VALUE.parse(text[:-1]).status is F
    s = VALUE.stream()
    for i in range(0, len(text), 25_000):
        assert s.feed(text[i : i + 25_000]).status is not F
    assert s.finish().status is S


# ---- differential test against Python's json module, and the GBNF ---------------------------------------
def _no_constants(name: str) -> Any:
    raise ValueError(name)


def python_accepts(text: str) -> bool:
    if text != text.strip(" \t\n\r"):
        return False  # our json() has no whitespace around the value
    try:
        pyjson.loads(text, parse_constant=_no_constants)
    except ValueError:
        return False
    return True


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(json_values, st.sampled_from([None, 0, 2]), st.booleans(), st.data())
def test_parser_grammar_and_python_agree_on_json(value: Any, indent: int | None, ascii_: bool, data: Any) -> None:
    text = pyjson.dumps(value, indent=indent, ensure_ascii=ascii_)
    mutated = text
    if data.draw(st.booleans()) and text:
        i = data.draw(st.integers(0, len(text) - 1))
        mutated = (
            text[:i] + data.draw(st.sampled_from(["", ",", '"', "\\", "]", "}", " ", "1", "\x01", "e"])) + text[i + 1 :]
        )
    expected = python_accepts(mutated)
    assert (VALUE.parse(mutated).status is S) == expected, mutated
    assert GRAMMAR.matches(mutated) == expected, mutated


GRAMMAR = load_everywhere(to_gbnf(VALUE))


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(alphabet='[]{}"a:, 1', max_size=12),
    run=st.sampled_from("[]").flatmap(lambda c: st.integers(1, 6).map(lambda k: c * k)),
    kind=st.sampled_from(["value", "array", "object"]),
)
def test_scan_brackets_is_the_scanner_continued_over_a_run_of_brackets(prefix: str, run: str, kind: str) -> None:
    """Where the bracket shortcut answers, it is exactly the scanner's own resume state for the longer text."""
    from peg._json import MORE, scan_brackets, scan_json

    status, end_, resume, _ = scan_json(kind, prefix, 0, None, True)
    if status != MORE or resume is None or resume[1] != len(prefix) or end_ != len(prefix):
        return
    after = scan_brackets(resume, run)
    if after is None:
        return
    text = prefix + run
    assert scan_json(kind, text, 0, resume, True) == (MORE, len(text), after, scan_json(kind, text, 0, None, True)[3])
    assert scan_json(kind, text, 0, None, True)[:3] == (MORE, len(text), after)


# The compiled scanner reads strings, whitespace and numbers with character loops instead of regular expressions:
# each loop ends exactly where its expression's match ends, on any text and at any offset (these run the loops as
# compiled when the modules are, and as Python otherwise).
_SCAN_CHARS = ' \t\n\r"\\/bfnrtu0123456789aAeEfF+-.x\x00\x1f\x7f\ud800\udfff\u00e9'


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=_SCAN_CHARS, max_size=24), st.integers(min_value=0, max_value=24))
def test_scanner_loops_end_where_their_expressions_end(text: str, at: int) -> None:
    from peg import _json as scanner

    p, n = min(at, len(text)), len(text)
    assert scanner.whitespace_end(text, p, n) == scanner._WS.match(text, p).end()
    assert scanner.string_body_end(text, p, n) == scanner._STR_BODY.match(text, p).end()
    assert scanner.number_prefix_end(text, p, n) == scanner._NUMBER_PREFIX.match(text, p).end()
    number = scanner._NUMBER.match(text, p)
    assert scanner.number_end_at(text, p, n) == (-1 if number is None else number.end())


@pytest.mark.parametrize(
    "text",
    ['"\\u00e9x"', '"\\u00e"', '"a\\', '"\\q"', "-0.5e+3", "01", "1.", "1e", "1e+", "-", "-a", "2.x", '"\x1f"'],
)
def test_scanner_loops_on_escapes_and_number_edges(text: str) -> None:
    from peg import _json as scanner

    n = len(text)
    for p in range(n + 1):
        assert scanner.string_body_end(text, p, n) == scanner._STR_BODY.match(text, p).end()
        assert scanner.number_prefix_end(text, p, n) == scanner._NUMBER_PREFIX.match(text, p).end()
        number = scanner._NUMBER.match(text, p)
        assert scanner.number_end_at(text, p, n) == (-1 if number is None else number.end())
