# Cython declarations augmenting _after_string.py when it is compiled (PEGCHAT_COMPILED_MODULES in CMakeLists.txt):
# the lane's reading of events becomes an extension type the stream calls in C. The .py file stays the reference.
cimport cython

from peg._growth cimport Growth as _Lane

cdef int OPENS, ENDS, CLOSES

@cython.final
cdef class AfterString:
    cdef public object sent, spec, published, salt
    cdef public _Lane growth
    cdef public set seen
    cdef public Py_ssize_t done, version, next_index
    cdef public tuple last
    cdef public bint crossed, string_closed, complete

    @cython.locals(events=list, n=Py_ssize_t, j=Py_ssize_t, kind=Py_ssize_t, at=Py_ssize_t, name_open=Py_ssize_t,
                   name_end=Py_ssize_t, value_open=Py_ssize_t, value_end=Py_ssize_t, closer=bint, added=str, tag=str,
                   growth=_Lane, start=Py_ssize_t)
    cpdef object step(self)
    @cython.locals(text=str, key=str, warnings=list, where=str, body=str)
    cdef object _argument(self, Py_ssize_t name_open, Py_ssize_t name_end, Py_ssize_t value_open,
                          Py_ssize_t value_end)
    @cython.locals(name=str)
    cdef _publish(self, Py_ssize_t name_open, Py_ssize_t name_end)
    cdef bint _all_required(self) except -1
