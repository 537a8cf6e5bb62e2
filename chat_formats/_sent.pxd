# Cython declarations augmenting _sent.py when it is compiled (PEGCHAT_COMPILED_MODULES in CMakeLists.txt): what
# the stream remembers of the sent message becomes extension types with C fields (chat_formats/stream.pxd cimports
# them). The .py file stays the reference (and what runs without a build); these declarations change no behaviour.
# The .py's first line (`# cython: annotation_typing=False`) keeps its Python annotations from typing anything.
cimport cython

@cython.final
cdef class SentCall:
    cdef public object name, id
    cdef public list parts
    cdef public Py_ssize_t length
    cdef public bint complete
    cdef public Py_ssize_t span_start, span_end, string_start, string_end

@cython.final
cdef class SentText:
    cdef public list parts
    cdef public Py_ssize_t length

    cpdef add(self, str text)

cpdef str joined(list parts)
