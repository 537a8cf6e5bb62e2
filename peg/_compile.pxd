# Cython declarations for peg/_compile.py (an "augmenting" .pxd: the .py stays the source of truth and runs
# unchanged without Cython). Compiled, an Op is a C struct: the packrat machine reads its fields directly.

import cython

@cython.final
cdef class Op:
    cdef public object node
    cdef public int kind
    cdef public Py_ssize_t idx, lo, hi, maxlen
    cdef public tuple kids, delims
    cdef public object text, tag, name, jkind, desc, label
    cdef public str members
    cdef public bint strict, memo
    cdef public object regex, finder, first, lane

@cython.final
cdef class Program:
    cdef public Op root
    cdef public list ops
    cdef public dict rules
