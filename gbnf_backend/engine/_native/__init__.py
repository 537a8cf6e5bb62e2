"""The compiled core of :mod:`gbnf_backend` (C++17, nanobind) and the switch between it and the Python engine.

The extension ``_core`` is built by scikit-build-core when the package is installed (``pip install .``); the
C++ sources live beside this file (one header per concept: ``npda.hpp``, ``utf8.hpp``, ``vocab_trie.hpp``,
``mask_engine.hpp``, ``triggers.hpp``, ``matcher.hpp``; ``gbnf_build.hpp``: GBNF parse and checks for
``Grammar.from_gbnf``, and the JSON Schema converter's rule pruning and key-automaton subset construction;
``bindings.cpp`` binds them). The pure-Python engine stays
the oracle in tests and the fallback: it is used when the extension is not built or when ``PEGCHAT_PURE_PYTHON=1``.
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["PURE_PYTHON_VARIABLE", "engine_name", "load_core"]

#: Environment variable that forces the pure-Python engine when set to anything but "" or "0".
PURE_PYTHON_VARIABLE = "PEGCHAT_PURE_PYTHON"


def load_core() -> ModuleType | None:
    """Return the compiled extension module, or None when it is missing or the Python engine is forced.

    The environment is read on every call (cheap), so tests can switch engines with ``monkeypatch.setenv``.
    """
    if os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0"):
        return None
    try:
        from . import _core
    except ImportError:
        return None
    return _core


def engine_name() -> str:
    """Return ``"native"`` when new matchers use the compiled core, ``"python"`` when they use the Python engine."""
    return "native" if load_core() is not None else "python"
