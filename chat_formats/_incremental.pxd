# Cython declarations augmenting _incremental.py when it is compiled (PEGCHAT_COMPILED_MODULES in CMakeLists.txt):
# the mapper's classes become extension types with C fields, the walk's indices C integers, the nodes peg's
# AstNode. The .py file stays the reference (and what runs without a build); these declarations change no behaviour.
# The .py's first line (`# cython: annotation_typing=False`) keeps its Python annotations from typing anything.
cimport cython

from cpython.sequence cimport PySequence_Fast_ITEMS as _items  # (these two: see _common_prefix)
from libc.string cimport memcmp as _memcmp
from chat_formats._arguments cimport OpenCall
from chat_formats.mapper cimport map_call  # (called as a C function)
from peg.ast cimport AstNode as Node

@cython.final
@cython.freelist(8)
cdef class Step:
    cdef public bint rolled_back, changed
    cdef public Py_ssize_t first_call
    cdef public list dropped_reasoning, dropped_content
    cdef public list settled_reasoning, tail_reasoning, settled_content, tail_content
    cdef public list calls, warnings
    cdef public Py_ssize_t settled_calls

@cython.final
@cython.freelist(16)
cdef class _Frame:
    cdef public tuple seq
    cdef public Py_ssize_t k
    cdef public list marks

cdef bint _COMPILED
cdef Py_ssize_t _POINTER_SIZE

@cython.locals(j=Py_ssize_t, same=bint)
cpdef Py_ssize_t _common_prefix(tuple new, tuple old, Py_ssize_t k)

@cython.final
cdef class IncrementalMapper:
    cdef public object tools, salt, id_position
    cdef public list frames, reasoning, content, calls, warnings
    cdef public dict call_cache
    cdef dict _args, _strings
    cdef OpenCall _open
    cdef Py_ssize_t _last_first, _last_settled_warnings
    cdef list _last_calls, _last_warnings
    cdef tuple _last_tails

    cdef tuple _sizes(self)
    cpdef bint arguments_begun(self, Py_ssize_t start)
    cpdef bint arguments_written(self, Py_ssize_t start)
    cpdef object closing_text(self, Py_ssize_t start)
    cpdef object string_closing(self, Py_ssize_t start)
    cdef _roll_back(self, Step step, Py_ssize_t level, Py_ssize_t index)
    @cython.locals(
        frames=list, seq=tuple, last=Py_ssize_t, d=Py_ssize_t, frame=_Frame, k=Py_ssize_t, j=Py_ssize_t, node=Node
    )
    cdef _check_cursor(self, tuple nodes, Step step)
    @cython.locals(
        step=Step, frames=list, seqs=list, nexts=list, frame=_Frame, top=_Frame, parent=_Frame, settling=bint,
        settle=bint, index=Py_ssize_t, seq=tuple, i=Py_ssize_t, warnings=list,
        node=Node, container=Node, j=Py_ssize_t, moved=bint, settled_warnings=Py_ssize_t
    )
    cpdef Step update(self, tuple nodes, Py_ssize_t size)
    @cython.locals(tails=tuple, last=list, calls=list, offset=Py_ssize_t, i=Py_ssize_t, was=list)
    cdef bint _changed(self, Step step) except -1

cdef object _same_call(object call, object was)
cdef list _NOTHING
