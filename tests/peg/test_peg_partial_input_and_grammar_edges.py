"""Edges of partial parsing and of the emitted grammar: the nodes a failure keeps, growing ``chars`` runs at the end
of partial input, dropped look-ahead warnings, bounded ``space``, and an ``until`` whose closer lies outside its
rule."""

from __future__ import annotations

import warnings

import pytest

import peg
from gbnf_backend.errors import GrammarError
from gbnf_backend.grammar import Grammar
from peg import (
    GrammarWarning,
    Status,
    atomic,
    chars,
    end,
    lazy_grammar,
    literal,
    negate,
    optional,
    peek,
    rule,
    space,
    tag,
    to_gbnf,
    trigger_rule,
    until,
    zero_or_more,
)

S, F, M = Status.SUCCESS, Status.FAIL, Status.NEED_MORE_INPUT


# --- 1. a failed parse carries the nodes of its longest successful prefix -----------------------------------------
def test_failure_keeps_the_nodes_of_the_prefix_that_parsed() -> None:
    p = tag("a", "x" + tag("b", until("</b>")) + "</b>") + tag("c", literal("q")) + end()
    text = "x hello</b>z"
    r = p.parse(text)
    assert r.status is F and r.end == 11
    assert r.nodes == p.parse(text[: r.end], partial=True).nodes
    assert [(n.tag, n.text, n.partial) for n in r.nodes] == [("a", "x hello</b>", False), ("c", "", True)]
    assert r.nodes[0].children[0].text == " hello"


def test_failure_nodes_inside_an_open_value_are_partial_and_equal_when_streamed() -> None:
    p = "<" + tag("v", chars("[a-z]") + ">" + tag("w", until("!"))) + "!" + end()
    text = "<abc>def!!"
    r = p.parse(text)
    assert r.status is F
    assert [(n.tag, n.text) for n in r.walk()] == [("v", "abc>def"), ("w", "def")]
    s = p.stream()
    for ch in text:
        fed = s.feed(ch)
    assert fed.status is F and fed.nodes == r.nodes
    assert s.finish().nodes == r.nodes


# --- 2. a chars run that may still grow needs more input at the end of a partial input -----------------------------
@pytest.mark.parametrize(
    ("parser", "text", "partial", "final"),
    [
        (chars("[0-9]"), "12", M, S),
        (chars("[0-9]", 0, -1) + end(), "", M, S),
        (chars("[0-9]", 1, 3), "12", M, S),
        (chars("[0-9]", 1, 2), "12", S, S),  # the bound is reached: it cannot grow
        (chars("[0-9]") + "x", "12x", S, S),
    ],
)
def test_chars_at_the_end_of_partial_input(parser: peg.Parser, text: str, partial: Status, final: Status) -> None:
    assert parser.parse(text, partial=True).status is partial
    assert parser.parse(text).status is final


def test_an_atomic_id_of_digits_never_streams_half() -> None:
    p = atomic(tag("id", "call:" + chars("[0-9]"))) + tag("rest", until("$"))
    assert p.parse("call:12", partial=True).nodes == ()
    assert p.parse("call:123 ", partial=True).nodes[0].text == "call:123"


# --- 3. look-aheads dropped from the grammar warn, naming the rule --------------------------------------------------
def test_dropped_lookahead_warns_with_the_rule_name_and_is_listed() -> None:
    p = trigger_rule("call", "<" + tag("n", literal("get")) + peek(chars("[>]", 1, 1)) + ">")
    with pytest.warns(GrammarWarning, match=r"rule 'call'.*peek"):
        g = lazy_grammar(p)
    assert g.dropped_lookaheads == ("call: peek(chars('[>]', 1, 1))",)
    with pytest.warns(GrammarWarning, match="negate"):
        to_gbnf(negate("a") + "b")


def test_implied_lookahead_is_dropped_silently() -> None:
    p = trigger_rule("call", "<" + literal("get") + peek(">", implied=True) + ">")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = lazy_grammar(p)
    assert g.dropped_lookaheads == ()
    assert repr(p).count("implied=True") == 1
    assert repr(peg.from_json(peg.to_json(p))) == repr(p)


# --- 4. bounded space: parser and grammar agree exactly ------------------------------------------------------------
@pytest.mark.parametrize("text", ["x", " x", "\n\tx", "   x", "    x", "  \n \nx", ""])
def test_bounded_space_parser_and_grammar_agree(text: str) -> None:
    p = space(3) + "x"
    g = Grammar.from_gbnf(to_gbnf(p))
    assert (p.parse(text).status is S) == g.matches(text)
    assert (p.parse(text).status is S) == (len(text) - 1 <= 3 and text.endswith("x"))


def test_bounded_space_rule_printing_and_serialisation() -> None:
    p = space(2) + "x"
    assert to_gbnf(p) == 'root ::= peg--space-2 "x"\npeg--space-2 ::= [ \\t\\n\\r\\x0B\\x0C]{0,2}\n'
    assert repr(p) == "sequence(space(max=2), literal('x'))"
    assert repr(peg.from_json(peg.to_json(p))) == repr(p)
    assert to_gbnf(space(0) + "x") == 'root ::= "x"\n'
    with pytest.raises(GrammarError):
        space(-2)


def test_bounded_space_stops_growing_at_its_bound_while_streaming() -> None:
    p = tag("s", space(2)) + optional("x")
    assert p.parse("  ", partial=True).nodes[0].text == "  "
    assert p.parse("   ", partial=True).status is S  # 2 taken, the third is not "x"


# --- 6. until + closer across a rule boundary ------------------------------------------------------------------------
def test_closer_outside_the_rule_is_refused_for_an_overlapping_delimiter() -> None:
    d = "\n</parameter>\n"
    with pytest.raises(GrammarError, match=r"Put the closer inside"):
        to_gbnf(rule("value", "<p>" + until(d)) + d)
    with pytest.raises(GrammarError, match="Put the closer inside"):
        to_gbnf(zero_or_more("a" + until("aa")) + "aa")


def test_closer_inside_the_rule_or_a_self_disjoint_delimiter_is_exact() -> None:
    d = "\n</parameter>\n"
    inside = rule("value", "<p>" + until(d) + d) + "z"
    outside_ok = rule("value", "<p>" + until("</p>")) + "</p>" + "z"
    for p, text in ((inside, "<p>x\n\n</parameter>\nz"), (outside_ok, "<p>x<</p>z")):
        g = Grammar.from_gbnf(to_gbnf(p))
        for t in (text, text.replace("z", "") + "z", text[:-1]):
            assert (p.parse(t).status is S) == g.matches(t), t
