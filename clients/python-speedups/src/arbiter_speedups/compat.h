/* What Python 3.8 and 3.9 lack of the C API these files use. */
#ifndef ARBITER_COMPAT_H
#define ARBITER_COMPAT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *object) {
    Py_INCREF(object);
    return object;
}
#endif

#if PY_VERSION_HEX < 0x03090000
#define PyObject_Vectorcall _PyObject_Vectorcall
#define PyObject_CallOneArg(callable, arg) PyObject_CallFunctionObjArgs((callable), (arg), NULL)
#endif

#endif
