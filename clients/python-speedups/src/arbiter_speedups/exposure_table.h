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

/* The fingerprint of (user, variant): 0, or -1 with an exception (an unhashable argument). */
int exposure_table_fingerprint(PyObject *user, PyObject *variant, uint64_t *fingerprint);

/* The table's clock in seconds since the epoch: a test's, or the system's to its coarse tick
 * (a few milliseconds, where the system has a coarse clock): the time a batched call is decided
 * and stamped with. 0, or -1 with an exception. */
int exposure_table_now(ExposureTable *self, double *now);

/* Asks the CPU for the memory where a probe for fingerprint starts; changes nothing. A batch of
 * checks prefetches every slot first, so that their memory reads overlap. */
void exposure_table_prefetch(ExposureTable *self, uint64_t fingerprint);

/* first_today for a fingerprint, on the UTC day of now (seconds since the epoch). */
int exposure_table_first_today_at(ExposureTable *self, uint64_t fingerprint, double now);

/* 1 when (user, variant) was not recorded yet on today's UTC day (it is recorded now, and the
 * caller sends the exposure), 0 when it was, -1 with an exception set. */
int exposure_table_first_today(ExposureTable *self, PyObject *user, PyObject *variant);

#endif
