"""Property tests: for generated schemas and values, jsonschema validity == grammar acceptance.

The converter claims exactness whenever it compiles a schema in strict mode, except for its documented
narrowings (property order, integer/number spellings). The generated values are serialised in property
order with ``json.dumps``; integral floats are avoided (spelling narrowing), so the law is exact equality.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gbnf_backend import order_like_schema
from gbnf_backend.errors import SchemaError
from gbnf_backend.grammar import Grammar
from gbnf_backend.schema.json_schema import convert_json_schema

_keys = st.sampled_from(["a", "b", "c", "é", "a\n"])
_ints = st.integers(min_value=-30, max_value=30)
_scalars = st.one_of(
    st.none(), st.booleans(), _ints, st.sampled_from([0.5, -2.25, 3.75]), st.text(alphabet='ab"\\é\n', max_size=4)
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=3)),
    max_leaves=6,
)


def _leaf_schemas() -> st.SearchStrategy[dict[str, Any]]:
    integer = st.builds(
        lambda lo, span: {"type": "integer", "minimum": lo, "maximum": lo + span}, _ints, st.integers(0, 40)
    )
    number = st.builds(lambda lo: {"type": "number", "exclusiveMinimum": lo}, st.sampled_from([-1.5, 0, 2.25]))
    string = st.builds(
        lambda lo, span: {"type": "string", "minLength": lo, "maxLength": lo + span},
        st.integers(0, 3),
        st.integers(0, 3),
    )
    pattern = st.builds(lambda p: {"type": "string", "pattern": p}, st.sampled_from(["^a", "b$", "a|é", "^[ab]*$"]))
    enum = st.builds(lambda vs: {"enum": vs}, st.lists(_scalars, min_size=1, max_size=3))
    bare = st.sampled_from([{}, {"type": "null"}, {"type": "boolean"}, {"minLength": 1}, {"maximum": 0}])
    return st.one_of(integer, number, string, pattern, enum, bare)


_schemas = st.recursive(
    _leaf_schemas(),
    lambda inner: st.one_of(
        st.builds(
            lambda items, lo: {"type": "array", "items": items, "minItems": lo, "maxItems": lo + 2},
            inner,
            st.integers(0, 2),
        ),
        st.builds(
            lambda props, req, extra: {
                "type": "object",
                "properties": props,
                "required": sorted(req & props.keys()),
                **({} if extra is None else {"additionalProperties": extra}),
            },
            st.dictionaries(_keys, inner, max_size=3),
            st.sets(_keys),
            st.one_of(st.none(), st.booleans(), inner),
        ),
        st.builds(lambda xs: {"anyOf": xs}, st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda xs: {"allOf": xs}, st.lists(inner, min_size=1, max_size=2)),
    ),
    max_leaves=5,
)


def _ecma_end(pattern: str) -> str:
    """``pattern`` with each ``$`` anchor (outside classes and escapes) spelled ``\\Z``: in ECMA-262, which JSON
    Schema patterns follow, ``$`` matches only at the end, while Python's also matches before a final newline."""
    out, escaped, in_class = [], False, False
    for ch in pattern:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "$" and not in_class:
            ch = "\\Z"
        out.append(ch)
    return "".join(out)


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    if validator.is_type(instance, "string") and re.search(_ecma_end(pattern), instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


# The oracle: Draft 2020-12 with ECMA-262's "$" in "pattern" (jsonschema searches with Python's re).
_Oracle = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _ecma_pattern})


def _instances(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    return _values


def _no_integral_floats(v: Any) -> bool:
    if isinstance(v, float):
        return not v.is_integer()
    if isinstance(v, list):
        return all(_no_integral_floats(x) for x in v)
    if isinstance(v, dict):
        return all(_no_integral_floats(x) for x in v.values())
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_schemas, values=st.lists(_values, min_size=1, max_size=8))
@example(schema={"type": "string", "pattern": "b$"}, values=["b\n", "b", "ab"])  # ECMA "$": the very end
@example(  # a key URL parsing would cut ("a\n" read as "a"): the reordering must still find its subschema
    schema={"type": "object", "properties": {"a\n": {"anyOf": [{}]}}, "required": []},
    values=[{"a": None, "a\n": None}],
)
def test_grammar_agrees_with_jsonschema(schema: dict[str, Any], values: list[Any]) -> None:
    try:
        result = convert_json_schema(schema)
    except SchemaError:
        return  # refused: nothing is claimed
    grammar = Grammar.from_gbnf(result.to_gbnf())
    validator = _Oracle(schema)
    for value in values:
        if not _no_integral_floats(value):
            continue
        ordered = order_like_schema(schema, value)
        assert ordered == value  # the same JSON value: only member order may change
        text = json.dumps(ordered)
        expected = validator.is_valid(value)
        accepted = grammar.matches(text) or grammar.matches(json.dumps(ordered, separators=(",", ":")))
        assert accepted == expected, (schema, text)


