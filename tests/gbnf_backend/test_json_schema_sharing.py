"""The converter spells each sub-grammar once (rules shared by content) without merging what differs."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import jsonschema
import pytest

from gbnf_backend import order_like_schema
from gbnf_backend.grammar import Grammar
from gbnf_backend.schema.json_schema import SchemaWeakeningWarning, convert_json_schema, json_schema_to_gbnf


def _grammar(schema: dict[str, Any]) -> Grammar:
    return Grammar.from_gbnf(convert_json_schema(schema).to_gbnf())


def _agrees(schema: dict[str, Any], grammar: Grammar, value: Any) -> None:
    """The grammar accepts ``value`` (members in the order it fixes) exactly when jsonschema does."""
    valid = jsonschema.Draft202012Validator(schema).is_valid(value)
    accepted = grammar.matches(json.dumps(order_like_schema(schema, value)))
    assert accepted == valid, (value, valid, accepted)


def test_equal_subschemas_at_different_places_share_one_rule() -> None:
    bounded = {"type": "integer", "minimum": 3, "maximum": 999}
    schema = {"type": "object", "properties": {"a": bounded, "b": dict(bounded), "c": {"type": "string"}}}
    rules = convert_json_schema(schema).rules
    assert "root--prop-a" in rules
    assert "root--prop-b" not in rules  # b's alternatives equal a's: the same rule serves both
    assert sum("[3-9]" in body for body in rules.values()) == 1  # the range is spelled once
    grammar = _grammar(schema)
    for value in ({"a": 3, "b": 999}, {"a": 2}, {"b": 1000}, {"a": 5, "b": 7, "c": "x"}, {"b": "x"}):
        _agrees(schema, grammar, value)


@pytest.mark.parametrize(
    ("first", "second"),
    [([1], [True]), ([0], [False]), ([1], [1.5]), (["1"], [1]), ([None], [0]), ([[1]], [[True]])],
)
def test_enums_equal_in_python_but_not_in_json_stay_apart(first: list[Any], second: list[Any]) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"enum": first}, "b": {"enum": second}},
        "additionalProperties": False,
    }
    grammar = _grammar(schema)
    for a in first + second:
        for b in first + second:
            _agrees(schema, grammar, {"a": a, "b": b})


def test_identical_members_and_optional_chains_are_written_once() -> None:
    member = {"type": "string", "maxLength": 3}
    shape = {"type": "object", "properties": {"x": member, "y": {"type": "integer"}, "z": {"type": "boolean"}}}
    schema = {"type": "object", "properties": {"p": shape, "q": json.loads(json.dumps(shape))}}
    rules = convert_json_schema(schema).rules
    bodies = Counter(rules.values())
    # Only the two value rules (one per place) repeat a body: everything below them is one set of rules.
    assert [b for b, n in bodies.items() if n > 1] == [rules["root--prop-p"]]
    assert rules["root--prop-q"] == rules["root--prop-p"]
    grammar = _grammar(schema)
    for value in ({"p": {"x": "abc", "z": True}, "q": {"y": 1}}, {"q": {"x": "abcd"}}, {"p": {"z": 1}}):
        _agrees(schema, grammar, value)


def test_key_tries_of_objects_sharing_property_names_share_their_nodes() -> None:
    names = ["alpha", "alphabet", "beta", "gamma"]
    objects = {f"o{k}": {"type": "object", "properties": {n: {} for n in [*names[k:], "delta"]}} for k in range(3)}
    schema = {"type": "object", "properties": objects}
    rules = convert_json_schema(schema).rules
    keys = [name for name in rules if name.startswith("root--key")]
    # Every trie node has a distinct body: a node reached the same way in several objects is one rule.
    assert len({rules[k] for k in keys}) == len(keys)
    grammar = _grammar(schema)
    for value in (
        {"o0": {"alpha": 1, "alphab": 2, "gamma": [], "x": None}},
        {"o1": {"alphabet": 1, "alpha": 2}},
        {"o2": {"beta": 1, "gamm": 1, "deltaa": 0, "": 3}},
    ):
        _agrees(schema, grammar, value)
    # A listed name never comes back as an additional member (the tries exclude exactly the listed names).
    assert not grammar.matches('{"o2": {"gamma": 1, "gamma": 2}}')
    assert grammar.matches('{"o2": {"gamma": 1, "gammaa": 2}}')


def test_a_long_property_name_is_excluded_from_additional_keys_by_a_few_chained_rules() -> None:
    name = "supportsConditionalBreakpoints"  # 30 characters, no other name shares its tail
    schema = {
        "type": "object",
        "properties": {name: {"type": "boolean"}, "b": {}},
        "additionalProperties": {"type": "integer"},
    }
    rules = convert_json_schema(schema).rules
    trie = [body for rule, body in rules.items() if rule.startswith("root--key")]
    # Three one-child nodes per rule (not one rule per character), each deviation still offered.
    assert len(trie) <= len(name) // 3 + 2
    assert all(body.count("|") <= 4 for body in trie)
    grammar = _grammar(schema)
    assert not grammar.matches(f'{{"{name}": true, "{name}": 1}}')  # the listed name again, as an additional key
    assert grammar.matches(json.dumps({name: True}))
    for cut in range(len(name) + 1):
        # Every prefix, every one-character change and every extension is another key: an additional member.
        others = {name[:cut], name[:cut] + "x" + name[cut + 1 :], name[:cut] + "\u00e9" + name[cut:], name + "s"}
        for other in others - {name, "b"}:
            text = f'{{"{name}": true, "{other}": 1}}'
            assert grammar.matches(text), text
            value = json.loads(text)
            assert jsonschema.Draft202012Validator(schema).is_valid(value)


def test_lenient_mode_keeps_a_warning_for_each_place_even_when_the_alternatives_are_equal() -> None:
    halves = {"type": "number", "multipleOf": 0.5}
    schema = {"type": "object", "properties": {"a": halves, "b": dict(halves)}}
    result = convert_json_schema(schema, strict=False)
    assert any(w.startswith("/properties/a") for w in result.warnings)
    assert any(w.startswith("/properties/b") for w in result.warnings)
    with pytest.warns(SchemaWeakeningWarning):
        json_schema_to_gbnf(schema, strict=False)


def test_negated_conjunctions_that_start_alike_are_kept_apart() -> None:
    """Two ``not`` of ``allOf`` that share their first operand ($ref) and differ after it: each keeps its own
    complement (one rule per pointer let ``p`` use ``q``'s negation and accept ``{"p": {"a": "wxyz"}}``)."""
    obj = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    schema = {
        "$defs": {"obj": obj},
        "type": "object",
        "properties": {
            "p": {"not": {"allOf": [{"$ref": "#/$defs/obj"}, {"properties": {"a": {"minLength": 4}}}]}},
            "q": {"not": {"allOf": [{"$ref": "#/$defs/obj"}, {"properties": {"a": {"maxLength": 1}}}]}},
        },
        "additionalProperties": False,
    }
    grammar = _grammar(schema)
    for a in ("", "x", "xy", "xyz", "wxyz", "vwxyz", 3):
        for key in ("p", "q"):
            _agrees(schema, grammar, {key: {"a": a}})


def test_listed_values_meet_a_pattern_with_ecma_end_anchors() -> None:
    """jsonschema searches patterns with Python's re, whose "$" also matches before a final newline; the values an
    enum keeps follow ECMA-262 as the grammar's own pattern does."""
    grammar = Grammar.from_gbnf(convert_json_schema({"enum": ["b\n", "b", "c", "x$"], "pattern": "[$]|b$"}).to_gbnf())
    assert [grammar.matches(json.dumps(v)) for v in ["b\n", "b", "c", "x$"]] == [False, True, False, True]
