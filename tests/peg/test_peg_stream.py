"""Streaming: every feed equals a partial parse of the text so far, and a feed costs what is new."""

from __future__ import annotations

import io
import itertools
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import peg
from peg import (
    Status,
    atomic,
    chars,
    choice,
    end,
    json,
    literal,
    optional,
    sequence,
    space,
    tag,
    until,
    until_one_of,
    zero_or_more,
)
from peg.errors import PegchatError, StreamClosedError

from .peg_support import json_call_format, xml_call_format

S, F, M = Status.SUCCESS, Status.FAIL, Status.NEED_MORE_INPUT

CASES = [
    (
        json_call_format(["get_weather", "get"]),
        '<think>Let me <b>check</b></think>Sure. <tool_call>\n{"name": "get_weather", "arguments": '
        '{"city": "Par\\u00eds \\"FR\\"", "days": [1, 2.5e1, -3], "ok": true}}\n</tool_call>',
    ),
    (
        xml_call_format(["search", "read"], ["query", "path"]),
        "Looking.<tool_call>\n<function=search>\n<parameter=query>\ncats\n</parameter> x\n</parameter>\n"
        "<parameter=path>\n/tmp\n</parameter>\n</function>\n</tool_call>\n",
    ),
    (tag("n", json()) + end(), '[1, 22, 333, {"k": "\\n"}, 4.5]'),
    (zero_or_more(tag("w", chars("[a-z]")) + optional(" ")) + end(), "alpha beta gamma"),
]


@pytest.mark.parametrize(("parser", "text"), CASES)
@pytest.mark.parametrize("step", [1, 2, 3, 7])
def test_every_feed_equals_a_partial_parse_and_finish_equals_a_full_parse(
    parser: peg.Parser, text: str, step: int
) -> None:
    s = parser.stream()
    for i in range(0, len(text), step):
        assert s.feed(text[i : i + step]) == parser.parse(text[: i + step], partial=True), i
    final = s.finish()
    assert final == parser.parse(text)
    assert final.status is S


class _LineCounter(io.StringIO):
    lines = 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        return len(text)


