# Cython declarations augmenting stream.py when it is compiled (PEGCHAT_COMPILED_MODULES in CMakeLists.txt): the
# stream becomes an extension type with C fields (what it remembers of the sent message: chat_formats/_sent.pxd),
# its private steps C methods. The .py file stays the reference (and what runs without a build); these
# declarations change no behaviour.
# The .py's first line (`# cython: annotation_typing=False`) keeps its Python annotations from typing anything.
cimport cython

from chat_formats cimport _deltas  # (the builders' C functions: the .py imports the module under this name)
from chat_formats._after_string cimport AfterString
from chat_formats._incremental cimport IncrementalMapper, Step
from chat_formats._sent cimport SentCall as _SentCall, SentText as _SentText, joined  # (aliased, as below)
from peg._growth cimport Growth as _Lane  # (aliased: the .py imports the Python names)
from peg.ast cimport ParseResult as _Result

cdef class ChatStream:
    cdef object _asm, _prefix, _failed, _finish_reason
    cdef public object reasoning_field, salt, _peg, _fast
    cdef IncrementalMapper _mapper
    cdef _SentText _reasoning, _content
    cdef list _calls, _sent_warnings, _after_failure, _warnings
    cdef set _warning_set
    cdef bint _prefix_sent, _role_sent, _failed_whole, _finished
    cdef bint _synced_reasoning, _synced_content, _synced_calls
    cdef public bint _fast_lane
    cdef list _tail_reasoning, _tail_content

    @cython.locals(result=_Result)
    cdef list _ordinary(self, object delta)
    @cython.locals(
        at=Py_ssize_t, kind=Py_ssize_t, sent=_SentCall, growth_=_Lane, plan=tuple, begin=Py_ssize_t, end=Py_ssize_t
    )
    cdef _arm(self, _Result result)
    @cython.locals(kind=Py_ssize_t, tail=list, start=Py_ssize_t, end=Py_ssize_t, call=_SentCall)
    cdef list _emit_extension(self, tuple fast, str more)
    cdef list _first_content(self, tuple target, str more)
    @cython.locals(sent=_SentCall, growth_=_Lane, closed=tuple, text=str)
    cdef list _emit_closing(self, tuple target, list grown)
    @cython.locals(sent=_SentCall, growth_=_Lane, grown=str, value=str, added=object, out=list, name=str, call_id=str,
                   next_index=Py_ssize_t)
    cdef list _emit_string(self, AfterString after, str more)
    cdef str _grow(self, str field, str old, str new)
    @cython.locals(out=list, old_r=list, old_c=list, tail_r=list, tail_c=list, new_r=list, new_c=list)
    cdef list _emit_step(self, Step step, str src)
    cdef list _text_step(self, Step step, object fast_r, object fast_c, str src)
    cdef list _emit_full(self, object new, bint final=*)
    cdef list _emit_failed_growth(self, str grown)
    cdef list _role(self)
    @cython.locals(held=bint, synced=bint)
    cdef list _text_deltas(
        self, object fast_reasoning, object reasoning, object fast_content, object content,
        object has_calls_or_reasoning, bint final
    )
    cdef _add_warnings(self, object warnings)
    @cython.locals(
        sent=list, synced=bint, i=Py_ssize_t, j=Py_ssize_t, old=_SentCall, complete=bint, begin=Py_ssize_t,
        end=Py_ssize_t, was_end=Py_ssize_t, value_begin=Py_ssize_t, value_end=Py_ssize_t, was_value_end=Py_ssize_t,
        old_args=str, new_args=str, grown=str, args=str
    )
    cdef _call_deltas(self, list out, list calls, Py_ssize_t start, str source)

cdef dict _PLANS
cdef Py_ssize_t _MAX_PLANS

@cython.locals(at=Py_ssize_t, inner=str, outer=tuple)
cdef tuple _plan(tuple tags)
cdef bint _silent(tuple tags) except -1
cpdef str _json_body(str text)

cdef Py_ssize_t _REASONING, _CONTENT, _ARGS, _STRING, _SILENT, _NEW_CONTENT, _CLOSING, _AFTER_STRING
cdef object _FAIL
