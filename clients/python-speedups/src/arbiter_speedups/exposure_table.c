/* The exposure table of arbiter-client, in C (docs/decisions/clients.md#exposure-de-duplication-in-the-clients).
 *
 * The same table as arbiter/_exposure_dedup.py's ExposureDedup: 64-bit fingerprints of
 * (user id, variant) with open addressing and linear probing, at most three slots in four
 * filled, doubling from 256 slots, cleared at each UTC midnight and at the capacity. The
 * pure-Python probe costs about as much as the whole assign() it guards; here one call hashes,
 * reads the clock and probes, and what is left is the table's memory miss.
 *
 * The interpreter's lock guards it: nothing below gives the lock up once the clock is read, so
 * a call's look-up and record are one step for every thread and no lock of our own is needed.
 */
#include "exposure_table.h"

#include <math.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

#define SECONDS_A_DAY 86400.0
#define INITIAL_SLOTS 256

/* time.time, which the table reads in C instead of calling it. */
static PyObject *time_time;

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif

/* Two strings' hashes (cached in each str by CPython) mixed into 64 bits (SplitMix64's finaliser),
 * so that nearby hashes spread over the slots. Salted per process like the hashes: fingerprints
 * never leave it. 0 marks an empty slot, so the one pair that mixes to 0 takes 1 instead. */
static uint64_t fingerprint_of(Py_hash_t user, Py_hash_t variant) {
    uint64_t x = (uint64_t)user * 0x9E3779B97F4A7C15ULL ^ (uint64_t)variant;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x ? x : 1;
}

static int wall_clock(ExposureTable *self, double *seconds) {
    if (self->clock != NULL) {
        PyObject *now = PyObject_CallObject(self->clock, NULL);
        if (now == NULL) return -1;
        *seconds = PyFloat_AsDouble(now);
        Py_DECREF(now);
        return (*seconds == -1.0 && PyErr_Occurred()) ? -1 : 0;
    }
#ifdef _WIN32
    FILETIME ft; /* 100 ns ticks since 1601-01-01 */
    GetSystemTimePreciseAsFileTime(&ft);
    uint64_t ticks = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
    *seconds = (double)(ticks - 116444736000000000ULL) * 1e-7;
#else
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *seconds = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
    return 0;
}

static void put(uint64_t *slots, Py_ssize_t n, uint64_t fingerprint) {
    Py_ssize_t i = (Py_ssize_t)(fingerprint % (uint64_t)n);
    while (slots[i]) {
        if (++i == n) i = 0;
    }
    slots[i] = fingerprint;
}

/* Swaps in an array of n empty slots, moving the held fingerprints into it when keep is set:
 * growing keeps them, clearing does not. */
static int replace_slots(ExposureTable *self, Py_ssize_t n, int keep) {
    uint64_t *fresh = PyMem_Calloc((size_t)n, sizeof(uint64_t));
    if (fresh == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; keep && k < self->slot_count; k++) {
        if (self->slots[k]) put(fresh, n, self->slots[k]);
    }
    PyMem_Free(self->slots);
    self->slots = fresh;
    self->slot_count = n;
    if (!keep) self->count = 0;
    return 0;
}

/* A new, small array: the memory of a full day is given back. */
static int clear(ExposureTable *self) {
    return replace_slots(self, INITIAL_SLOTS < self->max_slots ? INITIAL_SLOTS : self->max_slots, 0);
}

static int grow(ExposureTable *self) {
    Py_ssize_t doubled = self->slot_count * 2;
    return replace_slots(self, doubled < self->max_slots ? doubled : self->max_slots, 1);
}

/* The slot of fingerprint in self's array when it is there, else -1. */
static Py_ssize_t find(ExposureTable *self, uint64_t fingerprint) {
    uint64_t *slots = self->slots;
    Py_ssize_t n = self->slot_count;
    Py_ssize_t i = (Py_ssize_t)(fingerprint % (uint64_t)n);
    for (uint64_t seen = slots[i]; seen != fingerprint; seen = slots[i]) {
        if (!seen) return -1;
        if (++i == n) i = 0;
    }
    return i;
}

int exposure_table_fingerprint(PyObject *user, PyObject *variant, uint64_t *fingerprint) {
    Py_hash_t user_hash = PyObject_Hash(user);
    if (user_hash == -1) return -1;
    Py_hash_t variant_hash = PyObject_Hash(variant);
    if (variant_hash == -1) return -1;
    *fingerprint = fingerprint_of(user_hash, variant_hash);
    return 0;
}

int exposure_table_now(ExposureTable *self, double *now) {
#ifdef CLOCK_REALTIME_COARSE
    /* A quarter of the precise clock's cost here (7 against 26 ns), on every batched call. */
    if (self->clock == NULL) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME_COARSE, &ts);
        *now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
        return 0;
    }
