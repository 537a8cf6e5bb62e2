# Cython declarations for peg/_packrat.py (augmenting .pxd: the .py runs unchanged without Cython). Compiled, the
# op kinds and statuses are C constants, ops, nodes, snapshots and the machine are C structs, and the registers
# of the loop are C integers (offsets are Py_ssize_t: NO_BAD_OFFSET = 1 << 62 must fit). A snapshot is in no
# reference cycle (it holds frames, which hold ops and nodes): the garbage collector need not track it (but see
# peg/ast.pxd: Cython 3.3 ignores no_gc and freelist here).

import cython

from peg cimport _compiled
from peg._compile cimport Op, Program
from peg._json cimport scan_json
from peg._unwind cimport fail_nodes, flatten, flatten_cached, more_plan, unwind_more
from peg.ast cimport AstNode, Source, make_node

cdef int COMPOSITE, K_ANY, K_ATOMIC, K_CHARS, K_CHOICE, K_END, K_EPS, K_JSON, K_LIT, K_PEEK, K_REP
cdef int K_RULE, K_SEQ, K_SPACE, K_TAG, K_UNTIL
cdef int _SUCCESS, _FAIL, _MORE, _BEGIN, _CALL, _RET
cdef tuple _START
cdef object _NO
cdef bint _COMPILED

@cython.final
@cython.no_gc
@cython.freelist(8)
cdef class Snapshot:
    cdef public int mode
    cdef public object op
    cdef public Py_ssize_t pos
    cdef public object resume, deliver, stack
    cdef public Py_ssize_t touches, fail_pos
    cdef public object fail_expected, fail_stack

    @cython.locals(snap=Snapshot)
    cpdef Snapshot resumed(self, object resume)

@cython.final
cdef class Machine:
    cdef public Program program
    cdef public Source source
    cdef public Py_ssize_t bad, memo_top
    cdef public dict memo, flat_cache
    cdef public list plan_frames, plans
    cdef public object tracer, snapshot, final, plan_stack, live, live_nodes
    cdef public tuple plan

    @cython.locals(source=Source, text=str)
    cpdef append(self, str more)

    @cython.locals(
        saved=Snapshot, snap=Snapshot, op=Op, fop=Op, source=Source, node=AstNode,
        n=Py_ssize_t, at=Py_ssize_t, bad=Py_ssize_t, nops=Py_ssize_t, key=object, boxed_pos=object, pos=Py_ssize_t,
        start=Py_ssize_t, boxed_start=object, cur=Py_ssize_t, i=Py_ssize_t, t0=object, touches=Py_ssize_t,
        fpos=Py_ssize_t, memo_top=Py_ssize_t,
        count=Py_ssize_t, e=Py_ssize_t, depth=Py_ssize_t, spaces=Py_ssize_t, others=Py_ssize_t, boxed_touches=object,
        mode=int, k=int, flat=bint, stop=bint, done=bint, untracking=bint, compiled=bint, rst=int, rend=Py_ssize_t, text=str,
        memo=dict, volatile=dict, stack=tuple, got=tuple, hit=tuple, kids=tuple, out=tuple,
    )
    cpdef tuple run(self, bint partial)

@cython.locals(stop=Py_ssize_t)
cpdef Py_ssize_t run_end(str text, Py_ssize_t p, Py_ssize_t n, str members, Py_ssize_t hi)

@cython.locals(delims=tuple, scan=Py_ssize_t, j=Py_ssize_t, safe=Py_ssize_t, held=Py_ssize_t, at=Py_ssize_t, d=str,
               firsts=str)
cpdef tuple _until(Op op, str text, Py_ssize_t n, Py_ssize_t pos, object rs, bint partial)

cdef bint _starts_one(tuple delims, str tail)

@cython.locals(inner=tuple)
cdef tuple _unwind_more(Machine machine, object stack, Py_ssize_t end, object rope)

@cython.locals(snap=Snapshot)
cdef Snapshot _snapshot(
    int mode, object op, Py_ssize_t pos, object resume, object deliver, object stack, Py_ssize_t touches,
    Py_ssize_t fail_pos, object fail_expected, object fail_stack
)
