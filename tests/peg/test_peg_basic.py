"""Combinator semantics: the basic scenarios of the reference (§8.1), our end-of-input decisions, errors, names."""

from __future__ import annotations

import io
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import peg
from peg import (
    Status,
    any_char,
    atomic,
    chars,
    choice,
    end,
    eps,
    literal,
    negate,
    one_or_more,
    optional,
    peek,
    ref,
    repeat,
    rest,
    rule,
    sequence,
    space,
    start,
    tag,
    trigger_rule,
    until,
    until_one_of,
    zero_or_more,
)
from peg.errors import GrammarError, ParseError

S, F, M = Status.SUCCESS, Status.FAIL, Status.NEED_MORE_INPUT


def status(p: peg.Parser, text: str, partial: bool = False) -> Status:
    return p.parse(text, partial=partial).status


# ---- character classes ---------------------------------------------------------------------------------
def test_class_escapes_accept_exactly_the_escaped_characters() -> None:
    p = chars("[\\n\\t\\\\]") + end()
    assert [status(p, s) for s in ("\n", "\t", "\\", " ")] == [S, S, S, F]


def test_escaped_dash_is_a_member_not_a_range() -> None:
    p = chars("[a\\-z]") + end()
    assert [status(p, s) for s in ("a", "-", "z", "b")] == [S, S, S, F]


def test_trailing_dash_and_ranges() -> None:
    assert [status(chars("a-z"), s) for s in ("q", "Q")] == [S, F]
    assert [status(chars("a-z-") + end(), s) for s in ("f", "-", "A")] == [S, S, F]
    assert [status(chars("[^0-9]") + end(), s) for s in ("x", "7")] == [S, F]


def test_chars_bounds_count_code_points() -> None:
    p = chars("[0-9]", 2, 3)
    assert p.parse("1").status is F
    assert p.parse("12345").end == 3
    assert p.parse("1", partial=True).status is M
    assert p.parse("12", partial=True).status is M  # minimum met at the end, but the run may still grow
    assert p.parse("123", partial=True).status is S  # the bound is reached: it cannot grow


# ---- sequences, choices, repetitions -------------------------------------------------------------------
def test_optional_tail() -> None:
    p = "hello" + optional(" world")
    assert (p.parse("hello world").status, p.parse("hello world").end) == (S, 11)
    assert (p.parse("hello").status, p.parse("hello").end) == (S, 5)
    assert status(p, "hello ", partial=True) is M
    # Repetitions do not probe at the end of a partial input: "hello" may be complete.
    assert status(p, "hello", partial=True) is S


def test_sequence_partial_and_mismatch() -> None:
    think = literal("<think>") + literal("</think>")
    assert status(think, "<thi", partial=True) is M
    assert status(think, "<think></", partial=True) is M
    assert status(literal("begin") + "end", "begin", partial=True) is M
    assert status(literal("hello") + "world", "helloworld") is S
    # A mismatch is a failure even in partial mode: no continuation can repair it.
    assert status(think, "<think>I am thinking", partial=True) is F


def test_choice_partial_complete_and_sticky_need_more() -> None:
    assert status(literal("option1") | "option2", "opt", partial=True) is M
    assert status(literal("choice_a") | "choice_b", "choice", partial=True) is M
    assert status(literal("first") | "second", "first") is S
    assert status(literal("alpha") | "beta", "beta") is S
    assert status(literal("good") | "better", "best") is F
    # NEED_MORE from an earlier alternative pre-empts a later one that would match completely.
    assert status(literal("option1") | "opt", "opt", partial=True) is M


def test_repetitions() -> None:
    assert status(zero_or_more("ab"), "a", partial=True) is M
    assert status(zero_or_more("xy"), "xyx", partial=True) is M
    assert status(zero_or_more("x") + "test", "test") is S
    assert status(one_or_more("repeat"), "rep", partial=True) is M
    assert status(one_or_more("ab"), "aba", partial=True) is M
    assert status(one_or_more("single"), "single") is S
    assert status(one_or_more("()"), "success") is F
    r = repeat("ab", 2, 3).parse("abababab")
    assert (r.status, r.end) == (S, 6)
    assert repeat("ab", 2, 3).parse("ab").status is F


