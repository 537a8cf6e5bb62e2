# Cython declarations for peg/_json.py (augmenting .pxd: the .py runs unchanged without Cython). Compiled, the
# scanner's modes are C constants and its registers C integers; characters are read as code points.

import cython

from peg cimport _compiled

cdef bint _COMPILED

cdef int _VALUE, _AFTER, _ARR_FIRST, _OBJ_FIRST, _KEY_WS, _COLON, _VALUE_WS, _STR, _KEY, _RESTART

@cython.locals(
    n=Py_ssize_t, q=Py_ssize_t, p=Py_ssize_t, prefix_end=Py_ssize_t, number_end=Py_ssize_t, mode=int, in_key=bint,
    c=Py_UCS4,
)
cpdef tuple scan_json(object kind, str text, Py_ssize_t pos, tuple resume, bint partial)

@cython.locals(mode=int, p=Py_ssize_t)
cpdef tuple scan_brackets(tuple resume, str run)

cdef tuple _eof(bint partial, Py_ssize_t n, tuple resume, object expected)

@cython.locals(q=Py_ssize_t, c=Py_UCS4)
cdef tuple _scan_string_content(str text, Py_ssize_t n, Py_ssize_t p, bint partial)

@cython.locals(c=Py_UCS4)
cpdef Py_ssize_t whitespace_end(str text, Py_ssize_t p, Py_ssize_t n)

@cython.locals(c=Py_UCS4)
cpdef Py_ssize_t string_body_end(str text, Py_ssize_t p, Py_ssize_t n)

@cython.locals(i=Py_ssize_t, c=Py_UCS4)
cdef bint _hex4(str text, Py_ssize_t p)

cdef Py_ssize_t _digits_end(str text, Py_ssize_t p, Py_ssize_t n)

@cython.locals(c=Py_UCS4)
cpdef Py_ssize_t number_prefix_end(str text, Py_ssize_t p, Py_ssize_t n)

@cython.locals(c=Py_UCS4, q=Py_ssize_t)
cpdef Py_ssize_t number_end_at(str text, Py_ssize_t p, Py_ssize_t n)