def _trace_lines_per_feed(parser: peg.Parser, text: str, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    out = _LineCounter()
    monkeypatch.setattr(sys, "stderr", out)
    s = parser.stream(trace=True)
    counts = []
    for ch in text:
        before = out.lines
        s.feed(ch)
        counts.append(out.lines - before)
    return counts


def test_a_feed_inside_long_content_does_constant_work(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = json_call_format(["f"])
    text = "<think>" + "reasoning " * 300 + "</think>" + "content " * 300
    counts = _trace_lines_per_feed(parser, text, monkeypatch)
    # The trace shows every combinator entered: late feeds do no more than early ones (no re-walk).
    assert max(counts[-1000:]) <= max(counts[20:200])
    assert max(counts[20:]) <= 12


def test_a_feed_after_thousands_of_repetitions_does_not_rewalk_them(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = "[" + zero_or_more(tag("item", chars("[0-9]")) + ",") + "]" + end()
    text = "[" + "12," * 1000
    counts = _trace_lines_per_feed(parser, text, monkeypatch)
    assert max(counts[-300:]) <= max(counts[5:100]) <= 12


def test_a_feed_inside_a_long_json_string_does_constant_work(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = json_call_format(["write"])
    text = '<tool_call>{"name": "write", "arguments": {"code": "' + "x = 1\\n" * 500
    counts = _trace_lines_per_feed(parser, text, monkeypatch)
    assert max(counts[-500:]) <= max(counts[60:200])


def test_a_result_that_never_looked_at_the_end_is_final() -> None:
    s = (literal("a") + until("z")).stream()
    assert s.feed("b").status is F
    assert s.feed("more text").status is F
    assert s.finish().status is F
    s = literal("ab").stream()
    assert s.feed("ab").status is S
    assert s.feed("cd").end == 2
    s.finish()
    with pytest.raises(StreamClosedError) as closed:
        s.feed("x")
    assert isinstance(closed.value, PegchatError) and isinstance(closed.value, RuntimeError)


def test_stream_exposes_text_and_last_result() -> None:
    s = tag("t", until("!")).stream()
    assert s.result is None
    s.feed("ab")
    last = s.feed("c")
    assert s.result is last
    assert (s.text, last.nodes[0].text) == ("abc", "abc")


def test_empty_feeds_are_harmless() -> None:
    parser = json_call_format(["f"])
    s = parser.stream()
    for piece in ["", "<think>", "", "x", "", "</think>", ""]:
        s.feed(piece)
    assert s.finish() == parser.parse("<think>x</think>")


def _shape(nodes: tuple[peg.AstNode, ...], live: int, starts: bool = True) -> object:
    """The nodes as nested tuples, with the end of the last ``live`` nodes of the rightmost path left out (and
    their start, unless ``starts``)."""
    out: list[object] = []
    for i, node in enumerate(nodes):
        last = live > 0 and i == len(nodes) - 1
        kids = _shape(node.children, live - 1 if last else 0, starts)
        start = node.start if starts or not last else None
        out.append((node.tag, node.rule, start, None if last else node.end, node.partial, kids))
    return tuple(out)


GROWING = [
    *CASES,
    (
        tag("c", until_one_of(["</x>", "<y>", "\n\n"])) + optional("</x>" + tag("t", until("!"))),
        "ab<y c</x x\n y</x>q!",
    ),
    (tag("s", json()) + end(), '{"a": "long \\" text \\u00e9 <>\\n", "b": ["x\\\\y"]}'),
    (tag("a", tag("v", json()) + "!"), '[[1, 22.5e3, {"k": [true, null, "x\\u00e9"]}], -0.5, [[[]]], 7]!'),
    # Markers in sequence: literals, spaces and character runs after a cut literal (a run of them is followed).
    (
        zero_or_more(
            tag(
                "call",
                "<call>" + space(2) + chars("[a-z]", 1, 4) + "=" + chars("[0-9]", 2) + tag("v", until("</call>")),
            )
            + "</call>"
            + space()
        )
        + end(),
        "<call> ab=12 x</call>\n<call>\n\nabcd=345y</call> <call>z=9</call>",
    ),
    # A marker after spaces that looked at the end: text that starts with a space would lengthen them.
    (
        tag("a", "<a>" + until("</a>"))
        + "</a>"
        + space()
        + choice("<b>", "<bc>" + space(3) + "<d>")
        + tag("v", until("!"))
        + "!"
        + space()
        + end(),
        "<a>x</a> \n <bc>  <d>yy! ",
    ),
    # A text node after a space that looked at the end.
    (
        "<a>" + space() + tag("c", until("<x>")) + "<x>" + space() + "<b>" + space() + chars("[a-z ]") + "!",
        "<a>  b c<x> <b>  x y!",
    ),
    # Past the end of the marker's sequence: through choices, an optional item and the sequence around them.
    (
        zero_or_more(
            tag(
                "m",
                "<s>"
                + choice(sequence("<a", optional(sequence("b", space(1), ">")), "|"), "<c>")
                + "<v>"
                + tag("t", until("</m>"))
                + "</m>",
            )
        )
        + end(),
        "<s><ab >|<v>x</m><s><c><v>yy</m><s><a|<v></m><s><ab>|<v>z</m>",
    ),
    # A marker followed by an atomic group: the group is entered (its nodes are not shown while it is open).
    (
        zero_or_more("<k>" + space() + atomic(tag("name", literal("key"))) + "</k>" + tag("v", until("</v>")) + "</v>")
        + end(),
        "<k> key</k>1</v><k>kex</k>2</v><k>\nkey</k>3</v>",
    ),
    # ... and a choice inside it (tool names): its alternatives in order, the first that does not fail decides.
    (
        zero_or_more(
            "<k>"
            + atomic(tag("name", choice("get_weather", "get", sequence("g", space(), "x"))))
            + "</k>"
            + tag("v", until("</v>"))
            + "</v>"
        )
        + end(),
        "<k>get</k>1</v><k>get_weather</k>2</v><k>g  x</k>3</v><k>gex</k>4</v>",
    ),
    # Inside an open atomic group the nodes are not shown: a tag around a literal is followed as the literal.
    (
        zero_or_more(
            atomic(tag("open", "<k>" + tag("name", literal("key")) + "</k>" + space() + "<v>"))
            + tag("val", until("</v>"))
            + "</v>"
        )
        + end(),
        "<k>key</k> <v>1</v><k>key</k>\n<v>2</v><k>kex</k><v>3</v>",
    ),
]


@pytest.mark.parametrize(("parser", "text"), GROWING)
@settings(max_examples=40, deadline=None)
@example(cuts=[220, 1235], insert=(0, 0, 0), read=False)  # (a newline then a marker after a space at the end)
@given(
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=30),
    insert=st.tuples(st.integers(min_value=0), st.integers(min_value=0), st.integers(0, 6)),
    read=st.booleans(),
)
def test_extend_takes_only_text_that_lengthens_the_live_path(
    parser: peg.Parser, text: str, cuts: list[int], insert: tuple[int, int, int], read: bool
) -> None:
    where, src, size = insert
    at, frm = where % (len(text) + 1), src % (len(text) + 1)
    text = text[:at] + text[frm : frm + size] + text[at:]
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    s = parser.stream()
    last = None
    for a, b in itertools.pairwise(points):
        more = text[a:b]
        growth = s.growth()
        grown = s.extend(more) if growth is not None else None
        if grown is not None:
            assert last is not None and last.status is M
            grown_end = last.end + len(grown)
            assert grown == text[last.end : grown_end] and text[grown_end:b] == growth.held
            now = parser.parse(text[:b], partial=True)
            # The same tree, the live path's nodes (tags and starts as growth says) ending later by ``grown``
            # (and, after whitespace before a marker, the nodes that begin at it beginning later: ``shifts``).
            assert now.status is M and now.end == grown_end
            live = len(growth.tags)
            assert _shape(now.nodes, live, not growth.shifts) == _shape(last.nodes, live, not growth.shifts)
            path, level = [], now.nodes
            for _ in growth.tags:
                path.append(level[-1])
                level = level[-1].children
            path.reverse()
            assert [(n.tag, n.start, n.end, n.partial) for n in path] == [
                (t, st_, grown_end, True) for t, st_ in zip(growth.tags, growth.starts, strict=True)
            ]
            if read:
                assert s.result == now
            last = now
        else:
            last = s.feed(text[a:b])
            assert last == parser.parse(text[:b], partial=True)
    assert s.text == text
    assert s.finish() == parser.parse(text)


def test_extend_refuses_text_that_ends_the_scan() -> None:
    parser = tag("c", until("</x>")) + "</x>"
    s = parser.stream()
    assert s.extend("a") is None  # nothing fed yet
    s.feed("ab")
    g = s.growth()
    assert g is not None and (g.tags, g.starts, g.held) == (("c",), (0,), "")
    assert s.extend("c<") == "c" and g.held == "<"  # "<" may start the delimiter: held back
    assert s.extend("/x>") is None  # completes the delimiter: the scan ends
    assert s.extend("\ud800") is None  # an undecodable byte fails the leaf
    assert s.extend("y d") == "<y d"  # the held "<" started no delimiter after all
    assert s.text == "abc<y d"
    assert s.feed("</x>").status is S
    assert s.growth() is None and s.extend("z") is None


def test_extend_continues_after_held_text() -> None:
    parser = tag("c", until("</x>")) + "</x>"
    s = parser.stream()
    assert s.feed("ab</").end == 2
    g = s.growth()
    assert g is not None and g.held == "</"
    assert s.extend("") == "" and s.extend("x") == ""  # still the start of the delimiter: held
    assert s.extend("y z") == "</xy z"  # it was no delimiter: the node grows by the held text and the new text
    assert s.result == parser.parse("ab</xy z", partial=True)
    j = (tag("s", json()) + end()).stream()
    assert j.feed('"a\\').end == 2  # a dangling escape is held
    assert j.extend("nb") == "\\nb"
    assert j.extend("c\\u00") == "c"  # a new dangling escape
    assert j.extend("e9d") == "\\u00e9d"
    assert j.extend('"') is None  # the string ends
    assert j.finish().status is F


def test_extend_inside_a_cut_literal() -> None:
    parser = tag("c", until("<")) + "<|start|>" + tag("d", until("!"))
    s = parser.stream()
    s.feed("ab<|st")
    g = s.growth()
    assert g is not None and g.literal and g.tags == ()
    assert s.extend("art|") == "art|"  # still a proper prefix of the literal: nothing changes but the end
    assert s.extend(">") is None  # completes it: the parse moves on
    assert s.extend("x") is None  # no longer the literal
    assert s.feed(">x").nodes[-1].text == "x"
    assert s.finish() == parser.parse("ab<|start|>x")


def test_extend_inside_nested_json_then_feed_gives_the_one_shot_parse() -> None:
    """Text taken by ``extend`` inside a JSON value is scanned once (the scan hands its state to the machine);
    the next feed then parses exactly what a one-shot parse of all the text gives, at every depth."""
    parser = sequence(tag("v", json()), end())
    text = "[" * 300 + '{"k": "' + "text " * 20 + 'a\\u00e9"}' + "]" * 300
    s = parser.stream()
    s.feed(text[:3])
    taken = 0
    for i in range(3, len(text), 4):
        more = text[i : i + 4]
        if s.extend(more) is not None:
            taken += 1
            if taken % 50 == 0:
                assert s.result == parser.parse(text[: i + 4], partial=True)
        else:
            assert s.feed(more) == parser.parse(text[: i + 4], partial=True)
    assert taken > 100
    assert s.finish() == parser.parse(text)


def test_result_after_reading_the_text_includes_the_text_taken_by_extend() -> None:
    """Reading ``text`` appends the text extend() took to the machine's; the result read afterwards parses it
    (it is not the result of the last feed)."""
    parser = "<a>" + tag("c", until("</a>")) + "</a>"
    s = parser.stream()
    s.feed("<a>x")
    assert s.extend("yz") == "yz"
    assert s.text == "<a>xyz"
    assert s.result == parser.parse("<a>xyz", partial=True)
    assert s.finish() == parser.parse("<a>xyz")
    assert s.result == parser.parse("<a>xyz")


def test_extend_takes_whitespace_that_lengthens_the_space_leading_to_the_marker() -> None:
    """After a space that looked at the end, the marker being written starts where that space stops: a newline
    lengthens the space and the marker (and the node that begins at it) begins later. Only composites being
    entered lie between the space and the marker, so the machine parses the newline the same way: the growth
    takes it and says that it shifts nodes (``shifts``); a character that continues neither is refused."""
    parser = "<a>" + until("</a>") + "</a>" + space() + choice(tag("x", "\n<b>"), tag("y", "<c>")) + until("!")
    s = parser.stream()
    s.feed("<a>1</a>")
    g = s.growth()
    assert g is not None and g.tags == ("x",) and g.starts == (8,) and g.literal and g.shifts
    assert s.extend("\n") == "\n"  # the space takes it: x now starts at 9
    assert g.starts == (9,)
    assert s.result == parser.parse("<a>1</a>\n", partial=True)
    assert s.result is not None and s.result.nodes[-1].start == 9
    assert s.extend("<") is None  # no continuation of "\n<b>": the other alternative decides
    assert s.feed("<c>z") == parser.parse("<a>1</a>\n<c>z", partial=True)


def test_extend_enters_an_atomic_group_after_the_marker_and_stops_before_it_closes() -> None:
    """Text that completes a marker and stops inside the atomic group after it (a tool name being written) is
    taken: the group shows no node while it is open. Text that completes the group is parsed (its nodes show)."""
    parser = "<c>" + space() + '{"name": "' + atomic(tag("name", literal("get_weather"))) + '"' + tag("a", until("}"))
    s = parser.stream()
    s.feed('<c>{"na')
    g = s.growth()
    assert g is not None and g.literal and g.tags == ()
    assert s.extend('me": "get_') == 'me": "get_'
    assert s.result == parser.parse('<c>{"name": "get_', partial=True)
    assert s.extend("weather") is None  # closes the group: its node shows
    assert s.feed("weather") == parser.parse('<c>{"name": "get_weather', partial=True)
    assert s.result is not None and s.result.nodes[0].tag == "name"


def test_extend_runs_a_choice_inside_the_atomic_group_after_the_marker() -> None:
    """A choice of names inside the group after a marker: text is taken while the machine would stop inside an
    alternative (the first that does not fail), refused once one matches whole (the group would close)."""
    parser = "<c>" + atomic(tag("name", choice("get_weather", "get", "go"))) + "</c>" + tag("a", until("!"))
    s = parser.stream()
    s.feed("<c")
    assert s.extend(">ge") == ">ge"  # inside "get_weather" (the first alternative)
    assert s.extend("t_w") == "t_w"
    assert s.result == parser.parse("<c>get_w", partial=True)
    assert s.extend("x") is None  # "get_wx": "get_weather" fails, "get" matches whole: the group would close
    t = parser.stream()
    t.feed("<c")
    assert t.extend(">g") == ">g"
    assert t.extend("o") is None  # "go" matches whole: the group closes
    assert t.feed("o") == parser.parse("<c>go", partial=True)


def test_extend_refuses_whitespace_when_a_space_and_the_marker_are_apart() -> None:
    """When an item lies between the space that looked at the end and the marker (here an optional tag that
    matched nothing), whitespace would lengthen the space but the path to the marker is not only entering
    composites: the growth does not lead with the space, and text starting with whitespace is refused."""
    parser = "<a>" + space() + optional(tag("o", "?")) + tag("x", "<b>") + until("!")
    s = parser.stream()
    s.feed("<a>")
    g = s.growth()
    assert g is None or not g.shifts
    assert s.extend("\n<") is None
    assert s.feed("\n<") == parser.parse("<a>\n<", partial=True)


def test_extend_after_whitespace_taken_before_the_marker_matches_every_chunking() -> None:
    """Whitespace then the start of a marker after a space that looked at the end (a chat format's newline
    before its next parameter), taken by extend in any chunking, parses as one feed would."""
    param = space() + tag("p", "<parameter=" + until(">") + ">")
    parser = "<f>" + param + param + space() + "</f>"
    text = "<f>\n<parameter=a>\n  <parameter=b>\n</f>"
    s = parser.stream()
    s.feed(text[:17])  # "<f>\n<parameter=a>": a space looked at the end, then the next marker is cut
    g = s.growth()
    assert g is not None and g.shifts
    assert s.extend(text[17:24]) == "\n  <par"
    assert s.result == parser.parse(text[:24], partial=True)
    for cut in range(4, len(text)):
        s = parser.stream()
        s.feed(text[:3])
        taken = []
        for piece in (text[3:cut], text[cut:]):
            if s.extend(piece) is None:
                s.feed(piece)
            else:
                taken.append(piece)
        assert s.result == parser.parse(text, partial=True), (cut, taken)
        assert s.finish() == parser.parse(text)


def test_extend_after_a_space_that_looked_at_the_end_is_refused_inside_a_scanner() -> None:
    """A text node that starts after a space which looked at the end would start later if the next text began
    with a space: such a scanner is parsed, not extended."""
    parser = "<a>" + space() + tag("c", until("<x>")) + "<x>"
    s = parser.stream()
    s.feed("<a>")
    assert s.extend(" b") is None
    assert s.feed(" b") == parser.parse("<a> b", partial=True)
    assert s.result is not None and s.result.nodes[0].start == 4


def test_feeds_inside_a_marker_cut_by_the_end_equal_partial_parses() -> None:
    # A feed that leaves the text inside a literal takes a short path (nothing but the unwinding of the live
    # path): it must give the partial parse, nodes and all, at every cut.
    parser = tag("body", until("<tool_call>")) + tag("call", literal("<tool_call>") + tag("args", json())) + end()
    text = 'hello <tool_call>{"a": [1, 2]}'
    s = parser.stream()
    for i, ch in enumerate(text, 1):
        got = s.feed(ch)
        want = parser.parse(text[:i], partial=True)
        assert (got.status, got.end, got.nodes) == (want.status, want.end, want.nodes), text[:i]
    assert s.finish() == parser.parse(text)


def test_repetition_bounds_beyond_machine_integers_mean_the_same() -> None:
    # Bounds are held as C integers when the machine is compiled: a larger bound is one no count reaches.
    many = peg.repeat(literal("a"), 0, 10**30)
    assert many.parse("aaa").status is Status.SUCCESS and many.parse("aaa").end == 3
    too_many = peg.repeat(literal("a"), 10**30, -1)
    assert too_many.parse("aaa").status is Status.FAIL
    assert too_many.parse("aaa", partial=True).status is Status.NEED_MORE_INPUT


def test_a_streams_methods_can_be_wrapped_on_the_instance() -> None:
    # Callers (and tests) count or intercept feeds by wrapping the bound method on one stream.
    s = (tag("c", until("<")) + "<").stream()
    seen: list[str] = []
    feed = s.feed

    def counting(more: str) -> peg.ParseResult:
        seen.append(more)
        return feed(more)

    s.feed = counting  # type: ignore[method-assign]
    assert s.feed("ab").status is Status.NEED_MORE_INPUT and seen == ["ab"]


def test_text_of_a_str_subclass_parses_as_its_plain_text() -> None:
    class Marked(str):
        __slots__ = ()

    parser = tag("c", until("<x>")) + "<x>"
    assert parser.parse(Marked("ab<x>")) == parser.parse("ab<x>")
    s = parser.stream()
    assert s.feed(Marked("ab")).nodes == parser.parse("ab", partial=True).nodes
    assert s.feed(Marked("<x>")).status is Status.SUCCESS


def test_a_streams_nodes_are_left_to_reference_counting_when_compiled() -> None:
    # Compiled, the nodes a stream makes, their children and the memo's results are not tracked by the cyclic
    # garbage collector (no cycle can pass through them): a long stream does not grow the collector's work. As pure
    # Python, CPython tracks them as usual. Either way collections mid-stream change nothing.
    import gc

    import peg._packrat

    compiled = not peg._packrat.__file__.endswith(".py")
    item = tag("item", sequence(literal("<i>"), tag("v", until("</i>")), literal("</i>")))
    parser = zero_or_more(sequence(item, space()))
    text = "".join(f"<i>value {k}</i>\n" for k in range(300))
    stream = parser.stream()
    gc.collect()
    before = len(gc.get_objects())
    for at in range(0, len(text), 7):
        result = stream.feed(text[at : at + 7])
        if at % 700 == 0:
            gc.collect()
    gc.collect()
    grown = len(gc.get_objects()) - before
    nodes = [node for node in result.walk()]
    assert len(nodes) == 600 and result == parser.parse(text, partial=True)
    assert all(gc.is_tracked(node) is not compiled for node in nodes)
    assert all(gc.is_tracked(node.children) is not compiled for node in nodes if node.children)
    if compiled:
        assert grown < 100  # (as Python: every node, children tuple and memo result stays tracked)
    else:
        assert grown > 600


@pytest.mark.parametrize(
    ("run", "text", "refused"),
    [
        ("<a>" + space() + "<b>", "<a> \t\n <b>!", 9),  # a space between two markers grows, then the next one
        ("<a>" + space(2) + "<b>", "<a>  <b>!", 7),  # a bounded space that fills up exactly at the end
        ("<a>" + space(1) + "<b>", "<a>  <b>!", 4),  # ... and one that fills up before the end: the parse fails
        ("<a>" + chars("[a-z]", 1, 3) + "<b>", "<a>xyz<b>!", 8),
        ("<a>" + choice("<xy>", "<x>") + space() + "<b>", "<a><xy> <b>!", 10),
    ],
)
def test_extend_one_character_at_a_time_through_a_marker_run_matches_the_parse(
    run: peg.Parser, text: str, refused: int
) -> None:
    """A marker run taken a character at a time: each take rescans only from the first item that reached the end
    of the text last time (an item that ended before it keeps its match). The lane takes every character until
    the one at ``refused`` (which completes the run or fails it), and each result is what a parse gives."""
    parser = tag("c", until("<")) + run + tag("d", until("!")) + "!"
    for start in range(1, 4):
        s = parser.stream()
        s.feed("t" + text[:start])
        taken = []
        for at in range(start, len(text)):
            if s.extend(text[at]) is None:
                assert s.feed(text[at]) == parser.parse("t" + text[: at + 1], partial=True), (start, at)
            else:
                taken.append(at)  # (not reading the result: that would parse, and start the next take afresh)
        assert taken == list(range(start, refused)), start
        assert s.finish() == parser.parse("t" + text)


@settings(max_examples=200, deadline=None)
@given(
    delims=st.sampled_from([("</a>",), ("</a>", "<b"), ("</a>", "<b", "/x>"), ("ab", "b", "</a>")]),
    text=st.text(alphabet="ab</>x", min_size=1, max_size=24),
    cuts=st.lists(st.integers(min_value=0, max_value=24), max_size=4),
)
def test_until_stops_at_the_leftmost_delimiter_and_holds_back_a_cut_one(
    delims: tuple[str, ...], text: str, cuts: list[int]
) -> None:
    # Compiled, the until leaf finds its delimiters by a search for each and the held-back start by a loop over
    # the last characters (the pure source: regular expressions); any chunking gives the same.
    parser = tag("t", until_one_of(list(delims)))
    found = [at for at in (text.find(d) for d in delims) if at >= 0]
    longest = max(len(d) for d in delims)
    cut = [q for q in range(max(0, len(text) - longest + 1), len(text)) if any(d.startswith(text[q:]) for d in delims)]
    expected = (S, min(found)) if found else (M, cut[0] if cut else len(text))
    stream = parser.stream()
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    for a, b in itertools.pairwise(points):
        result = stream.feed(text[a:b])
    assert (result.status, result.end) == expected
    assert result == parser.parse(text, partial=True)