# --- every keyword the converter compiles: never wider than jsonschema --------------------------------------

_wide_keys = st.sampled_from(["a", "b", "x-1", "x-", "ab", "é", "", "A"])
_wide_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-40, max_value=40),
    st.sampled_from([0.5, -2.25, 1.0, -3.0, 1e-06, -1e-06, 2.5e20, 1e16, 12.5, 0.001]),
    st.text(alphabet='ab1-@."\\é\n/~:x', max_size=6),
    st.sampled_from(["2024-02-29", "a@b.org", "x.example", "/a~0b", "0#", "{x}", "//h/p", "a--b"]),
)
_wide_values = st.recursive(
    _wide_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_wide_keys, inner, max_size=3)),
    max_leaves=6,
)
_patterns = st.sampled_from(
    ["^a", "b$", "^x-", "a|é", "^[ab]*$", "^(ab?){1,3}$", "^\\d+$", "[.]", "^.{2}$", "^((a?){0,3}){0,3}$", "~"]
)


def _wide_leaves() -> st.SearchStrategy[dict[str, Any]]:
    bound = st.one_of(st.none(), st.sampled_from([-2.5, -1, 0, 1e-06, 0.5, 3, 40, 1e16]))
    number = st.builds(
        lambda t, lo, hi, ex: {
            "type": t,
            **({} if lo is None else {"exclusiveMinimum" if ex else "minimum": lo}),
            **({} if hi is None else {"maximum": hi}),
        },
        st.sampled_from(["number", "integer"]),
        bound,
        bound,
        st.booleans(),
    )
    multiple = st.builds(
        lambda k, lo, hi: {
            "type": "integer",
            "multipleOf": k,
            **({} if lo is None else {"minimum": lo}),
            "maximum": hi,
        },
        st.integers(1, 12),
        st.one_of(st.none(), st.integers(-30, 10)),
        st.integers(-5, 60),
    )
    string = st.builds(
        lambda lo, span, p: {
            "type": "string",
            "minLength": lo,
            "maxLength": lo + span,
            **({} if p is None else {"pattern": p}),
        },
        st.integers(0, 3),
        st.integers(0, 4),
        st.one_of(st.none(), _patterns),
    )
    fmt = st.builds(
        lambda f: {"type": "string", "format": f},
        st.sampled_from(
            ["date", "email", "hostname", "uri-reference", "json-pointer", "relative-json-pointer", "uuid"]
        ),
    )
    enum = st.builds(lambda vs: {"enum": vs}, st.lists(_wide_scalars, min_size=1, max_size=3))
    const = st.builds(lambda v: {"const": v}, _wide_values)
    bare = st.sampled_from(
        [{}, True, False, {"type": "null"}, {"minLength": 1}, {"maximum": 0}, {"type": ["string", "integer"]}]
    )
    return st.one_of(number, multiple, string, fmt, enum, const, bare)


