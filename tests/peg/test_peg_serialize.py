"""Serialisation (§8.5 of the reference): a parser graph round-trips through JSON unchanged."""

from __future__ import annotations

import json as pyjson

import pytest

import peg
from gbnf_backend.errors import GrammarError
from peg import (
    atomic,
    chars,
    end,
    from_json,
    json,
    lazy_grammar,
    negate,
    optional,
    peek,
    ref,
    rule,
    schema,
    tag,
    to_gbnf,
    to_json,
    trigger_rule,
    until,
    until_one_of,
    zero_or_more,
)

from .peg_support import json_call_format, xml_call_format


def complex_parser() -> peg.Parser:
    value = rule("value", chars("[0-9]") | "[" + optional(ref("value")) + "]")
    arg = tag("arg", until_one_of(["</a>", "</b>"])) + (peg.literal("</a>") | "</b>" + peek("{"))
    call = trigger_rule("call", "<call>" << tag("args", json()) << "</call>")
    return (
        optional("<think>" + tag("reasoning", until("</think>")) + "</think>")
        + tag("content", until("<call>"))
        + zero_or_more(call)
        + optional(atomic(tag("v", value)) + negate("!") + arg)
        + schema(peg.json_object(), "obj", {"type": "object"})
        + schema(until("</x>", strict=True), "raw-x", {"type": "string"}, raw=True)
        + "</x>"
        + end()
    )


@pytest.mark.parametrize(
    "make", [complex_parser, lambda: json_call_format(["a", "bb"]), lambda: xml_call_format(["f"], ["k"])]
)
def test_round_trip_prints_parses_and_emits_identically(make: object) -> None:
    p = make()  # type: ignore[operator]
    q = from_json(to_json(p))
    assert repr(q) == repr(p)
    assert to_json(q) == to_json(p)
    assert to_gbnf(q) == to_gbnf(p)
    assert lazy_grammar(q) == lazy_grammar(p)


def test_round_tripped_parser_parses_a_complex_input_the_same() -> None:
    p = complex_parser()
    q = from_json(to_json(p))
    text = (
        '<think>plan</think>hi<call> {"a": [1, {"b": null}], "c": "\\u00e9"} </call>[[7]]x</b>'
        '{"k": [true, false]}raw text</x>'
    )
    for partial in (False, True):
        for cut in (len(text), 30, 75):
            assert q.parse(text[:cut], partial=partial) == p.parse(text[:cut], partial=partial)
    assert p.parse(text).status is peg.Status.SUCCESS


def test_shared_nodes_are_stored_once() -> None:
    shared = tag("x", until("<"))
    doc = pyjson.loads(to_json(shared + "<" + shared))
    assert sum(1 for rec in doc["nodes"] if rec["kind"] == "tag") == 1


@pytest.mark.parametrize(
    "doc",
    [
        "not json",
        '{"format": "other", "version": 1, "root": 0, "nodes": []}',
        '{"format": "pegchat-peg", "version": 1, "root": 0, "nodes": [{"kind": "bogus"}]}',
        '{"format": "pegchat-peg", "version": 1, "root": 0, "nodes": [{"kind": "sequence", "items": [0]}]}',
        '{"format": "pegchat-peg", "version": 1, "root": 0, "nodes": [{"kind": "ref", "name": "a--b"}]}',
        '{"format": "pegchat-peg", "version": 1, "root": 0, "nodes": [{"kind": "tag", "tag": "t", "item": 5}]}',
    ],
)
def test_malformed_documents_raise_grammar_error(doc: str) -> None:
    with pytest.raises(GrammarError):
        from_json(doc)


def test_a_fifty_tool_format_survives_the_round_trip_unchanged() -> None:
    fmt = json_call_format([f"tool_{i}" for i in range(50)])
    text = to_json(fmt)
    back = from_json(text)
    assert repr(back) == repr(fmt) and to_json(back) == text
    call = '<tool_call>{"name": "tool_7", "arguments": {"x": [1, 2]}}</tool_call>'
    assert back.parse(call).status is fmt.parse(call).status
