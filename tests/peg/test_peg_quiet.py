"""Quiet tags: ``extend`` takes text that opens and closes only nodes whose tags the caller declared quiet.

The law: text taken is parsed at the next feed exactly as if fed then, and the partial parse of the longer text
differs from the last one only by quiet nodes (opened, closed, grown; a repetition of them that stopped at the
end of the text going on) and by the non-quiet nodes on the live path ending later; a non-quiet node never opens
or closes inside taken text.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import peg
from peg import (
    QuietTags,
    Status,
    atomic,
    chars,
    choice,
    end,
    literal,
    optional,
    peek,
    rule,
    space,
    tag,
    until,
    zero_or_more,
)

from .peg_support import json_call_format, xml_call_format

M, S = Status.NEED_MORE_INPUT, Status.SUCCESS


def _calls(names: list[str]) -> peg.Parser:
    """A chat-like output: content, then blocks of calls (a name in an atomic head, a peek after it, arguments:
    a key in an atomic group, then digits) separated by whitespace."""
    head = atomic(tag("head", "<call>" + tag("name", choice(*names)) + peek(chars("[\\n ]", 1, 1))))
    key = atomic(tag("key", "<k>" + chars("[a-z]", 1, 8) + "</k>"))
    arg = tag("arg", key + tag("value", chars("[0-9]", 1, 6)) + "</v>")
    note = tag("note", "<n>" + optional(" ") + tag("text", until("</n>")) + "</n>")  # (text is never quiet)
    call = tag("call", head + space(max=4) + zero_or_more(choice(arg, note) + space(max=2)) + "</call>")
    block = tag("block", rule("one-call", call))
    return tag("content", until("<call>")) + zero_or_more(block + space(max=8)) + end()


CALLS = _calls(["f", "find"])
CALLS_TEXT = (
    "Hi.<call>f <k>a</k>1</v>\n</call>\n\n<call>find\n<k>bb</k>22</v> <n> so</n><k>c</k>3</v></call> <call>f\n</call>"
)
# Arguments and their values may open, not close; calls, blocks and keys may also close.
CROSSING = QuietTags(opening=("", "block", "call", "arg", "key", "value"), closing=("", "block", "call", "key"))
WATCHED_BLOCKS = QuietTags(opening=("", "block", "call", "arg", "key", "value"), closing=("", "call", "key"))
# Calls and notes may close as well, and say so (the chat stream sends what their closing adds); a note's text may
# close, so its ``until`` takes the delimiter and goes on.
MARKED = QuietTags(
    opening=(*CROSSING.opening, "note"), closing=(*CROSSING.closing, "text"), marked=("note", "call", "block")
)
# Deep: arguments close inside the calls' iterations too (marked), keys and values report where they open and end,
# and the items after a note's text are followed.
DEEP = QuietTags(
    opening=MARKED.opening,
    closing=(*MARKED.closing, "value"),
    marked=("note", "call", "block", "arg"),
    spans=("key", "value"),
)
LAW_CASES = [
    (CALLS, CALLS_TEXT, CROSSING),
    (CALLS, CALLS_TEXT, MARKED),
    (CALLS, CALLS_TEXT, DEEP),
    (CALLS, CALLS_TEXT, WATCHED_BLOCKS),
    (
        xml_call_format(["search", "read"], ["query", "path"]),
        "Looking.<tool_call>\n<function=search>\n<parameter=query>\ncats\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=read>\n<parameter=path>\n/tmp\n</parameter>\n</function>\n</tool_call>\n",
        QuietTags(opening=("", "tool", "arg-name"), closing=("", "arg-name")),
    ),
    (
        json_call_format(["get_weather", "get"]),
        '<tool_call>\n{"name": "get", "arguments": {}}\n</tool_call>\n<tool_call>{"name": "get_weather", '
        '"arguments": {"a": 1}}</tool_call>',
        QuietTags(opening=("", "tool"), closing=("",)),
    ),
]


def _visible(nodes: tuple[peg.AstNode, ...], quiet: frozenset[str], out: dict[tuple[str, int], object]) -> None:
    """The nodes whose tags are not quiet, by (tag, start): (end, partial, rule) — under quiet ones too."""
    for node in nodes:
        if node.tag not in quiet:
            out[(node.tag, node.start)] = (node.end, node.partial, node.rule)
        _visible(node.children, quiet, out)


def _check_law(parser: peg.Parser, text: str, quiet: QuietTags, points: list[int]) -> None:
    """Feed ``text`` cut at ``points`` (taking what ``extend`` takes) and check the law of the module docstring."""
    quiet_tags = quiet.opening | quiet.closing
    s = parser.stream(quiet=quiet)
    last = None
    for a, b in itertools.pairwise(points):
        more = text[a:b]
        grown = s.extend(more) if s.growth() is not None else None
        if grown is not None:
            # (A success may look at the end: a repetition stopped there, and taken text may end the parse there.)
            assert last is not None and last.status in (M, S)
            now = parser.parse(text[:b], partial=True)
            assert now.status in (M, S) and now.end == last.end + len(grown)
            assert text[last.end : now.end] == grown and text[now.end : b] == s.growth().held  # type: ignore[union-attr]
            before: dict[tuple[str, int], object] = {}
            after: dict[tuple[str, int], object] = {}
            _visible(last.nodes, quiet_tags, before)
            _visible(now.nodes, quiet_tags, after)
            assert after.keys() == before.keys(), b  # no node that is not quiet opened or closed
            for key, (end_, partial, rule_) in before.items():  # type: ignore[misc]
                # A complete one is as it was; a partial one (on the live path) is partial still, ending later.
                assert after[key] == ((now.end if partial else end_), partial, rule_), (key, b)
            last = now
        else:
            last = s.feed(more)
            assert last == parser.parse(text[:b], partial=True)
    assert s.finish() == parser.parse(text)


@pytest.mark.parametrize(("parser", "text", "quiet"), LAW_CASES)
@pytest.mark.parametrize("step", [1, 2, 3, 5])
def test_text_taken_in_pieces_of_a_few_characters_changes_only_quiet_nodes(
    parser: peg.Parser, text: str, quiet: QuietTags, step: int
) -> None:
    _check_law(parser, text, quiet, [*range(0, len(text), step), len(text)])


@pytest.mark.parametrize(("parser", "text", "quiet"), LAW_CASES)
@settings(max_examples=100, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40),
    insert=st.tuples(st.integers(min_value=0), st.integers(min_value=0), st.integers(0, 8)),
)
def test_text_taken_changes_only_quiet_nodes_and_the_live_path_end(
    parser: peg.Parser, text: str, quiet: QuietTags, cuts: list[int], insert: tuple[int, int, int]
) -> None:
    where, src, size = insert  # (a piece of the text copied elsewhere: duplicated or cut markers)
    at, frm = where % (len(text) + 1), src % (len(text) + 1)
    text = text[:at] + text[frm : frm + size] + text[at:]
    _check_law(parser, text, quiet, sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)}))


def _fed(parser: peg.Parser, quiet: QuietTags | None, *pieces: str) -> peg.Stream:
    s = parser.stream(quiet=quiet)
    for piece in pieces:
        s.feed(piece)
    return s


def test_a_marker_that_closes_a_call_and_its_block_and_opens_the_next_is_taken() -> None:
    parser = CALLS
    s = _fed(parser, CROSSING, "<call>f\n</ca")
    assert s.extend("ll>\n<call>f") == "ll>\n<call>f"  # closes the call and its block, opens the next two
    assert s.extend(" ") is None  # the head would close and show the call's name: parse
    assert s.feed(" ") == parser.parse("<call>f\n</call>\n<call>f ", partial=True)


def test_without_quiet_tags_no_node_opens_or_closes_inside_taken_text() -> None:
    parser = CALLS
    s = _fed(parser, None, "<call>f\n</ca")
    assert s.extend("ll>") is None  # the call would close
    assert s.extend("l") == "l"


def test_a_node_that_is_not_quiet_stops_the_run() -> None:
    parser = CALLS
    watched_blocks = QuietTags(opening=("", "block", "call"), closing=("", "call"))
    s = _fed(parser, watched_blocks, "<call>f\n</ca")
    assert s.extend("ll>\n") is None  # the call may close, its block may not
    assert s.extend("ll") == "ll"


def test_an_argument_key_appears_and_its_value_opens_but_does_not_close() -> None:
    parser = CALLS
    s = _fed(parser, CROSSING, "<call>f <k")
    assert s.extend(">ab</k>12") == ">ab</k>12"  # the key appears, the value opens (digits may follow)
    assert s.extend("</") is None  # the value would close: parse
    assert s.feed("</") == parser.parse("<call>f <k>ab</k>12</", partial=True)


def test_quiet_tags_given_to_growth_apply_until_the_next_feed() -> None:
    parser = CALLS
    watched_keys = QuietTags(opening=("", "block", "call", "arg", "value"), closing=("", "block"))
    s = _fed(parser, watched_keys, "<call>f <k")
    assert s.extend(">ab</k>1") is None  # the key would appear
    assert s.growth(CROSSING) is not None
    assert s.extend(">ab</k>1") == ">ab</k>1"
    assert s.growth(watched_keys) is s.growth()  # text was taken: the growth in use stays


def test_quiet_tags_must_be_quiet_tags() -> None:
    with pytest.raises(TypeError, match="QuietTags"):
        literal("a").stream(quiet=frozenset({"a"}))  # type: ignore[arg-type]
    assert "opening=['', 'block']" in repr(QuietTags(opening=("block", "")))


def test_a_node_on_the_live_path_closes_only_when_quiet() -> None:
    s = _fed(CALLS, CROSSING, "<call>f <k>a</k>1</v")
    assert s.extend("> <") is None  # the argument would close
    arguments_close = QuietTags(opening=CROSSING.opening, closing=(*CROSSING.closing, "arg"))
    s = _fed(CALLS, arguments_close, "<call>f <k>a</k>1</v")
    assert s.extend("> <") == "> <"  # it closes; the next argument may begin
    assert s.feed("k") == CALLS.parse("<call>f <k>a</k>1</v> <k", partial=True)


def test_an_optional_item_at_the_end_of_the_text_is_passed_over_as_the_machine_does() -> None:
    # At the end of the text the machine does not try an optional item (more text may come): what follows it
    # opens, here a node that is not quiet, so the text is parsed.
    notes = QuietTags(opening=(*CROSSING.opening, "note"), closing=(*CROSSING.closing, "arg"))
    s = _fed(CALLS, notes, "<call>f <k>a</k>1</v")
    assert s.extend("> <n") == "> <n"
    assert s.extend(">") is None  # the optional space is passed over: "text" would open
    assert s.feed(">") == CALLS.parse("<call>f <k>a</k>1</v> <n>", partial=True)


def test_a_look_ahead_whose_items_reach_what_is_not_followed_is_parsed() -> None:
    parser = "<a" + peek(until("!")) + tag("t", until("?")) + "?"
    s = _fed(parser, None, "<")
    assert s.extend("a") == "a"  # the look-ahead's scan needs more input: the live path ends where it stands
    assert s.extend("b!") is None  # it succeeds: what follows it is not followed
    assert s.feed("b!") == parser.parse("<ab!", partial=True)


def test_a_repetition_that_stopped_at_the_end_of_the_text_goes_on_when_its_nodes_are_quiet() -> None:
    text = "<call>f\n</call>"
    s = _fed(CALLS, CROSSING, text)
    assert s.result is not None and s.result.status is S  # (it looked at the end: more text may come)
    assert s.extend("\n<call>f") == "\n<call>f"  # another block: the repetition goes on
    assert s.feed(" ") == CALLS.parse(text + "\n<call>f ", partial=True)
    assert _fed(CALLS, None, text).growth() is None  # without quiet tags, what is complete stays so


def test_a_take_says_which_marked_nodes_it_closed_in_the_order_they_closed() -> None:
    s = _fed(CALLS, MARKED, "<call>f\n</ca")
    growth = s.growth()
    assert growth is not None and growth.closed() == ()
    assert s.extend("ll") == "ll" and growth.closed() == ()  # (the call's closer is not complete yet)
    assert s.extend(">\n<call>f") == ">\n<call>f"
    assert growth.closed() == ("call", "block")  # the call closed, then its block; the next ones opened
    assert s.feed(" ") == CALLS.parse("<call>f\n</call>\n<call>f ", partial=True)


def test_a_marked_node_inside_an_atomic_group_closes_where_the_group_closes() -> None:
    parser = atomic(tag("k", "<k>") + "!!") + tag("rest", until("."))
    quiet = QuietTags(opening=("k", "rest"), marked=("k",))
    s = _fed(parser, quiet, "<k")
    growth = s.growth()
    assert growth is not None
    assert s.extend(">!") == ">!" and growth.closed() == ()  # closed inside the group, which is open still
    assert s.extend("!") == "!" and growth.closed() == ("k",)  # (the rest's scan needs more input)
    assert s.feed("x") == parser.parse("<k>!!x", partial=True)


def test_an_until_takes_its_delimiter_and_what_follows_when_its_nodes_may_close() -> None:
    s = _fed(CALLS, MARKED, "<call>f <n> so")
    growth = s.growth()
    assert growth is not None and not growth.literal and growth.crossed == -1
    assert s.extend("me") == "me"  # the text grows
    assert s.extend(" more</n> ") == " more</n> "  # the text closes, then the note: the call may go on
    assert growth.literal and growth.crossed == len(" more")  # (what the text grew by, in that take)
    assert growth.closed() == ("note",)
    assert s.extend("</call") == "</call"
    assert s.feed(">") == CALLS.parse("<call>f <n> some more</n> </call>", partial=True)


def test_an_until_does_not_take_its_delimiter_when_a_node_after_it_may_not_close() -> None:
    s = _fed(CALLS, CROSSING, "<call>f <n> so")  # (no marks: its delimiter is parsed)
    assert s.extend("me</n>") is None
    s = _fed(CALLS, MARKED, "<call>f <n> so")
    assert s.extend("me</n> <k>a</k>1</v>") is None  # an argument would close inside an iteration: parsed
    assert s.extend("me</n> <k>a</k>1") == "me</n> <k>a</k>1"  # (its key appears, its value opens)


def test_marked_tags_are_closing_tags_and_print() -> None:
    assert MARKED.closing >= MARKED.marked
    assert "marked=['block', 'call', 'note']" in repr(MARKED)


def _expected_events(nodes: tuple[peg.AstNode, ...], since: int, out: list[tuple[str, int, int]]) -> None:
    """The events a deep take from ``since`` reports for the nodes of a parse (pre-order): a key's and a value's
    start and end if it opens at or after ``since``, an argument's closing where it ends if it closed after it."""
    for node in nodes:
        if node.tag in ("key", "value") and node.start >= since:
            out.append((node.tag, peg.OPENS, node.start))
            _expected_events(node.children, since, out)
            if not node.partial:
                out.append((node.tag, peg.ENDS, node.end))
            continue
        _expected_events(node.children, since, out)
        if node.tag == "arg" and node.end > since and not node.partial:
            out.append(("arg", peg.CLOSES, node.end))


