/* arbiter-client's assign() in C (assign.c). */
#ifndef ARBITER_ASSIGN_H
#define ARBITER_ASSIGN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Adds AssignEntry and Assigner to module. 0, or -1 with an exception. */
int assign_add_types(PyObject *module);

#endif
