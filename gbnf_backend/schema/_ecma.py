"""jsonschema validators that read ``pattern`` as ECMA-262 does.

JSON Schema patterns are ECMA-262 regular expressions, and the grammar follows them; jsonschema searches them with
Python's ``re``, whose ``$`` also matches before a final newline (``b$`` matches ``"b\\n"``). The converter asks
jsonschema which listed values (``enum``, ``const``) a schema keeps; with Python's reading it would keep values the
grammar's own pattern rejects, and the grammar would then accept them. These classes spell each ``$`` anchor as
``\\Z`` before searching.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["ecma_validator"]


def _end_anchored(pattern: str) -> str:
    """``pattern`` with every ``$`` outside a class and not escaped written ``\\Z`` (the very end)."""
    parts: list[str] = []
    escaped = in_class = False
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
            ch = r"\Z"
        parts.append(ch)
    return "".join(parts)


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(_end_anchored(pattern))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    """The ``pattern`` keyword with ECMA-262's ``$``; a pattern Python cannot compile is jsonschema's to judge."""
    import jsonschema

    if not validator.is_type(instance, "string"):
        return
    try:
        found = _compiled(pattern).search(instance) is not None
    except re.error:
        yield from jsonschema._keywords.pattern(validator, pattern, instance, schema)
        return
    if not found:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@functools.cache
def ecma_validator(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with ``pattern`` read as ECMA-262 reads it. Memoised per class."""
    import jsonschema

    return jsonschema.validators.extend(cls, {"pattern": _pattern})
