# Cython declarations augmenting _deltas.py when it is compiled (PEGCHAT_COMPILED_MODULES in CMakeLists.txt): the
# builder of one model a C function, the descriptors and value templates it uses C globals (no module dict
# look-up per delta). The .py file stays the reference (and what runs without a build); these declarations change
# no behaviour.
# The .py's first line (`# cython: annotation_typing=False`) keeps its Python annotations from typing anything.

cdef object _new, _set_dict, _set_fields, _set_extra, _set_private
cdef dict _DELTA_VALUES, _CALL_VALUES

cdef object _built(object cls, dict values, set fields_set)

cpdef object text_delta(object field, str text)
cpdef object arguments_delta(object index, str arguments)
cpdef object call_start_delta(object index, str call_id, str name, str arguments)
