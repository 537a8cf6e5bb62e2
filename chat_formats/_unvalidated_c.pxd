# The compiled counterpart of chat_formats/_unvalidated.py, cimported in its place (chat_formats/_deltas.pxd:
# `from chat_formats cimport _unvalidated_c as _unvalidated`, so that `_unvalidated.model(...)` in _deltas.py is
# this inline C function once compiled, and the .py's function otherwise). A declarations-only module: nothing is
# built from it; its code is compiled into the module that cimports it. It makes the same object as the .py: the
# instance `object.__new__(cls)` makes, its dict set as the `__dict__` descriptor sets it, and pydantic's three
# slots set by calling their descriptors' setters (as `object.__setattr__` does, and pydantic's `model_construct`
# through it), with no Python-level call.
from cpython.object cimport PyObject_GenericSetDict

cdef extern from *:
    """
    /* `object.__new__(cls)` for a concrete class that inherits object's allocation. On CPython 3.11 that is the
       type's allocation plus an empty instance dict (which the caller replaces at once): the allocation alone. */
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

    /* pydantic's three instance slots (every model inherits them from BaseModel): their descriptors, read once
       from the first model class (a slot's descriptor read from a class is the descriptor itself). A
       descriptor's setter checks that the instance is of its class. */
    static PyObject *pegchat_slot_descriptors[3];

    static int pegchat_set_slots(PyObject *cls, PyObject *obj, PyObject *fields_set) {
        static const char *names[3] = {"__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"};
        PyObject *values[3] = {fields_set, Py_None, Py_None};
        for (int i = 0; i < 3; i++) {
            PyObject *descr = pegchat_slot_descriptors[i];
            if (descr == NULL) {
                descr = PyObject_GetAttrString(cls, names[i]);
                if (descr == NULL)
                    return -1;
                if (Py_TYPE(descr)->tp_descr_set == NULL) {
                    PyErr_Format(PyExc_TypeError, "%R has no instance slot %s", cls, names[i]);
                    Py_DECREF(descr);
                    return -1;
                }
                pegchat_slot_descriptors[i] = descr;  /* (kept for the life of the process) */
            }
            if (Py_TYPE(descr)->tp_descr_set(descr, obj, values[i]) < 0)
                return -1;
        }
        return 0;
    }
    """
    object pegchat_new_instance(object cls)
    int pegchat_set_slots(object cls, object obj, set fields_set) except -1

cdef inline object model(object cls, dict values, set fields_set):
    obj = pegchat_new_instance(cls)
    PyObject_GenericSetDict(obj, values, NULL)
    pegchat_set_slots(cls, obj, fields_set)
    return obj
