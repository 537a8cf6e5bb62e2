# Cython declarations for peg/_compiled.py: compiled, untrack() is PyObject_GC_UnTrack inlined and COMPILED is the
# constant 1. Only an object no reference cycle can pass through may be untracked (the collector then counts every
# reference it holds as coming from outside, so a cycle through it would never be freed); PyObject_GC_UnTrack is a
# no-op on an untracked object, so the type's own deallocator, which untracks again, is unaffected. This module
# itself is never compiled (it is not in PEGCHAT_COMPILED_MODULES): the modules that cimport it inline these.

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void *obj)

cdef extern from *:
    bint COMPILED "1"

cdef inline void untrack(object obj) noexcept:
    PyObject_GC_UnTrack(<void *>obj)
