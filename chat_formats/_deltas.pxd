# Cython declarations augmenting _deltas.py when it is compiled (PEGCHAT_COMPILED_MODULES in CMakeLists.txt): the
# value templates C globals (no module dict look-up per delta), and `_unvalidated.model` the C function of
# _unvalidated_c.pxd, cimported under the name the .py imports its reference under. The .py file stays the
# reference (and what runs without a build); these declarations change no behaviour.
# The .py's first line (`# cython: annotation_typing=False`) keeps its Python annotations from typing anything.
from chat_formats cimport _unvalidated_c as _unvalidated

cdef dict _DELTA_VALUES, _CALL_VALUES

cpdef object text_delta(object field, str text)
cpdef object arguments_delta(object index, str arguments)
cpdef object call_start_delta(object index, str call_id, str name, str arguments)
