/* arbiter_speedups._speedups: the C parts of arbiter-client, one extension module. */
#include "exposure_table.h"
#include "assign.h"

/* The interface arbiter-client checks before it takes anything from this module: 2 added
 * Assigner and AssignEntry to the ExposureTable of 1. */
#define API_VERSION 2

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "arbiter_speedups._speedups", "The C parts of arbiter-client.", -1,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    if (exposure_table_ready() < 0 || PyType_Ready(&ExposureTableType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&ExposureTableType);
    if (PyModule_AddObject(m, "ExposureTable", (PyObject *)&ExposureTableType) < 0) {
        Py_DECREF(&ExposureTableType);
        goto failed;
    }
    if (assign_add_types(m) < 0 || PyModule_AddIntConstant(m, "API_VERSION", API_VERSION) < 0) goto failed;
    return m;
failed:
    Py_DECREF(m);
    return NULL;
}