def test_repeating_an_empty_match_terminates_and_counts_as_the_minimum() -> None:
    r = one_or_more(optional("x")).parse("yyy")
    assert (r.status, r.end) == (S, 0)
    r = zero_or_more(tag("t", eps())).parse("y")
    assert r.status is S and [n.tag for n in r.nodes] == ["t"]  # the empty match happened once


def test_lookaheads_have_zero_width_and_no_nodes() -> None:
    p = peek(tag("x", "ab")) + "a"
    r = p.parse("ab")
    assert (r.status, r.end, r.nodes) == (S, 1, ())
    assert status(negate("a") + any_char(), "b") is S
    assert status(negate("a") + any_char(), "a") is F
    assert status(negate("abc"), "ab", partial=True) is M


def test_start_end_eps_space_any() -> None:
    assert status(start() + "a", "a") is S
    assert status(literal("a") + start(), "a") is F
    assert status(literal("a") + end(), "ab") is F
    assert status(literal("a") + end(), "a", partial=True) is S
    assert (eps().parse("xyz").end, space().parse(" \t\n\x0b\x0c\rx").end) == (0, 6)
    assert space().parse("   ", partial=True).status is S  # never "need more"
    assert status(any_char(), "", partial=True) is M
    assert status(any_char(), "") is F


# ---- until ---------------------------------------------------------------------------------------------
def test_until_stops_before_the_first_delimiter() -> None:
    p = tag("body", until("</tag>"))
    r = p.parse("abc</tag>def</tag>")
    assert (r.status, r.end, r.nodes[0].text) == (S, 3, "abc")


def test_until_one_of_takes_the_leftmost_delimiter_and_the_shortest_at_one_position() -> None:
    r = until_one_of(["</b>", "</a>"]).parse("xx</a>yy</b>")
    assert r.end == 2
    p = tag("v", until_one_of(["\n</p>", "\n</p>\n"])) + "\n</p>" + rest()
    assert p.parse("v\n</p>\n").find("v")[0].text == "v"


def test_until_holds_back_a_cut_off_delimiter_while_streaming() -> None:
    p = tag("content", until("<tool_call>")) + optional("<tool_call>" + tag("call", rest()))
    r = p.parse("Hello <tool_c", partial=True)
    assert r.status is M
    assert r.tag_texts() == {"content": "Hello "}  # "<tool_c" is neither content nor marker yet
    r = p.parse("Hello <tool_x", partial=True)
    assert r.tag_texts() == {"content": "Hello <tool_x"}


def test_until_at_end_of_final_input_lenient_and_strict() -> None:
    lenient, strict = until("</think>"), until("</think>", strict=True)
    assert (lenient.parse("abc").status, lenient.parse("abc").end) == (S, 3)
    r = strict.parse("abc")
    assert r.status is F and "'</think>'" in r.error.reason  # type: ignore[union-attr]
    # A trailing delimiter prefix on a final parse is plain text (lenient) or still a failure (strict).
    assert (lenient.parse("abc</thi").status, lenient.parse("abc</thi").end) == (S, 8)
    assert strict.parse("abc</thi").status is F
    assert status(until("</think>") + end(), "abc</th", partial=True) is M


def test_until_with_closing_branches_picks_the_branch_of_the_delimiter_found() -> None:
    body = tag("body", until_one_of(["</a>", "</b>"]))
    p = body + (literal("</a>") + "x" | literal("</b>"))
    r = p.parse("hello</a>x")
    assert (r.status, r.end, r.find("body")[0].text) == (S, 10, "hello")
    assert (p.parse("hello</b>x").status, p.parse("hello</b>x").end) == (S, 9)
    assert status(p, "hello</", partial=True) is M
    assert status(p + end(), "hello") is F  # the closer is required
    assert status(body + optional(literal("</a>")) + end(), "hello") is S


def test_rest_takes_everything() -> None:
    assert rest().parse("abc").end == 3
    assert rest().parse("abc", partial=True).status is M


# ---- recursion -----------------------------------------------------------------------------------------
def _value() -> peg.Parser:
    number = rule("number", chars("[0-9]"))
    lst = rule("list", "[" + ref("value") + "]")
    return rule("value", number | lst)


