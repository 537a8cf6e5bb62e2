"""Unicode (§8.3 of the reference): code points, ranges, and UTF-8 bytes that are cut off or invalid."""

from __future__ import annotations

import pytest

from peg import Status, any_char, chars, end, json_string_content, one_or_more, tag, to_gbnf, until

from .peg_support import accepts, load_everywhere

S, F, M = Status.SUCCESS, Status.FAIL, Status.NEED_MORE_INPUT
ANY = one_or_more(any_char()) + end()


@pytest.mark.parametrize("text", ["plain ascii", "caf\u00e9 na\u00efve", "\u4e2d\u6587\u5b57", "rocket \U0001f680 ok"])
def test_any_char_takes_whole_code_points(text: str) -> None:
    r = ANY.parse(text)
    assert (r.status, r.end) == (S, len(text))
    assert ANY.parse(text.encode()).end == len(text)


@pytest.mark.parametrize("data", [b"Caf\xc3", b"\xe4\xbd", b"go \xf0\x9f\x9a"])
def test_a_character_cut_off_at_the_end_of_partial_bytes_is_left_for_later(data: bytes) -> None:
    whole = data.decode("utf-8", errors="ignore")
    r = tag("t", until("</t>")).parse(data, partial=True)
    assert (r.status, r.nodes[0].text) == (M, whole)
    assert ANY.parse(data, partial=True).status is not F
    assert ANY.parse(data).status is F  # on a final parse the cut-off character is invalid


@pytest.mark.parametrize(
    ("data", "where"), [(b"\xff\xfe", 0), (b"Hello\x80World", 5), (b"\xc3\x28", 0), (b"ok \xc0\x80", 3)]
)
def test_invalid_utf8_fails_where_it_starts(data: bytes, where: int) -> None:
    r = ANY.parse(data)
    assert r.status is F
    assert r.error is not None and r.error.position == where
    assert ANY.parse(data, partial=True).status is F
    assert until("</t>").parse(data).status is F
    assert json_string_content().parse(data + b'"').status is F


@pytest.mark.parametrize(
    ("cls", "inside", "outside"),
    [
        ("[\\u4E00-\\u9FFF]", "\u4e2d", "a"),
        ("[\\U0001F600-\\U0001F64F]", "\U0001f600", "\U0001f680"),
        ("[0-9\\u4E00-\\u9FFF]", "7", "\u3042"),
    ],
)
def test_code_point_ranges_in_parser_and_grammar(cls: str, inside: str, outside: str) -> None:
    p = chars(cls, 1, 1) + end()
    assert (p.parse(inside).status, p.parse(outside).status) == (S, F)
    assert p.parse(inside.encode()[:-1], partial=True).status is M
    grammar = load_everywhere(to_gbnf(p))
    assert grammar.matches(inside) and not grammar.matches(outside)


@pytest.mark.parametrize(
    "content", ["\u4f60\u597d\u4e16\u754c", "\U0001f600\U0001f680", "mix \u00e9 \u4e2d \U0001f600"]
)
def test_until_with_multibyte_content(content: str) -> None:
    p = tag("t", until("</tag>"))
    assert p.parse(content + "</tag>").nodes[0].text == content
    assert p.parse(content).nodes[0].text == content  # final parse without the delimiter: all of it
    cut = (content + "</tag>").encode()[: len(content.encode()) - 1]
    r = p.parse(cut, partial=True)
    assert (r.status, r.nodes[0].text) == (M, content[:-1])


def test_json_string_content_with_multibyte_and_escapes() -> None:
    p = tag("s", json_string_content()) + '"'
    text = '\u00e9\u4e2d \\u0041 \\n \\" \U0001f600"'
    assert accepts(p, text)
    r = p.parse(text.encode()[:2], partial=True)
    assert (r.status, r.nodes[0].text) == (M, "\u00e9")


def test_streamed_bytes_split_inside_a_character() -> None:
    text = "r\u00e9sum\u00e9 \u4e2d\U0001f600</t>"
    data = text.encode()
    p = tag("t", until("</t>")) + "</t>" + end()
    s = p.stream()
    for i in range(len(data)):
        r = s.feed(data[i : i + 1])
        assert r.status is not F
    assert s.finish() == p.parse(text)
