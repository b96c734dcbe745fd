/* arbiter-client's assign() in C.
 *
 * The Python method's frame and look-ups cost twice what hashing the user does, whatever its
 * variant function is written in (bench/python-client/RESULTS.md). With the speedups extra a
 * client's assign() is this file's Assigner.assign: the same steps as Arbiter.assign, in the same
 * order, with the same callbacks into the client, so that the Python method stays the
 * definition and a differential test holds the two to it. An experiment without holdouts,
 * layer or targeting (a plain one) is bucketed here too, for an ASCII user id; every other
 * variant is the experiment's Python variant function's. With exposures on, a check of a C
 * exposure table waits in a batch (drain) so that the table's memory reads of many calls overlap,
 * as the TypeScript client batches its checks (docs/decisions/clients.md#pythons-assign-in-c-in-the-speedups-extra).
 */
#include "assign.h"

#include "compat.h"
#include "exposure_table.h"
#include "murmur3.h"

#include <string.h>

/* Longer ids take the experiment's Python variant function: the common id is far shorter, and
 * the buffer stays on the stack. */
#define MAX_BUCKETED_ID 256

/* Calls whose exposures are decided together: enough reads in flight at once to overlap the
 * table's memory misses, few enough that a batch is decided within microseconds. */
#define PENDING_CAPACITY 64

/* An experiment as Assigner reads it: CompiledExperiment's fields, and for a plain experiment
 * its hash state after "salt:" and its ranges in start order. */
typedef struct {
    PyObject_HEAD
    PyObject *id;        /* str: what the exposure names */
    PyObject *variant;   /* variant(user, attributes, expose_holdout) -> str or None */
    PyObject *exposures; /* an ExposureTable, or any object with first_today(user, variant) */
    PyObject *reached;   /* reached(user, matched), or NULL */
    int plain;
    uint32_t prefix_state; /* the whole 4-byte blocks of UTF-8("salt:") mixed */
    unsigned char tail[3]; /* its last 0-3 bytes */
    size_t tail_length;
    size_t prefix_length;
    uint32_t bucket_count;
    Py_ssize_t range_count;
    int64_t *starts; /* ascending, as the Python assigner bisects them */
    int64_t *ends;
    PyObject *variants; /* tuple of str, one per range */
} AssignEntry;

static PyTypeObject AssignEntryType;

/* A range bound as a 64-bit integer: a bucket is below 2**32, so a bound beyond int64 compares
 * as the saturated one does. */
static int bound_of(PyObject *item, int64_t *out) {
    int overflow;
    long long value = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (value == -1 && PyErr_Occurred()) return -1;
    *out = overflow > 0 ? INT64_MAX : overflow < 0 ? INT64_MIN : (int64_t)value;
    return 0;
}

static int set_prefix(AssignEntry *self, PyObject *salt) {
    Py_ssize_t salt_length;
    /* Fails on a lone surrogate, which only the Python assigner's U+FFFD rule may hash. */
    const char *salt_utf8 = PyUnicode_AsUTF8AndSize(salt, &salt_length);
    if (salt_utf8 == NULL) return -1;
    size_t prefix_length = (size_t)salt_length + 1;
    unsigned char *prefix = PyMem_Malloc(prefix_length);
    if (prefix == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(prefix, salt_utf8, (size_t)salt_length);
    prefix[salt_length] = ':';
    size_t whole = prefix_length & ~(size_t)3;
    self->prefix_state = murmur3_mix_blocks(0, prefix, whole);
    self->tail_length = prefix_length - whole;
    memcpy(self->tail, prefix + whole, self->tail_length);
    self->prefix_length = prefix_length;
    PyMem_Free(prefix);
    return 0;
}

static int set_ranges(AssignEntry *self, PyObject *starts, PyObject *ends, PyObject *variants) {
    PyObject *variant_tuple = PySequence_Tuple(variants);
    if (variant_tuple == NULL) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(variant_tuple);
    PyObject *start_list = PySequence_Fast(starts, "starts must be a sequence");
    PyObject *end_list = start_list == NULL ? NULL : PySequence_Fast(ends, "ends must be a sequence");
    int64_t *start_bounds = PyMem_Calloc((size_t)n + 1, sizeof(int64_t));
    int64_t *end_bounds = PyMem_Calloc((size_t)n + 1, sizeof(int64_t));
    int ok = end_list != NULL;
    if (ok && (start_bounds == NULL || end_bounds == NULL)) {
        PyErr_NoMemory();
        ok = 0;
    }
    if (ok && (PySequence_Fast_GET_SIZE(start_list) != n || PySequence_Fast_GET_SIZE(end_list) != n)) {
        PyErr_SetString(PyExc_ValueError, "starts, ends and variants differ in length");
        ok = 0;
    }
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(variant_tuple, i))) {
            PyErr_SetString(PyExc_TypeError, "variants must be str");
            ok = 0;
        } else {
            ok = bound_of(PySequence_Fast_GET_ITEM(start_list, i), &start_bounds[i]) == 0 &&
                 bound_of(PySequence_Fast_GET_ITEM(end_list, i), &end_bounds[i]) == 0;
        }
        if (ok && i > 0 && start_bounds[i] < start_bounds[i - 1]) {
            PyErr_SetString(PyExc_ValueError, "starts must be in ascending order");
            ok = 0;
        }
    }
    Py_XDECREF(start_list);
    Py_XDECREF(end_list);
    if (!ok) {
        PyMem_Free(start_bounds);
        PyMem_Free(end_bounds);
        Py_DECREF(variant_tuple);
        return -1;
    }
    PyMem_Free(self->starts);
    PyMem_Free(self->ends);
    self->starts = start_bounds;
    self->ends = end_bounds;
    self->range_count = n;
    Py_XSETREF(self->variants, variant_tuple);
    return 0;
}