#endif
    return wall_clock(self, now);
}

void exposure_table_prefetch(ExposureTable *self, uint64_t fingerprint) {
    if (self->slots != NULL) PREFETCH(&self->slots[fingerprint % (uint64_t)self->slot_count]);
}

int exposure_table_first_today_at(ExposureTable *self, uint64_t fingerprint, double now) {
    if (self->slots == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ExposureTable.__init__ was not called");
        return -1;
    }
    if (now >= self->day_ends_at) {
        if (clear(self) < 0) return -1;
        self->day_ends_at = (floor(now / SECONDS_A_DAY) + 1) * SECONDS_A_DAY;
    }
    if (find(self, fingerprint) >= 0) return 0;
    /* Forgetting everyone keeps memory bounded, at the price of one repeat exposure per user of
     * this fill. */
    if (self->count >= self->capacity && clear(self) < 0) return -1;
    if ((self->count + 1) * 4 > self->slot_count * 3 && grow(self) < 0) return -1;
    put(self->slots, self->slot_count, fingerprint);
    self->count++;
    return 1;
}

int exposure_table_first_today(ExposureTable *self, PyObject *user, PyObject *variant) {
    uint64_t fingerprint;
    double now;
    if (exposure_table_fingerprint(user, variant, &fingerprint) < 0 || wall_clock(self, &now) < 0) return -1;
    return exposure_table_first_today_at(self, fingerprint, now);
}

static PyObject *first_today(ExposureTable *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "first_today() takes the user id and the variant");
        return NULL;
    }
    int first = exposure_table_first_today(self, args[0], args[1]);
    if (first < 0) return NULL;
    return PyBool_FromLong(first);
}

static int init(ExposureTable *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"capacity", "clock", NULL};
    Py_ssize_t capacity;
    PyObject *clock = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n|O:ExposureTable", names, &capacity, &clock)) return -1;
    if (capacity < 1) capacity = 1;
    if (capacity > PY_SSIZE_T_MAX / 4) {
        PyErr_SetString(PyExc_OverflowError, "capacity too large");
        return -1;
    }
    self->capacity = capacity;
    self->max_slots = (capacity * 4 + 2) / 3;
    Py_CLEAR(self->clock);
    if (clock != NULL && clock != Py_None && clock != time_time) {
        Py_INCREF(clock);
        self->clock = clock;
    }
    self->day_ends_at = -HUGE_VAL;
    return clear(self);
}

static void dealloc(ExposureTable *self) {
    PyMem_Free(self->slots);
    Py_XDECREF(self->clock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *slot_count(ExposureTable *self, PyObject *unused) {
    return PyLong_FromSsize_t(self->slot_count);
}

/* Nothing to reset: the table holds no lock of its own. */
static PyObject *reset_after_fork(ExposureTable *self, PyObject *unused) { Py_RETURN_NONE; }

static PyObject *size_of(ExposureTable *self, PyObject *unused) {
    return PyLong_FromSsize_t((Py_ssize_t)sizeof(ExposureTable) + self->slot_count * (Py_ssize_t)sizeof(uint64_t));
}

static Py_ssize_t length(ExposureTable *self) { return self->count; }

static PyMethodDef methods[] = {
    {"first_today", (PyCFunction)(void (*)(void))first_today, METH_FASTCALL,
     "first_today(user, variant) -> bool: True when the pair was not recorded yet on today's UTC day "
     "(it is recorded now, and the caller sends the exposure); False when it was."},
    {"slot_count", (PyCFunction)slot_count, METH_NOARGS, "Slots of the current array, 8 bytes each."},
    {"reset_after_fork", (PyCFunction)reset_after_fork, METH_NOARGS, "Nothing to do: no lock of its own."},
    {"__sizeof__", (PyCFunction)size_of, METH_NOARGS, "The object and its array, in bytes."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods sequence = {.sq_length = (lenfunc)length};

PyTypeObject ExposureTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "arbiter_speedups.ExposureTable",
    .tp_doc = "ExposureTable(capacity, clock=None): the (user id, variant) pairs of one experiment sent an "
              "exposure on the current UTC day. clock: a callable of epoch seconds (a test's), or None or "
              "time.time for the system's wall clock, read here in C.",
    .tp_basicsize = sizeof(ExposureTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)init,
    .tp_dealloc = (destructor)dealloc,
    .tp_methods = methods,
    .tp_as_sequence = &sequence,
};

int exposure_table_ready(void) {
    PyObject *time = PyImport_ImportModule("time");
    if (time == NULL) return -1;
    time_time = PyObject_GetAttrString(time, "time");
    Py_DECREF(time);
    return time_time == NULL ? -1 : 0;
}