@pytest.mark.parametrize("text", ["1", "[1]", "[[2]]", "[[[3]]]"])
def test_recursive_rules(text: str) -> None:
    assert status(_value() + end(), text) is S


def test_recursive_rules_partial_and_failure() -> None:
    assert status(_value(), "[[", partial=True) is M
    assert status(_value(), "[a]") is F


def test_user_recursion_far_beyond_the_interpreter_limit_needs_no_python_recursion() -> None:
    depth = 5 * sys.getrecursionlimit()  # (JSON, scanned natively, is tested 100,000 deep)
    p = _value() + end()
    r = p.parse("[" * depth + "7" + "]" * depth)
    assert (r.status, r.end) == (S, 2 * depth + 1)
    assert p.parse("[" * depth, partial=True).status is M


def test_marker_like_choice() -> None:
    marker = ("<" + until(">") + ">") | ("[" + until("]") + "]")
    assert [status(marker + end(), s) for s in ("[marker]", "<marker>", "(marker)")] == [S, S, F]


# ---- AST -----------------------------------------------------------------------------------------------
def test_nodes_come_only_from_rules_and_tags() -> None:
    p = "<" + tag("name", chars("[a-z]")) + ">" + rule("body", tag("x", until("<")) + "<")
    r = p.parse("<abc>text<")
    assert [(n.tag, n.rule, n.start, n.end, n.text, n.partial) for n in r.nodes] == [
        ("name", "", 1, 4, "abc", False),
        ("", "body", 5, 10, "text<", False),
    ]
    assert [(n.tag, n.text) for n in r.nodes[1].children] == [("x", "text")]
    assert [n.tag or n.rule for n in r.walk()] == ["name", "body", "x"]


def test_partial_nodes_are_flagged() -> None:
    r = tag("c", until("<end>")).parse("abc", partial=True)
    assert (r.nodes[0].text, r.nodes[0].partial) == ("abc", True)


def test_atomic_drops_nodes_of_an_incomplete_child() -> None:
    name = atomic(tag("tool-name", literal("get_weather")))
    assert name.parse("get_wea", partial=True).nodes == ()
    assert name.parse("get_wea", partial=True).status is M
    assert [n.text for n in name.parse("get_weather", partial=True).nodes] == ["get_weather"]
    assert tag("tool-name", literal("get_weather")).parse("get_wea", partial=True).nodes[0].text == "get_wea"


# ---- errors --------------------------------------------------------------------------------------------
def test_failure_reports_furthest_position_expected_set_and_caret() -> None:
    p = literal("<tool_call>") + (literal("{") | literal("[")) + end()
    r = p.parse("<tool_call>(")
    assert r.status is F
    err = r.error
    assert isinstance(err, ParseError)
    assert (err.position, err.expected) == (11, ("'['", "'{'"))
    assert r.end == 11
    assert err.snippet.splitlines() == ["<tool_call>(", " " * 11 + "^"]
    assert "1:12" in str(err)


def test_rule_names_are_sanitised_and_reserved_names_refused() -> None:
    assert rule("tool-get_weather", "x").name == "tool-get-weather"  # type: ignore[attr-defined]
    for bad in ("root", "space", "a--b", "a-_b", "__", ""):
        with pytest.raises(GrammarError):
            rule(bad, "x")
    with pytest.raises(GrammarError):
        ref("json--value")


def test_dangling_ref_fails_when_the_parser_is_built() -> None:
    with pytest.raises(GrammarError, match="dangling"):
        (literal("a") + ref("missing")).parse("a")
    with pytest.raises(GrammarError, match="dangling"):
        peg.to_gbnf(literal("a") + ref("missing"))


def test_two_different_rules_with_one_name_are_refused_identical_ones_shared() -> None:
    with pytest.raises(GrammarError, match="share"):
        (rule("x", "a") + rule("x", "b")).parse("ab")
    assert (rule("x", "a") + rule("x", "a")).parse("aa").status is S


def test_left_recursion_is_refused_instead_of_looping() -> None:
    with pytest.raises(GrammarError, match="left recursion"):
        rule("e", ref("e") + "+" + "1").parse("1+1")
    with pytest.raises(GrammarError, match="left recursion"):
        rule("e", optional("x") + ref("e")).parse("x")