static int entry_init(AssignEntry *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"id", "variant", "exposures", "reached", "plain", NULL};
    PyObject *id, *variant, *exposures, *reached, *plain = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UOOO|O:AssignEntry", names, &id, &variant, &exposures, &reached,
                                     &plain))
        return -1;
    if (!PyCallable_Check(variant) || (reached != Py_None && !PyCallable_Check(reached))) {
        PyErr_SetString(PyExc_TypeError, "variant and reached must be callable");
        return -1;
    }
    self->plain = 0;
    if (plain != Py_None) {
        PyObject *salt, *starts, *ends, *variants;
        unsigned long long bucket_count;
        if (!PyArg_ParseTuple(plain, "UKOOO:plain", &salt, &bucket_count, &starts, &ends, &variants)) return -1;
        if (bucket_count < 1 || bucket_count > 0xFFFFFFFFull) {
            PyErr_SetString(PyExc_ValueError, "bucket_count must be 1 to 2**32 - 1");
            return -1;
        }
        if (set_prefix(self, salt) < 0 || set_ranges(self, starts, ends, variants) < 0) return -1;
        self->bucket_count = (uint32_t)bucket_count;
        self->plain = 1;
    }
    Py_XSETREF(self->id, Py_NewRef(id));
    Py_XSETREF(self->variant, Py_NewRef(variant));
    Py_XSETREF(self->exposures, Py_NewRef(exposures));
    Py_XSETREF(self->reached, reached == Py_None ? NULL : Py_NewRef(reached));
    return 0;
}

/* The variant functions are closures over the client's callbacks: a cycle the collector must see. */
static int entry_traverse(AssignEntry *self, visitproc visit, void *arg) {
    Py_VISIT(self->variant);
    Py_VISIT(self->exposures);
    Py_VISIT(self->reached);
    return 0;
}

static int entry_clear(AssignEntry *self) {
    Py_CLEAR(self->variant);
    Py_CLEAR(self->exposures);
    Py_CLEAR(self->reached);
    return 0;
}

static void entry_dealloc(AssignEntry *self) {
    PyObject_GC_UnTrack(self);
    entry_clear(self);
    Py_XDECREF(self->id);
    Py_XDECREF(self->variants);
    PyMem_Free(self->starts);
    PyMem_Free(self->ends);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject AssignEntryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "arbiter_speedups.AssignEntry",
    .tp_doc = "AssignEntry(id, variant, exposures, reached, plain=None): a compiled experiment as Assigner "
              "reads it. plain, for an experiment without holdouts, layer or targeting: (salt, bucket_count, "
              "starts, ends, variants), its ranges in ascending start order, bucketed here for ASCII ids.",
    .tp_basicsize = sizeof(AssignEntry),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)entry_init,
    .tp_dealloc = (destructor)entry_dealloc,
    .tp_traverse = (traverseproc)entry_traverse,
    .tp_clear = (inquiry)entry_clear,
};

/* A checked call whose exposure is still to be decided: see drain. */
typedef struct {
    AssignEntry *entry;
    PyObject *user;
    PyObject *variant;
    uint64_t fingerprint;
    double at; /* the table's clock at the call */
} Pending;

