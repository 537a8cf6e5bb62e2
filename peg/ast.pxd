# Cython declarations for peg/ast.py (augmenting .pxd: the .py runs unchanged without Cython). Compiled, a node
# and the shared source are C structs: the machine builds and the chat layer reads them without dict look-ups.

cdef class Source:
    cdef public object text

cdef class AstNode:
    cdef public object tag, rule
    cdef public Py_ssize_t start, end
    cdef public bint partial
    cdef public tuple children
    cdef public object _source