def test_operators_and_string_promotion() -> None:
    a = literal("a")
    assert repr("x" + a + "y") == "sequence(literal('x'), literal('a'), literal('y'))"
    assert repr("x" | a | "y") == "choice(literal('x'), literal('a'), literal('y'))"
    assert repr("x" << a) == "sequence(literal('x'), space(), literal('a'))"
    assert repr(a << "y") == "sequence(literal('a'), space(), literal('y'))"
    assert status("x" << a << "y", "x \n a\ty") is S
    with pytest.raises(TypeError):
        a + 3  # type: ignore[operator]


def test_printing_gives_the_dsl_expression_that_rebuilds_the_parser() -> None:
    p = (
        optional("<think>" + tag("reasoning", until("</think>")) + "</think>")
        + tag("content", until_one_of(["<a>", "<b>"]))
        + zero_or_more(trigger_rule("call", "<a>" << tag("args", peg.json()) << "</a>"))
        + repeat(chars("[^x]", 0, 3), 1, 2)
        + negate(peek(any_char()))
        + atomic(rule("r", peg.json_string() | peg.json_number() | rest()))
        + peg.schema(peg.json(), "args-schema", {"type": "object"})
        + choice()
        + sequence()
        + until("z", strict=True)
        + end()
    )
    namespace = {name: getattr(peg, name) for name in peg.__all__}
    rebuilt = eval(repr(p), namespace)
    assert repr(rebuilt) == repr(p)
    assert repr(p).startswith("sequence(optional(sequence(literal('<think>'), tag('reasoning', until('</think>'))")


def test_trace_prints_an_indented_log(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    (literal("a") + tag("t", literal("b"))).parse("ab", trace=True)
    lines = out.getvalue().splitlines()
    assert lines[0] == "sequence/2 @0"
    assert "  literal('a') @0 -> ok 1" in lines
    assert "  tag t @1" in lines and "    literal('b') @1 -> ok 2" in lines
    assert lines[-1] == "sequence/2 @0 -> ok 2"


@settings(max_examples=200, deadline=None)
@given(
    cls=st.sampled_from(["[a-z]", "[\\t-\\n ]", "[0-9a-fA-F_-]", "[ -~]", "[^a]", "[a-z\u00e9]"]),
    bounds=st.sampled_from([(0, -1), (1, -1), (0, 1), (1, 3), (2, 24)]),
    text=st.text(alphabet="az09_- \t\n\r\u00e9\ud800~", max_size=30),
    at=st.integers(min_value=0, max_value=30),
)
def test_a_character_run_read_by_a_loop_ends_where_its_expression_ends(
    cls: str, bounds: tuple[int, int], text: str, at: int
) -> None:
    # Compiled, a run of a small ASCII class (and a space run) is read by a loop over its characters instead of
    # its regular expression: both end at the same place, from any offset, bounded or not.
    from peg._compile import compile_program
    from peg._packrat import run_end

    op = compile_program(chars(cls, *bounds)).root
    p, n = min(at, len(text)), len(text)
    assert bool(op.members) == (cls not in ("[^a]", "[a-z\u00e9]", "[ -~]"))  # (negated, not ASCII, too many)
    if op.members:
        assert run_end(text, p, n, op.members, op.hi) == op.regex.match(text, p).end()
    space_op = compile_program(space(bounds[1])).root
    assert run_end(text, p, n, " \t\n\r\x0b\x0c", space_op.hi) == space_op.regex.match(text, p).end()


def test_a_shared_parser_entered_again_at_one_place_is_computed_once(capsys: pytest.CaptureFixture[str]) -> None:
    # Only composites with a repetition, a rule or a shared composite under them are memoised; a shared one is
    # memoised itself. Here each level tries its (shared) inner levels again at the same place: without their memo
    # entries, millions of attempts (5,242,877 trace lines); with them, a few per level and alternative (311),
    # counted as the trace's lines, not timed.
    inner: peg.Parser = literal("a")
    for _ in range(20):
        inner = choice(sequence(inner, literal("!")), inner)
    assert inner.parse("a").success
    inner.parse("a", trace=True)
    assert len(capsys.readouterr().err.splitlines()) < 1000