typedef struct {
    PyObject_HEAD
    PyObject *entries;        /* dict: experiment name or id -> AssignEntry */
    PyObject *method;         /* Arbiter.assign bound to the client: calls of another shape */
    PyObject *expose;         /* expose(entry_id, user, variant, attributes, at=None) */
    PyObject *expose_holdout; /* handed to the variant functions; None with exposures off */
    PyObject *failed;         /* failed(error): the method's warning, once */
    int track_exposures;
    int exposure_attributes; /* exposures carry the call's attributes: those calls are not batched */
    Py_ssize_t pending_count;
    Pending pending[PENDING_CAPACITY];
} Assigner;

/* The variant of an ASCII user id in a plain experiment (a borrowed reference), or NULL. */
static PyObject *bucketed(AssignEntry *e, const unsigned char *id, size_t id_length) {
    unsigned char key[3 + MAX_BUCKETED_ID];
    memcpy(key, e->tail, e->tail_length);
    memcpy(key + e->tail_length, id, id_length);
    uint32_t hash = murmur3_finish(e->prefix_state, key, e->tail_length + id_length, e->prefix_length + id_length);
    int64_t bucket = hash % e->bucket_count;
    /* The last range starting at or before the bucket, as the Python assigner's bisect_right. */
    for (Py_ssize_t i = e->range_count - 1; i >= 0; i--) {
        if (e->starts[i] <= bucket) return bucket < e->ends[i] ? PyTuple_GET_ITEM(e->variants, i) : NULL;
    }
    return NULL;
}

/* 1 when the exposure of (user, variant) is the first today, 0 when not, -1 with an exception. */
static int first_today(AssignEntry *e, PyObject *user, PyObject *variant) {
    if (Py_TYPE(e->exposures) == &ExposureTableType)
        return exposure_table_first_today((ExposureTable *)e->exposures, user, variant);
    PyObject *answer = PyObject_CallMethod(e->exposures, "first_today", "OO", user, variant);
    if (answer == NULL) return -1;
    int first = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    return first;
}

/* As the method's `except Exception`: the client warns once. 0, or -1 when the exception is not
 * an Exception (KeyboardInterrupt and the like go on to the caller) or the warning failed. */
static int report_failure(Assigner *self) {
    if (!PyErr_ExceptionMatches(PyExc_Exception)) return -1;
    PyObject *type, *error, *traceback;
    PyErr_Fetch(&type, &error, &traceback);
    PyErr_NormalizeException(&type, &error, &traceback);
    PyObject *warned = PyObject_CallOneArg(self->failed, error != NULL ? error : Py_None);
    Py_XDECREF(type);
    Py_XDECREF(error);
    Py_XDECREF(traceback);
    if (warned == NULL) return -1;
    Py_DECREF(warned);
    return 0;
}

/* Decides the exposures of the pending calls, in call order, each on the UTC day of its call and
 * sent with its call's time. Every slot is prefetched before the first check, so the table's
 * memory misses overlap instead of costing one whole miss a call. The batch is taken out first:
 * exposing a user queues an event, which drains (finding nothing), and may let another thread
 * run and fill a new batch meanwhile. A failure warns as the method does and the rest goes on.
 * 0, or -1 with an exception that is not an Exception. */
static int drain(Assigner *self) {
    Py_ssize_t n = self->pending_count;
    if (n == 0) return 0;
    Pending batch[PENDING_CAPACITY];
    memcpy(batch, self->pending, (size_t)n * sizeof(Pending));
    self->pending_count = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        exposure_table_prefetch((ExposureTable *)batch[i].entry->exposures, batch[i].fingerprint);
    int status = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Pending *p = &batch[i];
        if (status == 0) {
            int first = exposure_table_first_today_at((ExposureTable *)p->entry->exposures, p->fingerprint, p->at);
            PyObject *done = NULL;
            if (first > 0) {
                PyObject *at = PyFloat_FromDouble(p->at);
                if (at != NULL) {
                    PyObject *expose[5] = {p->entry->id, p->user, p->variant, Py_None, at};
                    done = PyObject_Vectorcall(self->expose, expose, 5, NULL);
                    Py_DECREF(at);
                }
                Py_XDECREF(done); /* no tally to count: a tallied experiment's checks are not batched */
            }
            if ((first < 0 || (first > 0 && done == NULL)) && report_failure(self) < 0) status = -1;
        }
        Py_DECREF(p->entry);
        Py_DECREF(p->user);
        Py_DECREF(p->variant);
    }
    return status;
}

