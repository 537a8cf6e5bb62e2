# Cython declarations for peg/_unwind.py (augmenting .pxd: the .py runs unchanged without Cython). Compiled, the
# step kinds and op kinds are C constants and a plan is a typed tuple unpacked without generic iteration. The
# functions peg/_packrat.py imports are cpdef: its .pxd cimports them under the same names, so the machine calls
# them as C functions (a cdef one could not also be imported by its .py). Nothing here cimports peg._packrat (the
# functions take the machine's fields, not the machine), so the two modules have no cycle.

import cython

from peg cimport _compiled
from peg._compile cimport Op
from peg.ast cimport AstNode, Source, make_node

cdef int K_ATOMIC, K_NEGATE, K_PEEK, K_REP, K_RULE, K_SEQ, K_TAG
cdef int _NODE, _DROP, _LOOK, _ACC
cdef bint _COMPILED

@cython.locals(out=list, todo=list, pair=tuple)
cpdef tuple flatten(object rope)

@cython.locals(hit=tuple, older=tuple, flat=tuple)
cpdef tuple flatten_cached(dict cache, object rope)

@cython.locals(fresh=list, plan=tuple, frame=tuple, fop=Op, k=int, j=Py_ssize_t, depth=Py_ssize_t, known=Py_ssize_t)
cpdef tuple more_plan(object stack, dict flat_cache, list frames, list plans)

cpdef tuple fail_nodes(object stack, Py_ssize_t fpos, Source source)

@cython.locals(kind=int, start=Py_ssize_t, what=object, fop=Op)
cdef tuple run_plan(tuple plan, Py_ssize_t end, tuple inner, Source source)

@cython.locals(inner=tuple)
cpdef tuple unwind_more(tuple plan, Py_ssize_t end, object rope, dict flat_cache, Source source)
