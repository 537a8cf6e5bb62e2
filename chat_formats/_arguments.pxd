# Cython declarations augmenting _arguments.py when it is compiled (PEGCHAT_COMPILED_MODULES in CMakeLists.txt):
# the walk below a call and the stream's memo of its open call become extension types with C fields, the loops'
# counters and offsets C integers, the nodes peg's AstNode (fields read as C struct members); mapper.pxd cimports
# them (the functions it calls are cpdef: a Python import of a cimported cdef function is refused). The .py file
# stays the reference (and what runs without a build); these declarations change no behaviour.
# The .py's first line (`# cython: annotation_typing=False`) keeps its Python annotations from typing anything.
cimport cython

from peg.ast cimport AstNode as Node

cdef dict _TAG_KINDS
cdef long _HEAD, _CALL, _ARG, _CONVERTED, _READ, _VALUE
cdef Py_ssize_t _S_ID, _S_ARGS, _S_CLOSE, _S_ARG_NAME, _S_ARG_OPEN, _S_ARG_CLOSE, _S_STRING, _S_JSON, _S_PYTHON
cdef Py_ssize_t _CALL_SLOTS, _V_NAME, _V_ARG_NAME, _NSLOTS
cdef list _NO_CALL_SLOTS
cdef dict _NO_SCANS
cdef bint _COMPILED

cdef long _tag_kind(str tag) except -1

@cython.final
@cython.freelist(8)
cdef class _Below:
    cdef public list first, args
    cdef public dict scans
    cdef public object converted
    cdef public Py_ssize_t head_end
    cdef public bint nested

    @cython.locals(
        first=list, args=list, head_end=Py_ssize_t, nested=bint, scans=dict, todo=list, kinds=dict, kind=long,
        slot=Py_ssize_t, scan=_Below, inner=list, n=Node, compiled=bint
    )
    cdef _walk(self, Node node, dict closed, bint split)
    cpdef object value(self, Py_ssize_t slot)

@cython.final
cdef class OpenCall:
    cdef public Py_ssize_t start, index, end, call_end
    cdef public bint complete, closer
    cdef public object name_from, name, spec, generated, id_from, call_id, call, arguments, span, open_string
    cdef public object last_id, node
    cdef public tuple node_warnings
    cdef public list args, warnings
    cdef public str text, open_key
    cdef public set seen

    cpdef reset(self, Py_ssize_t start, Py_ssize_t index, object name_from, object name, object spec)

@cython.locals(i=Py_ssize_t)
cdef void _push_reversed(list todo, tuple items) except *

@cython.locals(scan=_Below)
cpdef _Below _scan(Node node, dict closed=*, bint split=*)

@cython.locals(hit=tuple)
cdef str _escaped(Node node, dict cache)

@cython.locals(
    parts=list, seen=set, end=Py_ssize_t, hit=tuple, before=Py_ssize_t, scan=_Below, closed=bint, plain=bint,
    arg=Node, inner=list, args=list, known=list, done=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t
)
cpdef tuple _xml_arguments(
    _Below below, object spec, bint complete, list warnings, dict cache=*, dict strings=*, _Below first_scan=*,
    OpenCall memo=*
)

cdef str _where(object spec)

cdef Py_ssize_t _head_end(Node arg, _Below scan) except? -2


@cython.locals(hit=tuple, scan=_Below)
cpdef object _named(Node arg, dict cache, _Below below)

@cython.locals(end=Py_ssize_t)
cpdef Py_ssize_t _head_of_call_end(Node node, _Below below) except? -2
