# The compiled counterpart of chat_formats/_unvalidated.py, cimported in its place (chat_formats/_deltas.pxd:
# `from chat_formats cimport _unvalidated_c as _unvalidated`, so that `_unvalidated.model(...)` in _deltas.py is
# this inline C function once compiled, and the .py's function otherwise). A declarations-only module: nothing is
# built from it; its code is compiled into the module that cimports it. It makes the same object as the .py: the
# instance `object.__new__(cls)` makes, then its dict and pydantic's three slots set by CPython's generic setters
# (what `object.__setattr__` calls, as pydantic's `model_construct` does), with no Python-level call.
from cpython.object cimport PyObject_GenericSetAttr, PyObject_GenericSetDict

cdef extern from *:
    """
    /* `object.__new__(cls)` for a concrete class that inherits object's allocation. On CPython 3.11 that is the
       type's allocation plus an empty instance dict (which model() replaces at once): the allocation alone. */
    static PyObject *pegchat_new_instance(PyObject *cls) {
        PyTypeObject *type = (PyTypeObject *)cls;
    #if PY_VERSION_HEX < 0x030C0000
        if (type->tp_new == PyBaseObject_Type.tp_new && !(type->tp_flags & Py_TPFLAGS_IS_ABSTRACT))
            return type->tp_alloc(type, 0);
    #endif
        PyObject *no_args = PyTuple_New(0);
        if (no_args == NULL)
            return NULL;
        PyObject *obj = PyBaseObject_Type.tp_new(type, no_args, NULL);
        Py_DECREF(no_args);
        return obj;
    }
    """
    object pegchat_new_instance(object cls)

cdef inline object model(object cls, dict values, set fields_set):
    obj = pegchat_new_instance(cls)
    PyObject_GenericSetDict(obj, values, NULL)
    PyObject_GenericSetAttr(obj, "__pydantic_fields_set__", fields_set)
    PyObject_GenericSetAttr(obj, "__pydantic_extra__", None)
    PyObject_GenericSetAttr(obj, "__pydantic_private__", None)
    return obj
