# Cython declarations for peg/_runs.py (augmenting .pxd: the .py runs unchanged without Cython). Compiled, the
# quiet tags are a C struct and running an item is a C call from the growth's take.

import cython

from peg._compile cimport Op
from peg._packrat cimport _until, run_end

cdef bint _COMPILED
cdef int K_ATOMIC, K_CHARS, K_CHOICE, K_END, K_EPS, K_LIT, K_PEEK, K_REP, K_RULE, K_SEQ, K_SPACE, K_TAG, K_UNTIL, MORE
cdef Py_ssize_t _INSIDE, _FAILS, _UNKNOWN, _HELD, _LONGEST, _BUDGET, _DEEPEST, _OPENS, _ENDS, _CLOSES
cdef tuple _STOP, _ROOT
cdef str _SPACES

@cython.final
cdef class QuietTags:
    cdef public frozenset appearing, closing, marked, opening, spans
    cdef public Py_ssize_t serial
    cdef public bint deep

@cython.locals(run=list, pending=list, child=Op, fop=Op, k=int, kids=tuple, i=Py_ssize_t, rest=tuple, whole=bint, done=Py_ssize_t)
cpdef tuple run_of(object leaf, tuple frame, bint hidden, QuietTags quiet)

cpdef tuple repetition(Op rep, Py_ssize_t done, QuietTags quiet)

@cython.locals(op=Op)
cdef bint _outermost(tuple frame)

@cython.locals(cache=dict, mine=dict, key=Py_ssize_t, rest=tuple, items=list, whole=bint, kid=Op, budget=list)
cdef tuple _rest_of(Op seq, Py_ssize_t i, bint hidden, QuietTags quiet)

@cython.locals(cache=dict, key=Py_ssize_t, found=tuple)
cdef tuple _iteration(Op rep, bint hidden, QuietTags quiet)

@cython.locals(items=list)
cdef tuple _list(Op op, bint hidden, int depth, QuietTags quiet, list budget)

@cython.locals(k=int, kid=Op, tag=str, begin=Py_ssize_t, spans=bint)
cdef bint _follow(Op op, list run, bint hidden, int depth, QuietTags quiet, list budget, bint top)

@cython.locals(marks=list, i=Py_ssize_t, item=object, tag=str)
cdef void _marks_last(list run, Py_ssize_t begin, tuple pending) except *

@cython.locals(cache=dict)
cdef bint _appears(Op group, QuietTags quiet)

@cython.locals(seen=set, todo=list, op=Op)
cdef bint _tags_below(Op group, frozenset allowed)

@cython.locals(item=object, i=Py_ssize_t)
cpdef Py_ssize_t run_items(tuple run, str text, Py_ssize_t p, list out=*)

@cython.locals(n=Py_ssize_t, e=Py_ssize_t, end=Py_ssize_t, count=Py_ssize_t, k=int, kind=int, op=Op, alt=tuple, s=str,
               got=tuple, entry=tuple, inner=tuple, begun=Py_ssize_t)
cpdef Py_ssize_t run_item(object item, str text, Py_ssize_t p, list out=*)

@cython.locals(op=Op, iteration=tuple, done=Py_ssize_t, n=Py_ssize_t, q=Py_ssize_t, begun=Py_ssize_t)
cdef Py_ssize_t _repeat(tuple item, str text, Py_ssize_t p, list out)