/* Keeps a checked call for drain: its user, variant, fingerprint and time. 0, or -1. */
static int defer(Assigner *self, AssignEntry *e, PyObject *user, PyObject *variant) {
    if (self->pending_count == PENDING_CAPACITY && drain(self) < 0) return -1;
    uint64_t fingerprint;
    double at;
    if (exposure_table_fingerprint(user, variant, &fingerprint) < 0 ||
        exposure_table_now((ExposureTable *)e->exposures, &at) < 0)
        return -1;
    if (self->pending_count == PENDING_CAPACITY && drain(self) < 0) return -1; /* the test clock ran Python */
    Pending *p = &self->pending[self->pending_count++];
    p->entry = (AssignEntry *)Py_NewRef((PyObject *)e);
    p->user = Py_NewRef(user);
    p->variant = Py_NewRef(variant);
    p->fingerprint = fingerprint;
    p->at = at;
    return 0;
}

/* The variant (a new reference), None, or NULL with an exception: the body of the method's try. */
static PyObject *decide(Assigner *self, AssignEntry *e, PyObject *user, PyObject *attributes) {
    PyObject *variant = NULL;
    if (e->plain && PyUnicode_IS_COMPACT_ASCII(user) && PyUnicode_GET_LENGTH(user) <= MAX_BUCKETED_ID) {
        variant = bucketed(e, PyUnicode_DATA(user), (size_t)PyUnicode_GET_LENGTH(user));
        if (variant == NULL) Py_RETURN_NONE;
        Py_INCREF(variant);
    } else {
        PyObject *call[3] = {user, attributes, self->expose_holdout};
        variant = PyObject_Vectorcall(e->variant, call, 3, NULL);
        if (variant == NULL || variant == Py_None) return variant;
    }
    if (!self->track_exposures) return variant;
    /* A C table's check waits for the batch, unless the exposure carries the call's attributes
     * (the caller's object is read during the call) or the experiment's targeting is tallied (the
     * tally's own check of the day, in the same table, must come after this one). */
    if (Py_TYPE(e->exposures) == &ExposureTableType && e->reached == NULL &&
        (!self->exposure_attributes || attributes == Py_None)) {
        if (defer(self, e, user, variant) == 0) return variant;
        Py_DECREF(variant);
        return NULL;
    }
    int first = first_today(e, user, variant);
    if (first <= 0) {
        if (first == 0) return variant;
        Py_DECREF(variant);
        return NULL;
    }
    PyObject *expose[4] = {e->id, user, variant, attributes};
    PyObject *done = PyObject_Vectorcall(self->expose, expose, 4, NULL);
    if (done != NULL && e->reached != NULL) {
        Py_DECREF(done);
        PyObject *reached[2] = {user, Py_True};
        done = PyObject_Vectorcall(e->reached, reached, 2, NULL);
    }
    if (done == NULL) {
        Py_DECREF(variant);
        return NULL;
    }
    Py_DECREF(done);
    return variant;
}

static PyObject *assign(Assigner *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *given[3] = {NULL, NULL, Py_None};
    if (nargs > 3) goto method;
    for (Py_ssize_t i = 0; i < nargs; i++) given[i] = args[i];
    Py_ssize_t keywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < keywords; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        int at = PyUnicode_CompareWithASCIIString(name, "experiment") == 0 ? 0
                 : PyUnicode_CompareWithASCIIString(name, "user") == 0     ? 1
                 : PyUnicode_CompareWithASCIIString(name, "attributes") == 0 ? 2
                                                                              : -1;
        if (at < nargs) goto method; /* unknown, or given twice: the method raises the TypeError */
        given[at] = args[nargs + k];
    }
    PyObject *experiment = given[0], *user = given[1], *attributes = given[2];
    /* Anything else (unhashable, a subclass with its own hash) is the method's to judge. */
    if (experiment == NULL || user == NULL || !PyUnicode_CheckExact(experiment)) goto method;
    PyObject *entry = PyDict_GetItemWithError(self->entries, experiment);
    if (entry == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    if (!PyUnicode_Check(user)) Py_RETURN_NONE;
    if (!PyUnicode_CheckExact(user) || Py_TYPE(entry) != &AssignEntryType) goto method;
    Py_INCREF(entry); /* a config refresh on another thread may replace it meanwhile */
    PyObject *variant = decide(self, (AssignEntry *)entry, user, attributes);
    Py_DECREF(entry);
    if (variant != NULL || report_failure(self) < 0) return variant;
    Py_RETURN_NONE;
method:
    /* The method checks the tables at once: the batch's checks go first. */
    if (drain(self) < 0) return NULL;
    return PyObject_Vectorcall(self->method, args, (size_t)nargs, kwnames);
}