def _objects(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    def build(props: dict[str, Any], req: set[str], pats: dict[str, Any], extra: Any, names: Any, counts: Any) -> Any:
        schema: dict[str, Any] = {"type": "object", "properties": props, "required": sorted(req & props.keys())}
        if pats:
            schema["patternProperties"] = pats
        if extra is not None:
            schema["additionalProperties"] = extra
        if names is not None:
            schema["propertyNames"] = names
        if counts is not None:
            schema["minProperties"], schema["maxProperties"] = counts
        return schema

    return st.builds(
        build,
        st.dictionaries(_wide_keys, inner, max_size=3),
        st.sets(_wide_keys),
        st.dictionaries(_patterns, inner, max_size=2),
        st.one_of(st.none(), st.booleans(), inner),
        st.one_of(
            st.none(),
            st.builds(lambda p: {"pattern": p}, _patterns),
            st.just({"maxLength": 1}),
            st.just({"enum": ["a", "b"]}),
        ),
        st.one_of(st.none(), st.sampled_from([(0, 1), (1, 2), (2, 3)])),
    )


_wide_schemas = st.recursive(
    _wide_leaves(),
    lambda inner: st.one_of(
        st.builds(
            lambda prefix, items, lo: {
                "type": "array",
                "prefixItems": prefix,
                "items": items,
                "minItems": lo,
                "maxItems": lo + 2,
            },
            st.lists(inner, max_size=2),
            inner,
            st.integers(0, 2),
        ),
        _objects(inner),
        st.builds(lambda xs: {"anyOf": xs}, st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda xs: {"allOf": xs}, st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda xs: {"oneOf": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(
            lambda x, u: {"allOf": [x], "unevaluatedProperties": u},
            inner,
            st.sampled_from([False, {"type": "integer"}]),
        ),
        st.builds(
            lambda x, u: {"allOf": [x], "unevaluatedItems": u}, inner, st.sampled_from([False, {"type": "string"}])
        ),
        st.builds(lambda x: {"not": x}, inner),
        st.builds(lambda c, t, e: {"if": c, "then": t, "else": e}, inner, inner, inner),
        st.builds(lambda k, d: {"dependentRequired": {k: d}}, _wide_keys, st.lists(_wide_keys, max_size=2)),
        st.builds(lambda k, x: {"dependentSchemas": {k: x}}, _wide_keys, inner),
        st.builds(lambda c, m: {"type": "array", "contains": c, "minContains": m}, inner, st.integers(0, 2)),
    ),
    max_leaves=5,
)


def check_never_wider(schema: Any, values: list[Any]) -> tuple[bool, int]:
    """Convert ``schema`` (strict); assert no invalid value is accepted. Returns (compiled, values accepted)."""
    from hypothesis import event

    try:
        result = convert_json_schema(schema)
    except SchemaError as exc:
        event(f"refused: {exc.reason[:40]}")
        return False, 0
    event("compiled")
    grammar = Grammar.from_gbnf(result.to_gbnf())
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    accepted = 0
    for value in values:
        for text in {
            json.dumps(value),
            json.dumps(order_like_schema(schema, value)),
            json.dumps(value, ensure_ascii=False),
        }:
            if grammar.matches(text):
                accepted += 1
                assert validator.is_valid(json.loads(text)), (schema, text)
    return True, accepted


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=_wide_schemas, values=st.lists(_wide_values, min_size=1, max_size=8))
@example(  # a const's items are evaluated by no keyword: unevaluatedItems rejects them
    schema={
        "allOf": [{"allOf": [{"const": [False, "a@b.org", False]}], "unevaluatedProperties": False}],
        "unevaluatedItems": False,
    },
    values=[[False, "a@b.org", False]],
)
def test_grammar_never_wider_than_jsonschema(schema: Any, values: list[Any]) -> None:
    check_never_wider(schema, values)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(target=_wide_schemas, siblings=_wide_schemas, values=st.lists(_wide_values, min_size=1, max_size=6))
@example(  # a keyword draft 7 lacks still narrows, as in 2020-12 (const items are not evaluated items)
    target={"allOf": [{"const": [False, "2024-02-29", False]}], "unevaluatedItems": False},
    siblings={"type": "number"},
    values=[[False, "2024-02-29", False]],
)
@example(  # a format draft 7 does not know is still asserted, as in 2020-12
    target={"allOf": [{"type": "string", "format": "uuid"}, {"enum": [""]}]},
    siblings={"type": "number"},
    values=[""],
)
def test_declared_draft7_ref_ignores_its_siblings_and_is_never_wider(
    target: Any, siblings: Any, values: list[Any]
) -> None:
    """A draft-7 document's "$ref" replaces its siblings: never wider than the referenced schema alone."""
    extra = siblings if isinstance(siblings, dict) else {}
    definitions = {"d": target}
    schema = {**extra, "$schema": "http://json-schema.org/draft-07/schema#", "definitions": definitions}
    schema["$ref"] = "#/definitions/d"
    try:
        grammar = Grammar.from_gbnf(convert_json_schema(schema).to_gbnf())
    except SchemaError:
        return
    oracle = jsonschema.Draft202012Validator(
        {"definitions": definitions, "$ref": "#/definitions/d"}, format_checker=jsonschema.FormatChecker()
    )
    for value in values:
        for text in {json.dumps(value), json.dumps(order_like_schema(schema, value))}:
            if grammar.matches(text):
                assert oracle.is_valid(json.loads(text)), (schema, text)
