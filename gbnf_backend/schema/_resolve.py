"""Schema locations, ``$id``/``$anchor`` registry and ``$ref`` resolution for the schema converter.

A :class:`Sub` is one subschema together with the base URI it is read under and its JSON pointer (for
messages and rule names). The :class:`Registry` walks a document once, records every embedded resource
(``$id``) and anchor, and resolves references: local pointers, anchors, embedded resources, and remote
documents only through the resolver the caller passed. It also validates values with ``jsonschema`` under
the same references (used to filter ``enum``/``const`` values exactly).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urljoin

from ..errors import SchemaError
from ._ecma import ecma_validator

__all__ = ["DEFAULT_BASE", "Registry", "Resolver", "Sub", "declared_draft"]

Resolver = Callable[[str], Any]
DEFAULT_BASE = "https://pegchat.invalid/schema.json"

# Keywords whose value is a subschema, a list of subschemas, or a map of subschemas.
_SUB_ONE = (
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
)
_SUB_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUB_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUB_KEYWORDS = frozenset((*_SUB_ONE, *_SUB_LIST, "items", *_SUB_MAP))


@dataclass(frozen=True)
class Sub:
    """A subschema, the base URI in force for it, and its pointer (``uri#/json/pointer`` if remote)."""

    schema: Any = field(compare=False, hash=False)
    base: str
    ptr: str

    def child(self, *path: str | int) -> Sub:
        """Return the subschema at ``path`` below this one (no existence check)."""
        node = self.schema
        ptr = self.ptr
        for part in path:
            node = node[part]
            ptr += "/" + str(part).replace("~", "~0").replace("/", "~1")
        base = _base_of(node, self.base)
        return Sub(node, base, ptr)


def join_uri(base: str, ref: str) -> str:
    """Resolve ``ref`` against ``base``; also for non-hierarchical bases such as ``urn:``."""
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    if ":" in ref.split("/", 1)[0]:  # already absolute
        return ref
    return urljoin(base, ref)


def _base_of(node: Any, base: str) -> str:
    if isinstance(node, dict) and isinstance(node.get("$id"), str):
        return urldefrag(join_uri(base, node["$id"]))[0]
    return base


_NEWER_KEYWORDS = frozenset(  # validation keywords added after draft 7
    {"unevaluatedItems", "unevaluatedProperties", "prefixItems", "dependentRequired", "dependentSchemas"}
    | {"minContains", "maxContains"}
)


def _uses_newer_keywords(root: Any) -> bool:
    """Whether a key of ``root`` (at any depth) is a keyword added after draft 7. Cost O(size of root)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if not _NEWER_KEYWORDS.isdisjoint(node):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


# Characters a URI fragment may hold as they are (RFC 3986 pchar, "/" and "?"), minus "%", which is encoded.
_POINTER_SAFE = "/?:@!$&'()*+,;=-._~"


def declared_draft(root: Any) -> int | None:
    """The draft number a document declares with ``$schema`` (3, 4, 6, 7; 2019 and 2020 as 2019/2020), or None."""
    declared = root.get("$schema") if isinstance(root, dict) else None
    if not isinstance(declared, str):
        return None
    for token, draft in (("draft-03", 3), ("draft-04", 4), ("draft-06", 6), ("draft-07", 7), ("2019-09", 2019)):
        if token in declared:
            return draft
    return 2020 if "2020-12" in declared else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# Draft 2020-12's types as jsonschema tests them (a float with a zero fraction is an integer; booleans are no
# numbers).
_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "number": _is_number,
    "integer": lambda value: _is_number(value) and (isinstance(value, int) or float(value).is_integer()),
    "string": lambda value: isinstance(value, str),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}


#: Where a subschema sits below the walked node: None for the node itself, else (parent path, keyword, list index
#: or map name (unescaped), or None for a keyword holding one subschema).
_Path = tuple[Any, str, int | str | None] | None


def _spell(ptr: str, path: _Path) -> str:
    """The JSON pointer of ``path`` below the node at ``ptr`` (names escaped). Cost O(depth)."""
    parts: list[str] = []
    while path is not None:
        path, key, sub = path
        if sub is None:
            parts.append(f"/{key}")
        elif isinstance(sub, int):
            parts.append(f"/{key}/{sub}")
        else:
            parts.append(f"/{key}/" + sub.replace("~", "~0").replace("/", "~1"))
    return ptr + "".join(reversed(parts))


class Registry:
    """Resources and anchors of the root document (and of remote documents fetched on demand)."""

    def __init__(self, root: Any, resolver: Resolver | None) -> None:
        self.resolver = resolver
        self.root_base = _base_of(root, DEFAULT_BASE)
        # uri -> (resource node, pointer of the node for messages)
        self.resources: dict[str, tuple[Any, str]] = {}
        self.anchors: dict[tuple[str, str], tuple[Any, str]] = {}
        self.remote_docs: dict[str, Any] = {}
        self._checkers: dict[str, Callable[[Any], bool]] = {}  # canonical JSON of a schema -> checker()
        self._resolved: dict[tuple[str, str], Sub] = {}  # see resolve()
        self._walk(root, DEFAULT_BASE, "", set())
        self.resources.setdefault(DEFAULT_BASE, (root, ""))
        self.resources.setdefault(self.root_base, (root, ""))

    def root_sub(self, root: Any) -> Sub:
        return Sub(root, self.root_base, "")

    def _walk(self, node: Any, base: str, ptr: str, seen: set[int]) -> None:
        """Record ``$id`` and ``$anchor`` below ``node``. Iterative (no recursion limit issues).

        A subschema's pointer is kept as a path of ``(parent path, keyword, index or name)`` and spelled only
        for the few subschemas with an ``$id`` or anchor (spelling every pointer cost more than the walk)."""
        stack: list[tuple[Any, str, _Path]] = [(node, base, None)]
        while stack:
            cur, cur_base, path = stack.pop()
            if not isinstance(cur, dict) or id(cur) in seen:
                continue
            seen.add(id(cur))
            if "$id" in cur and isinstance(cur["$id"], str):
                cur_base = urldefrag(join_uri(cur_base, cur["$id"]))[0]
                self.resources.setdefault(cur_base, (cur, _spell(ptr, path)))
            for key in ("$anchor", "$dynamicAnchor"):
                if key in cur and isinstance(cur[key], str):
                    self.anchors.setdefault((cur_base, cur[key]), (cur, _spell(ptr, path)))
            if cur.keys().isdisjoint(_SUB_KEYWORDS):  # a leaf (most subschemas): nothing below it
                continue
            for key in _SUB_ONE:
                if key in cur:
                    stack.append((cur[key], cur_base, (path, key, None)))
            for key in (*_SUB_LIST, "items"):
                if isinstance(cur.get(key), list):
                    for i, item in enumerate(cur[key]):
                        stack.append((item, cur_base, (path, key, i)))
            for key in _SUB_MAP:
                if isinstance(cur.get(key), dict):
                    for name, item in cur[key].items():
                        stack.append((item, cur_base, (path, key, name)))

    def resolve(self, ref: str, at: Sub) -> Sub:
        """Return the subschema ``ref`` points to from ``at``; raises SchemaError at ``at.ptr``.

        Memoised per (reference, base URI): the answer depends on nothing else, and large schemas use each
        definition from many places."""
        known = self._resolved.get((ref, at.base))
        if known is None:
            known = self._resolved[(ref, at.base)] = self._resolve(ref, at)
        return known

    def _resolve(self, ref: str, at: Sub) -> Sub:
        target = join_uri(at.base, ref)
        uri, frag = urldefrag(target)
        if uri not in self.resources:
            self._fetch(uri, at)
        node, node_ptr = self.resources[uri]
        if frag and not frag.startswith("/"):
            if (uri, frag) not in self.anchors:
                raise SchemaError(f"unknown anchor {frag!r} in $ref {ref!r}", pointer=at.ptr)
            anchored, anchor_ptr = self.anchors[(uri, frag)]
            return Sub(anchored, _base_of(anchored, uri), anchor_ptr)
        cur = node
        ptr = node_ptr
        for raw in frag.split("/")[1:] if frag else []:
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(cur, dict) and part in cur:
                cur = cur[part]
            elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
                cur = cur[int(part)]
            else:
                raise SchemaError(f"$ref {ref!r} does not resolve", pointer=at.ptr)
            ptr += "/" + raw
            uri = _base_of(cur, uri)
        return Sub(cur, uri, ptr)

    def _fetch(self, uri: str, at: Sub) -> None:
        if self.resolver is None:
            raise SchemaError(f"remote $ref {uri!r} needs a resolver", pointer=at.ptr)
        try:
            doc = self.resolver(uri)
        except Exception as exc:  # the caller's resolver may raise anything; report it at the ref
            raise SchemaError(f"resolver failed for {uri!r}: {exc}", pointer=at.ptr) from exc
        if isinstance(doc, str):
            doc = json.loads(doc)
        self.remote_docs[uri] = doc
        self.resources[uri] = (doc, f"{uri}#")
        self._walk(doc, uri, f"{uri}#", set())

    def validator(self, root: Any) -> Callable[[Sub, Any], bool]:
        """Return ``valid(sub, value)``: jsonschema's verdict (formats asserted) under these references."""
        import jsonschema
        import referencing
        import referencing.jsonschema

        spec = referencing.jsonschema.DRAFT202012
        resources = [
            (uri, spec.create_resource(doc))
            for uri, doc in [(DEFAULT_BASE, root), (self.root_base, root), *self.remote_docs.items()]
        ]
        registry: Any = referencing.Registry().with_resources(resources)
        # The declared draft's rules (drafts 4-7 ignore the siblings of "$ref", drafts 4 and 6 know no "if"),
        # as the converter follows them; documents are still read as 2020-12 resources ($id, not "id").
        draft = declared_draft(root)
        cls: Any = {
            3: jsonschema.Draft3Validator,
            4: jsonschema.Draft4Validator,
            6: jsonschema.Draft6Validator,
            7: jsonschema.Draft7Validator,
        }.get(draft or 0, jsonschema.Draft202012Validator)
        cls = ecma_validator(cls)
        # Formats as 2020-12 asserts them, whatever the draft: a format an old draft does not know ("uuid",
        # "duration") would otherwise pass anything, wider than the grammar's 2020-12 reading.
        checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
        # Only documents that use keywords the declared draft lacks need 2020-12's second opinion (2020-12's
        # reading of an old draft's keywords, e.g. a boolean exclusiveMaximum, would be wrong).
        newer_keywords = draft not in (None, 2019, 2020) and _uses_newer_keywords(root)

        def verdict(sub: Sub, value: Any) -> bool | None:
            """jsonschema's verdict, or None when the subschema cannot be evaluated (unresolvable)."""
            if isinstance(sub.schema, bool):
                return sub.schema
            if sub.ptr.endswith("/$not") and isinstance(sub.schema, dict) and sub.schema.keys() == {"not"}:
                # A complement built by the converter: the negation of the subschema at the pointer before it.
                inner = verdict(Sub(sub.schema["not"], sub.base, sub.ptr[: -len("/$not")]), value)
                return None if inner is None else not inner
            if not sub.ptr or sub.ptr.startswith("/"):
                base, fragment = DEFAULT_BASE, sub.ptr  # a pointer into the document (a key may hold "#")
            else:
                base, _, fragment = sub.ptr.partition("#")  # a URI: its fragment follows the first "#"
            # The pointer goes into a URI fragment: percent-encode it (URL parsing drops a raw newline or tab,
            # so a key "a\n" would resolve to the property "a"); the resolver decodes it again.
            wrapper = {"$ref": f"{base}#{quote(fragment, safe=_POINTER_SAFE)}"}
            val = cls(wrapper, registry=registry, format_checker=checker)
            try:
                if not val.is_valid(value):
                    return False
                # An old draft's document must also pass 2020-12's keywords (unevaluatedItems, ...): the
                # converter follows 2020-12 wherever the declared draft's rules above do not apply.
                return not newer_keywords or _valid_2020(wrapper, value)
            except (jsonschema.exceptions.SchemaError, referencing.exceptions.Unresolvable, RecursionError):
                return None
            except Exception as exc:  # the schema is malformed in a way only evaluation shows (a bad regex, ...)
                raise SchemaError(f"cannot evaluate the schema: {exc!r}"[:200], pointer=sub.ptr) from None

        def _valid_2020(wrapper: dict[str, str], value: Any) -> bool:
            """2020-12's verdict; a keyword spelled the old draft's way that 2020-12 cannot evaluate counts as
            passing (the declared draft's verdict decides)."""
            try:
                return bool(
                    ecma_validator(jsonschema.Draft202012Validator)(
                        wrapper, registry=registry, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
                    ).is_valid(value)
                )
            except Exception:
                return True

        def valid(sub: Sub, value: Any) -> bool:
            # What cannot be evaluated counts as invalid: callers keep only values found valid (narrower).
            return verdict(sub, value) is True

        return valid

    def checker(self, schema: dict[str, Any]) -> Callable[[Any], bool]:
        """jsonschema's verdict for a standalone schema without references, as a function of the value.

        The validator is built once per distinct schema (formats asserted); each call costs one validation. A
        malformed schema accepts nothing. A schema made of ``type`` alone (the usual sibling of an ``enum``) is
        checked directly, with jsonschema's Draft 2020-12 meaning of each type.
        """
        types = schema.get("type") if len(schema) == 1 else None
        names: list[Any] = [types] if isinstance(types, str) else types if isinstance(types, list) else []
        known = bool(names) and all(isinstance(n, str) and n in _TYPE_TESTS for n in names)
        if known and len(set(names)) == len(names):  # (repeated names: an invalid schema, left to jsonschema)
            tests = [_TYPE_TESTS[n] for n in names]
            return lambda value: any(test(value) for test in tests)
        try:
            key = json.dumps(schema, sort_keys=True)
        except (TypeError, ValueError):
            return self._new_checker(schema)
        check = self._checkers.get(key)
        if check is None:
            check = self._checkers[key] = self._new_checker(schema)
        return check

    @staticmethod
    def _new_checker(schema: dict[str, Any]) -> Callable[[Any], bool]:
        import jsonschema

        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.exceptions.SchemaError:
            return lambda value: False
        validator = ecma_validator(jsonschema.Draft202012Validator)(
            schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        )

        def check(value: Any) -> bool:
            try:
                return bool(validator.is_valid(value))
            except Exception as exc:  # a bad regex or the like, found only by evaluating
                raise SchemaError(f"cannot evaluate the schema: {exc!r}"[:200]) from None

        return check

    @staticmethod
    def valid_schema(schema: dict[str, Any], value: Any) -> bool:
        """jsonschema's verdict for a standalone schema without references (formats asserted)."""
        import jsonschema

        checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
        try:
            return bool(ecma_validator(jsonschema.Draft202012Validator)(schema, format_checker=checker).is_valid(value))
        except jsonschema.exceptions.SchemaError:
            return False
        except Exception as exc:  # a bad regex or the like, found only by evaluating
            raise SchemaError(f"cannot evaluate the schema: {exc!r}"[:200]) from None
