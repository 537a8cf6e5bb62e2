"""JSON Schema (Draft 2020-12, plus ``definitions`` and tuple ``items`` of older drafts) → GBNF.

The grammar accepts exactly the JSON texts valid under the schema, or the conversion fails with a
:class:`~gbnf_backend.errors.SchemaError` naming the JSON pointer of what cannot be enforced. With
``strict=False`` such keywords are dropped instead and listed in :attr:`SchemaGrammar.warnings` (the
grammar is then wider than the schema where a warning says so).

Conventions, all on the side of *narrowing* (a valid text may be refused; an invalid one never accepted):

* Listed properties appear in the order of ``properties``; additional ones (allowed unless
  ``additionalProperties`` forbids them, or ``forbid_additional_properties=True`` forbids them for objects
  that list properties) come after them. Duplicate keys are not detected (a grammar cannot).
  :func:`order_like_schema` re-serialises a valid value in exactly that order (``$ref`` followed,
  ``allOf`` merged, the ``anyOf``/``oneOf`` branch that validates).
* A document declaring drafts 3–7 in ``$schema`` gets that draft's ``$ref`` (its siblings are ignored) and,
  before draft 7, no ``if``/``then``/``else``; integers of drafts 3–4 have no ``1.0`` spelling. Everything
  else follows 2020-12 (narrower where an old draft differs).
* Numbers follow the JSON grammar (no leading zeros). Integers also accept a zero fraction (``1.0``, an
  integer in Draft 2020-12); bounded numbers accept exponent spellings ``d.ddd e±E`` whose whole cell
  [d·10^E, (d+1)·10^E) lies in range, and the bounds' own spellings (``1e-06`` for ``minimum: 0.000001``).
* Strings accept every JSON escape, ``\\u00e9`` and surrogate pairs included, and never raw control
  characters; ``minLength``/``maxLength``/``pattern`` count decoded characters. Lone surrogate escapes are
  refused. ``enum``/``const`` strings are accepted in their two canonical spellings (``json.dumps`` with
  and without ``ensure_ascii``). Huge counts (``maxLength: 131072``) are exact, in O(sqrt n) helper rules.
* ``format`` values ``date, time, date-time, duration, uuid, email, hostname, ipv4, ipv6, uri,
  uri-reference, uri-template, json-pointer, relative-json-pointer, idn-email, idn-hostname, iri,
  iri-reference, regex`` are enforced (see :mod:`._formats` for the narrowings). ``color`` (checked by
  jsonschema when ``webcolors`` is installed) raises in strict mode and is dropped with a warning otherwise;
  any other format (``int32``, ``url``, …) is unknown to the specification, so an annotation asserting nothing
  (as JSON Schema 2020-12 and jsonschema treat it).
* Exact: ``not`` where the complement has a form (types, bounds, counts, patterns, required and listed keys,
  excluded values), ``if``/``then``/``else`` likewise, ``dependentRequired``/``dependentSchemas``/
  ``dependencies``, ``contains``/``minContains``, ``propertyNames`` (pattern, enum, lengths),
  ``patternProperties`` overlapping listed properties, several of them, with ``additionalProperties`` (one
  key automaton; not yet when ``allOf`` merges patterns with another operand's ``additionalProperties``),
  integer ``multipleOf`` with bounds, ``allOf`` with an ``enum`` member. ``oneOf`` branches that may
  overlap are made exclusive by exact complements or ``const``/``enum`` discriminators (never wider);
  ``unevaluatedProperties``/``unevaluatedItems`` apply per alternative (narrower when several ``anyOf``
  branches hold, never wider).
* Refused (strict) or dropped with a warning: ``uniqueItems``, ``maxContains``, ``$dynamicRef``,
  non-integer ``multipleOf``, lookarounds/back-references/``\\p{..}`` in patterns, complements that
  have no form (``not: {type: integer}``).

Whitespace between tokens (after ``{ [ , :`` and before ``} ]``; never before the first or after the last
token of the value) is the rule ``json--space-<mode>``:

* ``"llama"`` (default): nothing, one space, or one or two newlines followed by up to 20 spaces/tabs —
  the same language as llama.cpp's converter, so ``json.dumps(x)``, compact separators and
  ``json.dumps(x, indent=2)`` for shallow values are accepted.
* ``"compact"``: at most one space — ``json.dumps(x)`` and ``separators=(",", ":")`` output only.
* ``"none"``: no whitespace at all (compact separators only).
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from typing import Any

from .._gbnf_text import gbnf_rules
from ..engine._native import load_core
from ..errors import SchemaError
from ..grammar import Grammar, gc_paused
from ._emit import Emitter
from ._formats import FORMATS
from ._ir import Normalizer
from ._order import Reorderer
from ._resolve import Registry, Resolver

__all__ = [
    "SchemaGrammar",
    "SchemaWeakeningWarning",
    "convert_json_schema",
    "json_schema_to_gbnf",
    "order_like_schema",
]


class SchemaWeakeningWarning(UserWarning):
    """Issued by :func:`json_schema_to_gbnf` with ``strict=False`` when keywords were dropped."""


@dataclass(frozen=True)
class SchemaGrammar:
    """The rules for one schema.

    ``root`` matches the schema's JSON value; ``rules`` maps every rule name it uses to its body (in a
    deterministic order: the root first, then subschema rules, then shared primitives); ``warnings`` lists
    what ``strict=False`` dropped as ``"<pointer>: <what>"``.
    """

    root: str
    rules: dict[str, str]
    warnings: tuple[str, ...] = ()

    def to_gbnf(self) -> str:
        """Return the full grammar text; a ``root ::= <root>`` line is added when ``root`` is not "root"."""
        head = [("root", self.root)] if self.root != "root" else []
        return gbnf_rules([*head, *self.rules.items()])

    def to_grammar(self) -> Grammar:
        """Return the validated :class:`~gbnf_backend.Grammar` of these rules: ``Grammar.from_gbnf(self.to_gbnf())``
        (the same rules, ids and checks), printed and built with the cyclic collector paused. Cost: linear in the
        grammar; with the compiled core built, the parse and checks run in C++.
        """
        with gc_paused():
            return Grammar.from_gbnf(self.to_gbnf())


def _load(schema: Any) -> Any:
    if isinstance(schema, type):
        dump = getattr(schema, "model_json_schema", None)
        if dump is None:
            raise SchemaError(f"{schema.__name__} is not a pydantic model class")
        return dump()
    if isinstance(schema, (str, bytes)):
        try:
            return json.loads(schema)
        except json.JSONDecodeError as exc:
            raise SchemaError(f"schema is not valid JSON: {exc}") from None
    if isinstance(schema, (dict, bool)):
        return schema
    raise SchemaError(f"a schema must be a dict, a bool, JSON text or a pydantic model, not {type(schema)}")


def _check_name(name: str, what: str) -> None:
    if not all(c.isascii() and (c.isalnum() or c == "-") for c in name):
        raise ValueError(f"{what} {name!r} may contain only [a-zA-Z0-9-]")


# A literal or a class (skipped), or a word: a rule name, or the digits of a repetition bound.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|\[[^\]\\]*(?:\\.[^\]\\]*)*\]|([a-zA-Z0-9-]+)')


def _references(body: str) -> list[str]:
    """Rule names used in a GBNF body (literals and classes skipped). Cost O(len(body))."""
    return [w for w in _TOKENS.findall(body) if w and not w.isdigit()]


def _reachable(rules: dict[str, str], root: str) -> dict[str, str]:
    """The rules reachable from ``root`` (helpers that ended up unused are dropped), in table order.

    Cost O(total body size): with the compiled core built, the bodies are scanned in C++ (the same reading as
    :func:`_references`).
    """
    reachable_rules = getattr(load_core(), "reachable_rules", None)  # (None: no core, or one built before it)
    if reachable_rules is not None:
        names = list(rules)
        keep = reachable_rules(names, list(rules.values()), names.index(root))
        return {name: rules[name] for name, kept in zip(names, keep, strict=True) if kept}
    return _reachable_python(rules, root)


def _reachable_python(rules: dict[str, str], root: str) -> dict[str, str]:
    """:func:`_reachable` in Python (no compiled core; the oracle of the tests)."""
    seen = {root}
    todo = [root]
    while todo:
        for ref in _references(rules[todo.pop()]):
            if ref in rules and ref not in seen:
                seen.add(ref)
                todo.append(ref)
    return {k: v for k, v in rules.items() if k in seen}


def convert_json_schema(
    schema: Any,
    *,
    name: str = "root",
    shared_prefix: str = "",
    strict: bool = True,
    whitespace: str = "llama",
    forbid_additional_properties: bool = False,
    resolver: Resolver | None = None,
) -> SchemaGrammar:
    """Convert ``schema`` into rules whose rule ``name`` matches exactly its valid JSON values.

    ``name`` must not contain ``--`` (generated rules do: ``{name}--<path>``); shared primitives are named
    ``{shared_prefix}json--<prim>`` and have the same body for the same options, so rules of several
    schemas can be merged. ``resolver(uri)`` returns the document for a remote ``$ref`` (dict or JSON
    text). Raises :class:`SchemaError` (with ``pointer``) for what cannot be enforced when ``strict``, and
    for invalid schemas always. Cost: linear in the schema and the emitted grammar, except
    ``min/maxProperties`` (× the bound) and ``allOf``/``anyOf`` products (capped at 64 alternatives).
    """
    _check_name(name, "name")
    if "--" in name:
        raise ValueError("name must not contain '--' (reserved for generated rules)")
    _check_name(shared_prefix, "shared_prefix")
    doc = _load(schema)
    # The cyclic collector is paused for the whole conversion: it allocates ~10^5 small objects and creates no
    # cycle to collect, and each collection would walk every live object of the process (10-20 % of the time).
    with gc_paused():
        return _convert(doc, name, shared_prefix, strict, whitespace, forbid_additional_properties, resolver)


def _convert(
    doc: Any,
    name: str,
    shared_prefix: str,
    strict: bool,
    whitespace: str,
    forbid_additional_properties: bool,
    resolver: Resolver | None,
) -> SchemaGrammar:
    registry = Registry(doc, resolver)
    norm = Normalizer(registry, doc, strict=strict, forbid_additional=forbid_additional_properties, formats=FORMATS)
    em = Emitter(norm, name=name, shared_prefix=shared_prefix, whitespace=whitespace)
    try:
        em.run(registry.root_sub(doc))
    except SchemaError as exc:
        if not exc.pointer and norm.current_pointer:
            raise SchemaError(exc.reason, pointer=norm.current_pointer) from None
        raise
    except RecursionError:
        raise SchemaError("schema nested too deeply", pointer=norm.current_pointer) from None
    except (TypeError, AttributeError, KeyError, ValueError, IndexError, OverflowError, re.error) as exc:
        # A malformed keyword value the shape checks did not anticipate: still a typed error with a place.
        raise SchemaError(f"malformed schema: {exc!r}"[:200], pointer=norm.current_pointer) from None
    rules = _reachable(em.rules, name)
    ordered = {name: rules[name]}
    ordered.update(sorted((k, v) for k, v in rules.items() if k != name and "json--" not in k))
    ordered.update(sorted((k, v) for k, v in rules.items() if k != name and "json--" in k))
    return SchemaGrammar(root=name, rules=ordered, warnings=tuple(dict.fromkeys(norm.warnings)))


def json_schema_to_gbnf(
    schema: Any,
    *,
    strict: bool = True,
    whitespace: str = "llama",
    forbid_additional_properties: bool = False,
    resolver: Resolver | None = None,
) -> str:
    """Return a complete GBNF grammar (rule ``root``) for ``schema``; see :func:`convert_json_schema`.

    With ``strict=False`` every weakening is also reported as a :class:`SchemaWeakeningWarning`.
    """
    result = convert_json_schema(
        schema,
        strict=strict,
        whitespace=whitespace,
        forbid_additional_properties=forbid_additional_properties,
        resolver=resolver,
    )
    for w in result.warnings:
        warnings.warn(w, SchemaWeakeningWarning, stacklevel=2)
    return result.to_gbnf()


def order_like_schema(
    schema: Any, value: Any, *, forbid_additional_properties: bool = False, resolver: Resolver | None = None
) -> Any:
    """Return ``value`` with every object's members in the order the grammar for ``schema`` accepts.

    The grammar fixes member order (listed properties first, in schema order; see the module notes). This
    follows the same normal form as the converter (``$ref`` followed, ``allOf`` merged, the ``anyOf``/
    ``oneOf`` branch that validates), so a valid value comes back as the same JSON value whose
    ``json.dumps`` the grammar accepts wherever the converter is exact. A value the schema rejects comes
    back unchanged. Use it to re-serialise stored tool arguments or examples before forcing them through
    a grammar. For many values of one schema, the ``Reorderer`` cost is paid per call; it is roughly
    O(value × schema depth), with jsonschema checks at each object or array.
    """
    doc = _load(schema)
    return Reorderer(doc, forbid_additional=forbid_additional_properties, resolver=resolver).order(value)