static int assigner_init(Assigner *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"entries", "method", "expose", "expose_holdout", "failed", "track_exposures",
                            "exposure_attributes", NULL};
    PyObject *entries, *method, *expose, *expose_holdout, *failed;
    int track_exposures, exposure_attributes;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OOOOpp:Assigner", names, &PyDict_Type, &entries, &method,
                                     &expose, &expose_holdout, &failed, &track_exposures, &exposure_attributes))
        return -1;
    if (!PyCallable_Check(method) || !PyCallable_Check(expose) || !PyCallable_Check(failed)) {
        PyErr_SetString(PyExc_TypeError, "method, expose and failed must be callable");
        return -1;
    }
    Py_XSETREF(self->entries, Py_NewRef(entries));
    Py_XSETREF(self->method, Py_NewRef(method));
    Py_XSETREF(self->expose, Py_NewRef(expose));
    Py_XSETREF(self->expose_holdout, Py_NewRef(expose_holdout));
    Py_XSETREF(self->failed, Py_NewRef(failed));
    self->track_exposures = track_exposures;
    self->exposure_attributes = exposure_attributes;
    return 0;
}

/* The callbacks are bound to the client that holds this object: a cycle the collector must see. */
static int assigner_traverse(Assigner *self, visitproc visit, void *arg) {
    Py_VISIT(self->entries);
    Py_VISIT(self->method);
    Py_VISIT(self->expose);
    Py_VISIT(self->expose_holdout);
    Py_VISIT(self->failed);
    for (Py_ssize_t i = 0; i < self->pending_count; i++) {
        Py_VISIT(self->pending[i].entry);
        Py_VISIT(self->pending[i].user);
        Py_VISIT(self->pending[i].variant);
    }
    return 0;
}

/* Forgets the pending calls without deciding them: a forked child's copy of its parent's. */
static void discard(Assigner *self) {
    Py_ssize_t n = self->pending_count;
    self->pending_count = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_DECREF(self->pending[i].entry);
        Py_DECREF(self->pending[i].user);
        Py_DECREF(self->pending[i].variant);
    }
}

static int assigner_clear(Assigner *self) {
    discard(self);
    Py_CLEAR(self->entries);
    Py_CLEAR(self->method);
    Py_CLEAR(self->expose);
    Py_CLEAR(self->expose_holdout);
    Py_CLEAR(self->failed);
    return 0;
}

static void assigner_dealloc(Assigner *self) {
    PyObject_GC_UnTrack(self);
    assigner_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *drain_method(Assigner *self, PyObject *unused) {
    if (drain(self) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *discard_method(Assigner *self, PyObject *unused) {
    discard(self);
    Py_RETURN_NONE;
}

static PyObject *pending_method(Assigner *self, PyObject *unused) { return PyLong_FromSsize_t(self->pending_count); }

static PyMethodDef assigner_methods[] = {
    {"drain", (PyCFunction)drain_method, METH_NOARGS,
     "Decides the exposures of the calls checked so far and queues the new ones; the client calls it "
     "before it queues any other event and before stats(), flush() and close()."},
    {"discard", (PyCFunction)discard_method, METH_NOARGS, "Forgets the pending calls (a forked child)."},
    {"pending", (PyCFunction)pending_method, METH_NOARGS, "How many calls wait for drain."},
    {"assign", (PyCFunction)(void (*)(void))assign, METH_FASTCALL | METH_KEYWORDS,
     "assign($self, experiment, user, attributes=None)\n--\n\n"
     "The variant key of user in experiment, or None: arbiter-client's Arbiter.assign, in C."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject AssignerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "arbiter_speedups.Assigner",
    .tp_doc = "Assigner(entries, method, expose, expose_holdout, failed, track_exposures, exposure_attributes): "
              "a client's assign() "
              "over the dict entries (experiment name or id -> AssignEntry), with the client's callbacks; "
              "calls of another shape (more arguments, an experiment that is not a str) go to method.",
    .tp_basicsize = sizeof(Assigner),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)assigner_init,
    .tp_dealloc = (destructor)assigner_dealloc,
    .tp_traverse = (traverseproc)assigner_traverse,
    .tp_clear = (inquiry)assigner_clear,
    .tp_methods = assigner_methods,
};

int assign_add_types(PyObject *module) {
    if (PyType_Ready(&AssignEntryType) < 0 || PyType_Ready(&AssignerType) < 0) return -1;
    Py_INCREF(&AssignEntryType);
    if (PyModule_AddObject(module, "AssignEntry", (PyObject *)&AssignEntryType) < 0) {
        Py_DECREF(&AssignEntryType);
        return -1;
    }
    Py_INCREF(&AssignerType);
    if (PyModule_AddObject(module, "Assigner", (PyObject *)&AssignerType) < 0) {
        Py_DECREF(&AssignerType);
        return -1;
    }
    return 0;
}
