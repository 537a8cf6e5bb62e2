# Cython declarations augmenting mapper.py when it is compiled (PEGCHAT_COMPILED_MODULES in CMakeLists.txt): the
# mapping of a call reads the walk of _arguments (cimported: C calls, C fields), its counters and offsets are C
# integers, the nodes peg's AstNode (fields read as C struct members). The .py file stays the reference (and what
# runs without a build); these declarations change no behaviour.
# The .py's first line (`# cython: annotation_typing=False`) keeps its Python annotations from typing anything.
cimport cython

from chat_formats._arguments cimport (
    OpenCall, _Below, _head_of_call_end, _named, _scan, _xml_arguments
)
from peg.ast cimport AstNode as Node

cdef Py_ssize_t _V_NAME, _S_ID, _S_ARGS, _S_CLOSE

@cython.locals(below=_Below, complete=bint, args_started=bint, end=Py_ssize_t, before=Py_ssize_t, closer=Node)
cpdef object map_call(
    Node node, object tools, object salt, Py_ssize_t index, object id_position, bint final, list warnings,
    dict arg_cache=*, dict string_cache=*, OpenCall memo=*
)
