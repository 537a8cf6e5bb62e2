# Cython declarations for peg/ast.py (augmenting .pxd: the .py runs unchanged without Cython). Compiled, a node
# and the shared source are C structs: the machine builds and the chat layer reads them without dict look-ups.
# Neither can be part of a reference cycle (a node holds older nodes and the source, the source holds text), so
# the garbage collector need not track them. (Cython 3.3 ignores the class decorators no_gc and freelist in an
# augmenting .pxd — they take effect in a .pyx only — so both are still tracked and freshly allocated; kept for
# a Cython that applies them.)

import cython

from peg cimport _compiled

cdef bint _UNTRACK

@cython.final
@cython.no_gc
cdef class Source:
    cdef public object text

@cython.final
@cython.no_gc
@cython.freelist(64)
cdef class AstNode:
    cdef public object tag, rule
    cdef public Py_ssize_t start, end
    cdef public bint partial
    cdef public tuple children
    cdef public object _source

@cython.final
@cython.freelist(8)
cdef class ParseResult:
    cdef public object status, error
    cdef public Py_ssize_t end
    cdef public tuple nodes

@cython.locals(node=AstNode)
cpdef AstNode make_node(
    object tag, object rule, Py_ssize_t start, Py_ssize_t end, bint partial, tuple children, object source
)

@cython.locals(result=ParseResult)
cpdef ParseResult make_result(object status, Py_ssize_t end, tuple nodes)
