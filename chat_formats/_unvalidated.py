# cython: annotation_typing=False
"""A pydantic model instance made without validation, from values known to be valid: what ``model_construct``
makes (the same object: equal to a validated one, with the same ``model_fields_set``), for the stream's deltas.

This module is the reference and what runs uncompiled. Compiled, :mod:`chat_formats._deltas` cimports
``_unvalidated_c.pxd`` under this module's name instead: the same four slots set by CPython's own setters in C
(as ``object.__setattr__`` does, without a bound method call and an argument tuple per slot).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["model"]

_M = TypeVar("_M", bound=BaseModel)

_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__  # the instance dict's own setter (no attribute look-up)
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def model(cls: type[_M], values: dict[str, Any], fields_set: set[str]) -> _M:
    """An instance of ``cls`` (a pydantic model with no extra fields and no private attributes) whose fields are
    ``values`` (every field, valid; the dict is the instance's own from now on) and whose set fields are
    ``fields_set``. Cost: one object, four slot writes."""
    obj = _new(cls)
    _set_dict(obj, values)
    _set_fields(obj, fields_set)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj
