# Cython declarations for peg/parser.py (augmenting .pxd: the .py runs unchanged without Cython). Compiled, a
# stream is a C struct holding its machine as a typed field, so a feed reaches the machine without look-ups.
# It keeps an instance ``__dict__`` (and is not final), as the Python class has: a caller may still wrap a
# stream's methods on the instance (tests count the feeds that way).

import cython

from peg._growth cimport Growth as _Lane, growth_of  # (aliased: the .py still imports and exports Growth)
from peg._packrat cimport Machine
from peg._runs cimport QuietTags as _Quiet  # (aliased: the .py imports and exports QuietTags)
from peg.ast cimport make_result

cdef int FAIL, MORE, SUCCESS
cdef object _NEED_MORE, _SUCCEEDED

cdef class Stream:
    cdef dict __dict__
    cdef Machine _machine
    cdef object _decoder, _result
    cdef _Quiet _quiet, _lane_quiet
    cdef _Lane _lane
    cdef bint _finished, _lane_known, _unparsed, _ended
    cdef Py_ssize_t _more_end
    cdef list _pending

    @cython.locals(g=_Lane)
    cpdef growth(self, _Quiet quiet=*)

    @cython.locals(g=_Lane)
    cpdef extend(self, object more)

    @cython.locals(m=Machine, raw=tuple, status=int, end=Py_ssize_t)
    cpdef feed(self, object more)