@pytest.mark.parametrize("cut", [10, 12, 16, 21, 25, 30])
def test_deep_takes_report_where_nodes_open_end_and_close_inside_iterations(cut: int) -> None:
    """The events of the text taken are those of the parse of the longer text, at the same offsets."""
    text = "<call>f <k>ab</k>12</v> <k>c</k>345"
    s = _fed(CALLS, DEEP, text[:9])  # (the live leaf: the first key's opener, "<")
    growth = s.growth()
    assert growth is not None
    assert s.extend(text[9:cut]) == text[9:cut] and s.extend(text[cut:]) == text[cut:]
    base = len(text) - len(growth.run_text())
    got = [(tag_, kind, base + at) for tag_, kind, at in growth.events()]
    expected: list[tuple[str, int, int]] = []
    _expected_events(CALLS.parse(text, partial=True).nodes, 9, expected)
    assert got == expected and len(expected) == 6  # the second key, two values (the last open), an argument closed
    assert growth.closed() == ("arg",)
    assert s.feed("6") == CALLS.parse(text + "6", partial=True)


def test_a_deep_take_fails_where_the_alternative_it_took_fails() -> None:
    """After a take, a choice is narrowed to the alternative that did not fail: text on which that one fails is
    parsed (the machine tries the next alternative), and the parse is the same."""
    s = _fed(CALLS, DEEP, "<call>f <")
    assert s.extend("k") == "k"
    s = _fed(CALLS, DEEP, "<call>f <")
    growth = s.growth()
    assert growth is not None and s.extend("") == ""
    assert s.extend("n") is None  # (a note: the argument's key, the alternative taken first, fails)
    assert s.feed("n> x") == CALLS.parse("<call>f <n> x", partial=True)


def test_deep_quiet_tags_print_their_spans() -> None:
    assert DEEP.deep and not MARKED.deep
    assert "spans=['key', 'value']" in repr(DEEP)
