/* The exposure table's layout and the calls the other files of the module make on it. */
#ifndef ARBITER_EXPOSURE_TABLE_H
#define ARBITER_EXPOSURE_TABLE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef struct {
    PyObject_HEAD
    uint64_t *slots; /* 0 = empty */
    Py_ssize_t slot_count;
    Py_ssize_t count;
    Py_ssize_t capacity;  /* fingerprints held before the table is cleared */
    Py_ssize_t max_slots; /* three in four of them filled at the capacity */
    double day_ends_at;   /* the UTC midnight that ends the day held; -inf before the first call */
    PyObject *clock;      /* a test's clock; NULL reads the system's wall clock here */
} ExposureTable;

extern PyTypeObject ExposureTableType;

/* Reads time.time once, for init to tell the system's clock from a test's. 0, or -1 with an
 * exception. */
int exposure_table_ready(void);

/* 1 when (user, variant) was not recorded yet on today's UTC day (it is recorded now, and the
 * caller sends the exposure), 0 when it was, -1 with an exception set. */
int exposure_table_first_today(ExposureTable *self, PyObject *user, PyObject *variant);

#endif
