"""What the parser does differently when its modules run compiled (Cython): never what it computes, only how.

* :func:`untrack` takes an object the parser made out of the cyclic garbage collector's sight. The packrat
  machine makes a few nodes, results and snapshots per stream feed, and a long stream keeps thousands of them
  alive (its memo). Each would be tracked: the young collections their allocations trigger walk them, and the old
  generation, full of finished nodes, is walked whole now and then — a cost that grows with the output. None of
  them can be in a reference cycle (each caller says why), so tracking them buys nothing.
* :data:`COMPILED` lets a hot scanner run a character loop compiled (C speed there) where the pure-Python source
  calls a regular expression (C speed here), with the same result (tests/peg check the two against each other).

Compiled, ``peg/_compiled.pxd`` replaces both by C: :func:`untrack` is ``PyObject_GC_UnTrack`` inlined and
:data:`COMPILED` the constant 1. This module itself is never compiled: it is what the pure-Python sources see, where
:func:`untrack` does nothing (CPython tracks those objects as it always does, which is only slower).
"""

from __future__ import annotations

__all__ = ["COMPILED", "untrack"]

#: Whether the calling module runs compiled (the compiled build sees the C constant 1 instead).
COMPILED = False


def untrack(obj: object) -> None:
    """Pure Python: nothing (compiled: stops the cyclic garbage collector from tracking ``obj``). O(1)."""
