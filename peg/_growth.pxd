# Cython declarations for peg/_growth.py (augmenting .pxd: the .py runs unchanged without Cython). Compiled, a
# growth and its JSON scan are C structs, so a stream's fast lane reads their fields without dict look-ups.

import cython

from peg._compile cimport Op
from peg cimport _compiled
from peg._json cimport scan_brackets, scan_json, string_body_end
from peg._packrat cimport Machine, Snapshot, run_end
from peg._runs cimport QuietTags, repetition, run_item, run_items, run_of

cdef bint _COMPILED
cdef Py_ssize_t _NARROWED
cdef Py_ssize_t CLOSES, FAILS, HELD, INSIDE  # (peg._runs' values, imported: module constants cannot be cimported)

cdef int K_ATOMIC, K_CHARS, K_CHOICE, K_JSON, K_LIT, K_NEGATE, K_PEEK, K_REP, K_RULE, K_SEQ, K_SPACE, K_TAG, K_UNTIL
cdef int ACC_STEP, BEGIN, CALL_MODE, DROP_STEP, MORE, NODE_STEP, STRING_MODE, SUCCESS

cdef class _JsonScan:
    cdef public object kind
    cdef public str text
    cdef public Py_ssize_t base, shown
    cdef public tuple resume

    @cython.locals(status=int, end=Py_ssize_t, cut=Py_ssize_t, where=tuple, resume=tuple, text=str, after=tuple)
    cpdef object take(self, str more)

@cython.final
cdef class Growth:
    cdef public tuple tags, starts
    cdef public str held
    cdef public bint literal, shifts
    cdef public Py_ssize_t crossed, version
    cdef object _plain, _first, _run_text
    cdef tuple _delims, _run, _firsts, _after, _marks
    cdef bint _spaced, _deep
    cdef list _settled, _recent
    cdef Py_ssize_t _shifting, _lead, _run_from, _run_at, _stop
    cdef _JsonScan _json

    cdef void _set(self, tuple tags, tuple starts, str held, object plain, tuple delims, object first, tuple run,
                   str run_text, bint spaced, tuple firsts)

    @cython.locals(scan=_JsonScan, text=str, first=str, held=str, shown=Py_ssize_t, end=Py_ssize_t)
    cpdef object take(self, str more)

    @cython.locals(first=Py_ssize_t, mark=Py_ssize_t, count=Py_ssize_t)
    cpdef _shift(self, str text)

    @cython.locals(i=Py_ssize_t, item=object, marks=tuple, found=list, stop=Py_ssize_t, at=Py_ssize_t, tag=str, tags=list,
                   kind=Py_ssize_t)
    cpdef tuple closed(self)

    cpdef list events(self)

    cpdef str run_text(self)

    @cython.locals(run=tuple, n=Py_ssize_t, i=Py_ssize_t, p=Py_ssize_t, start=Py_ssize_t, touched=Py_ssize_t,
                   touched_at=Py_ssize_t, end=Py_ssize_t, out=list, begun=Py_ssize_t, touched_events=Py_ssize_t)
    cdef Py_ssize_t _live_end(self, str text, Py_ssize_t shown)

    @cython.locals(run=tuple, stop=Py_ssize_t, end=Py_ssize_t)
    cdef object _cross(self, str text)

    @cython.locals(i=Py_ssize_t, p=Py_ssize_t, q=Py_ssize_t, n=Py_ssize_t, done=Py_ssize_t, run=tuple, op=Op, alt=tuple,
                   iteration=tuple, settled=list, found=list, after=tuple)
    cdef void _narrow(self, str text) except *

    @cython.locals(cut=Py_ssize_t, at=Py_ssize_t, first=str)
    cpdef Py_ssize_t _cut(self, str text)

    @cython.locals(n=Py_ssize_t, d=str)
    cdef Py_ssize_t _cut_at(self, str text, Py_ssize_t at, Py_ssize_t cut)

@cython.locals(
    snap=Snapshot, op=Op, pos=Py_ssize_t, hidden=int, spaced=bint, nodes=tuple, live=tuple, text=str,
    first_shown=Py_ssize_t, between=Py_ssize_t, growth=Growth
)
cpdef Growth growth_of(Machine machine, Py_ssize_t end, QuietTags quiet=*, bint succeeded=*)

@cython.locals(frame=tuple, above=tuple, rep=Op, fop=Op, k=int, text=str, delivered=tuple, tags=list, starts=list, growth=Growth,
               run_text=str)
cdef Growth _after_success(Machine machine, Snapshot snap, Py_ssize_t end, QuietTags quiet)

@cython.locals(
    fop=Op, step=tuple, kind=int, start=object, hidden=int, made=Py_ssize_t, first_shown=Py_ssize_t,
    tag_list=list, start_list=list
)
cdef tuple _live_nodes(object plan)

@cython.locals(growth=Growth)
cdef Growth _growth(tuple tags, tuple starts, str held, object plain, tuple delims, object first, tuple run,
                    str run_text, bint spaced, tuple firsts)

cdef bint _string_body(str more)

@cython.locals(lane=tuple)
cdef tuple _until_lane(Op op)

@cython.locals(seq_frame=tuple, seq=Op, after=Py_ssize_t, frame=tuple, fop=Op, k=int, nodes=Py_ssize_t)
cdef Py_ssize_t _space_lead(Snapshot snap, Op leaf, object stack)
