/* The CRF parser's decoder: the best label sequence of one reference under the shipped
 * model (verifier/citations/parsing/crf/decode.py holds the contract, model_file.py reads
 * the tables, model.py falls back to python-crfsuite where this is not built).
 *
 * decode(xseq, attribute_ids, state_weights, transitions, num_labels) -> list[int]
 *
 *   xseq           a list with one list of feature strings per token
 *   attribute_ids  dict: feature string -> attribute id (features not in it are ignored)
 *   state_weights  buffer of doubles, attribute * num_labels + label
 *   transitions    buffer of doubles, from * num_labels + to
 *
 * tag_layout(words, flags, chunk_of, placed, pairs, attribute_ids, constants,
 *            state_weights, transitions, num_labels) -> list[int]
 *
 *   the same labels for the features features.py's Layout describes, read as attribute
 *   ids here instead of strings made and looked up per token: ``words`` holds each
 *   token's word blob (word_ids.py: native ints, its own features' count, their ids,
 *   its four "ends" features' ids, its eight window features' ids, -1 for a feature the
 *   model lacks), ``flags``, ``chunk_of``, ``placed`` and ``pairs`` are the Layout's,
 *   ``constants`` the ids of the features every reference shares (CONSTANT_* below).
 *
 * layout_ids(words, flags, chunk_of, placed, pairs, attribute_ids, constants)
 *   -> list[list[int]]
 *
 *   each token's known features' ids in the order tag_layout adds their weights (for the
 *   tests, which compare it with featurize's strings looked up in attribute_ids).
 *
 * Both compute what CRFsuite's tagger computes (crf1d_tag.c, crf1d_context.c): each
 * token's state score per label is the sum of its known features' weights, added in
 * the features' order (each feature's value is 1.0); then the Viterbi recursion over
 * log-domain scores, keeping the first of equal maxima (a strictly greater score
 * replaces the best), the last token's best label found the same way, and the path
 * traced back. The same additions in the same order give the same doubles, so the
 * labels are the library's. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>

/* On x86-64 with GCC or Clang, relax() is built twice, for AVX2 and for the baseline,
 * and the loader picks the one the processor runs (the baseline's SSE2 has no blend, so
 * the compiler leaves that copy one label at a time). Elsewhere it is built once. */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define PER_PROCESSOR __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef PER_PROCESSOR
#define PER_PROCESSOR
#endif

/* One step of the recursion for every label j at once: the score of coming from label
 * ``i`` (``before`` plus the transition ``row[j]``) replaces ``best[j]`` and ``from[j]``
 * when strictly greater. Branch-free over arrays that do not overlap, so the compiler
 * can run it over several labels per instruction. */
PER_PROCESSOR
static void relax(double *restrict best, int64_t *restrict from, const double *restrict row,
                  const double before, const int64_t i, const Py_ssize_t labels) {
    for (Py_ssize_t j = 0; j < labels; ++j) {
        const double value = before + row[j];
        const double held = best[j];
        const int64_t was = from[j];
        const int better = held < value;
        best[j] = better ? value : held;
        from[j] = better ? i : was;
    }
}

/* The model's weight tables, checked against the label count. */
typedef struct {
    const double *weights; /* attribute * labels + label */
    const double *trans;   /* from * labels + to */
    Py_ssize_t labels;
    Py_ssize_t attributes;
} Tables;

static int tables_of(Tables *tables, const Py_buffer *state, const Py_buffer *trans,
                     Py_ssize_t labels) {
    const Py_ssize_t attributes =
        labels > 0 ? state->len / (Py_ssize_t)sizeof(double) / labels : 0;
    if (labels <= 0 || trans->len != (Py_ssize_t)sizeof(double) * labels * labels
        || state->len != (Py_ssize_t)sizeof(double) * labels * attributes) {
        PyErr_SetString(PyExc_ValueError, "the weight tables do not match the label count");
        return -1;
    }
    tables->weights = (const double *)state->buf;
    tables->trans = (const double *)trans->buf;
    tables->labels = labels;
    tables->attributes = attributes;
    return 0;
}

/* Adds attribute ``attribute``'s weights to one token's scores. */
static int add_weights(double *score, const Tables *tables, Py_ssize_t attribute) {
    if (attribute < 0 || attribute >= tables->attributes) {
        PyErr_SetString(PyExc_ValueError, "an attribute id out of range");
        return -1;
    }
    const Py_ssize_t labels = tables->labels;
    const double *row = tables->weights + attribute * labels;
    for (Py_ssize_t j = 0; j < labels; ++j)
        score[j] += row[j];
    return 0;
}

/* A new list of the ``n`` ints at ``values``, or NULL with an exception set. */
static PyObject *int_list(const int *values, Py_ssize_t n) {
    PyObject *list = PyList_New(n);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; ++k) {
        PyObject *value = PyLong_FromLong(values[k]);
        if (value == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, value);
    }
    return list;
}

/* The best label of each of ``count`` tokens (count > 0) given their state scores
 * (``state``, count * labels): a new list, or NULL with an exception set. */
static PyObject *best_path(const double *state, Py_ssize_t count, const Tables *tables) {
    const Py_ssize_t labels = tables->labels;
    const double *trans = tables->trans;
    PyObject *result = NULL;
    double *alpha = malloc(sizeof(double) * (size_t)(count * labels));
    int *back = malloc(sizeof(int) * (size_t)(count * labels));
    int *path = malloc(sizeof(int) * (size_t)count);
    int64_t *from = malloc(sizeof(int64_t) * (size_t)labels);
    if (!alpha || !back || !path || !from) {
        PyErr_NoMemory();
        goto done;
    }
    /* For each label j, cur[j] becomes the greatest prev[i] + trans[i][j] over the labels
     * i taken in increasing order, a strictly greater score replacing the best, so the
     * first of equal maxima is kept; the loop over j is innermost (relax), so the
     * compiler can run it over several labels at once (the comparisons and additions
     * are the same, so are the results). */
    for (Py_ssize_t j = 0; j < labels; ++j)
        alpha[j] = state[j];
    for (Py_ssize_t t = 1; t < count; ++t) {
        const double *prev = alpha + (t - 1) * labels;
        double *cur = alpha + t * labels;
        const double *score = state + t * labels;
        int *edge = back + t * labels;
        for (Py_ssize_t j = 0; j < labels; ++j) {
            cur[j] = -DBL_MAX;
            from[j] = 0;
        }
        for (Py_ssize_t i = 0; i < labels; ++i)
            relax(cur, from, trans + i * labels, prev[i], (int64_t)i, labels);
        for (Py_ssize_t j = 0; j < labels; ++j)
            edge[j] = (int)from[j];
        for (Py_ssize_t j = 0; j < labels; ++j)
            cur[j] += score[j];
    }
    {
        const double *last = alpha + (count - 1) * labels;
        double best = -DBL_MAX;
        path[count - 1] = 0;
        for (Py_ssize_t i = 0; i < labels; ++i) {
            if (best < last[i]) {
                best = last[i];
                path[count - 1] = (int)i;
            }
        }
    }
    for (Py_ssize_t t = count - 2; t >= 0; --t)
        path[t] = back[(t + 1) * labels + path[t + 1]];

    result = int_list(path, count);
done:
    free(alpha);
    free(back);
    free(path);
    free(from);
    return result;
}

/* Adds token ``t``'s known features' weights to its state scores ``score`` (zeroed):
 * 0, or -1 with an exception set. ``tokens`` is what the caller reads the features from
 * (decode's feature lists, tag_layout's layout): the one thing the two differ in. */
typedef int (*ScoreToken)(const void *tokens, Py_ssize_t t, double *score,
                          const Tables *tables);

/* The best label of each of ``count`` tokens, whose state scores ``score_token`` adds:
 * a new list (empty for no token), or NULL with an exception set. */
static PyObject *label_tokens(Py_ssize_t count, const Tables *tables,
                              ScoreToken score_token, const void *tokens) {
    if (count == 0)
        return PyList_New(0);
    const Py_ssize_t labels = tables->labels;
    PyObject *result = NULL;
    double *state = calloc((size_t)(count * labels), sizeof(double));
    if (!state)
        return PyErr_NoMemory();
    for (Py_ssize_t t = 0; t < count; ++t)
        if (score_token(tokens, t, state + t * labels, tables) < 0)
            goto done;
    result = best_path(state, count, tables);
done:
    free(state);
    return result;
}

/* decode's tokens: one list of feature strings per token, and the strings' ids. */
typedef struct {
    PyObject *xseq;
    PyObject *attribute_ids;
} FeatureLists;

/* A ScoreToken over FeatureLists: each known feature's weights, in order. */
static int score_feature_list(const void *tokens, Py_ssize_t t, double *score,
                              const Tables *tables) {
    const FeatureLists *lists = tokens;
    PyObject *item = PyList_GET_ITEM(lists->xseq, t);
    if (!PyList_Check(item)) {
        PyErr_Format(PyExc_TypeError, "token %zd's features are not a list", t);
        return -1;
    }
    PyObject *attribute_ids = lists->attribute_ids;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(item); ++k) {
        PyObject *id = PyDict_GetItemWithError(attribute_ids, PyList_GET_ITEM(item, k));
        if (id == NULL) {
            if (PyErr_Occurred())
                return -1;
            continue;
        }
        Py_ssize_t attribute = PyLong_AsSsize_t(id);
        if (attribute == -1 && PyErr_Occurred())
            return -1;
        if (add_weights(score, tables, attribute) < 0)
            return -1;
    }
    return 0;
}

static PyObject *decode(PyObject *self, PyObject *args) {
    FeatureLists lists;
    PyObject *result = NULL;
    Py_buffer state_buf = {0}, trans_buf = {0};
    Py_ssize_t labels;
    Tables tables;

    if (!PyArg_ParseTuple(args, "O!O!y*y*n", &PyList_Type, &lists.xseq, &PyDict_Type,
                          &lists.attribute_ids, &state_buf, &trans_buf, &labels))
        return NULL;
    if (tables_of(&tables, &state_buf, &trans_buf, labels) == 0)
        result = label_tokens(PyList_GET_SIZE(lists.xseq), &tables, score_feature_list,
                              &lists);
    PyBuffer_Release(&state_buf);
    PyBuffer_Release(&trans_buf);
    return result;
}

/* The ids of the features every reference shares, in the ``constants`` buffer in this
 * order (decode.py builds it from features.py's tables). */
enum {
    CONSTANT_POSITIONS = 0,   /* 10: POSITIONS */
    CONSTANT_ENDS = 10,       /* 5: ENDS_BEFORE */
    CONSTANT_CONTEXT = 15,    /* 10: CONTEXT_BEFORE (4), then CONTEXT_AFTER (6) */
    CONSTANT_EDGES = 25,      /* 4: EDGES */
    CONSTANT_COUNT = 29,
};
enum { CONTEXT_BEFORE = 4, CONTEXT_AFTER = 6, ENDED_SHIFT = 10, MAX_ENDED = 4 };
/* A word blob: [own count n, n own ids, 4 "ends" ids, 8 window ids]. */
enum { BLOB_ENDS = 4, BLOB_WINDOW = 8, BLOB_FIXED = 1 + BLOB_ENDS + BLOB_WINDOW };

/* One reference's features as ids, read from the Python objects (see the module doc). */
typedef struct {
    Py_ssize_t count;
    const int **word;      /* each token's word blob */
    long *flags;
    Py_ssize_t *chunk_of;
    int *placed;           /* every chunk's ids, chunk after chunk (-1: unknown) */
    Py_ssize_t *placed_at; /* chunk k's: placed[placed_at[k]] .. placed[placed_at[k + 1]] */
    Py_ssize_t most_placed;
    int *pair;             /* per pair of neighbours: the left one's id, the right one's */
    const int *constants;
} Layout;

static void layout_free(Layout *layout) {
    free((void *)layout->word);
    free(layout->flags);
    free(layout->chunk_of);
    free(layout->placed);
    free(layout->placed_at);
    free(layout->pair);
}

/* The attribute id of the feature string ``name``, -1 when the model lacks it, -2 with
 * an exception set. */
static int id_of(PyObject *attribute_ids, PyObject *name) {
    PyObject *id = PyDict_GetItemWithError(attribute_ids, name);
    if (id == NULL)
        return PyErr_Occurred() ? -2 : -1;
    long value = PyLong_AsLong(id);
    if (value == -1 && PyErr_Occurred())
        return -2;
    if (value < 0 || value > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "an attribute id out of range");
        return -2;
    }
    return (int)value;
}

static int layout_read(Layout *layout, PyObject *words, PyObject *flags, PyObject *chunk_of,
                       PyObject *placed, PyObject *pairs, PyObject *attribute_ids,
                       const Py_buffer *constants) {
    const Py_ssize_t count = PyList_GET_SIZE(words);
    const Py_ssize_t chunks = PyList_GET_SIZE(placed);
    layout->count = count;
    if (constants->len != (Py_ssize_t)sizeof(int) * CONSTANT_COUNT) {
        PyErr_SetString(PyExc_ValueError, "the constant features' ids are not 29 ints");
        return -1;
    }
    layout->constants = (const int *)constants->buf;
    if (PyList_GET_SIZE(flags) != count || PyList_GET_SIZE(chunk_of) != count
        || PyList_GET_SIZE(pairs) != (count > 0 ? count - 1 : 0)) {
        PyErr_SetString(PyExc_ValueError,
                        "words, flags, chunk_of and pairs do not fit one token count");
        return -1;
    }
    layout->word = malloc(sizeof(int *) * (size_t)(count + 1));
    layout->flags = malloc(sizeof(long) * (size_t)(count + 1));
    layout->chunk_of = malloc(sizeof(Py_ssize_t) * (size_t)(count + 1));
    layout->placed_at = malloc(sizeof(Py_ssize_t) * (size_t)(chunks + 1));
    layout->pair = malloc(sizeof(int) * (size_t)(2 * count + 1));
    if (!layout->word || !layout->flags || !layout->chunk_of || !layout->placed_at
        || !layout->pair) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t t = 0; t < count; ++t) {
        PyObject *blob = PyList_GET_ITEM(words, t);
        if (!PyBytes_Check(blob)) {
            PyErr_Format(PyExc_TypeError, "token %zd's word blob is not bytes", t);
            return -1;
        }
        const Py_ssize_t size = PyBytes_GET_SIZE(blob);
        const int *ints = (const int *)PyBytes_AS_STRING(blob);
        if (size % (Py_ssize_t)sizeof(int) != 0 || size < (Py_ssize_t)sizeof(int) * BLOB_FIXED
            || ints[0] != size / (Py_ssize_t)sizeof(int) - BLOB_FIXED) {
            PyErr_Format(PyExc_ValueError, "token %zd's word blob has the wrong length", t);
            return -1;
        }
        layout->word[t] = ints;
        long bits = PyLong_AsLong(PyList_GET_ITEM(flags, t));
        if (bits == -1 && PyErr_Occurred())
            return -1;
        if (bits < 0 || (bits >> ENDED_SHIFT) > MAX_ENDED) {
            PyErr_Format(PyExc_ValueError, "token %zd's flags are out of range", t);
            return -1;
        }
        layout->flags[t] = bits;
        Py_ssize_t chunk = PyLong_AsSsize_t(PyList_GET_ITEM(chunk_of, t));
        if (chunk == -1 && PyErr_Occurred())
            return -1;
        if (chunk < 0 || chunk >= chunks) {
            PyErr_Format(PyExc_ValueError, "token %zd's chunk is out of range", t);
            return -1;
        }
        layout->chunk_of[t] = chunk;
    }
    Py_ssize_t total = 0;
    layout->most_placed = 0;
    for (Py_ssize_t k = 0; k < chunks; ++k) {
        PyObject *features = PyList_GET_ITEM(placed, k);
        if (!PyList_Check(features)) {
            PyErr_Format(PyExc_TypeError, "chunk %zd's features are not a list", k);
            return -1;
        }
        layout->placed_at[k] = total;
        total += PyList_GET_SIZE(features);
        if (PyList_GET_SIZE(features) > layout->most_placed)
            layout->most_placed = PyList_GET_SIZE(features);
    }
    layout->placed_at[chunks] = total;
    layout->placed = malloc(sizeof(int) * (size_t)(total + 1));
    if (!layout->placed) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < chunks; ++k) {
        PyObject *features = PyList_GET_ITEM(placed, k);
        for (Py_ssize_t n = 0; n < PyList_GET_SIZE(features); ++n) {
            int id = id_of(attribute_ids, PyList_GET_ITEM(features, n));
            if (id == -2)
                return -1;
            layout->placed[layout->placed_at[k] + n] = id;
        }
    }
    for (Py_ssize_t p = 0; p < PyList_GET_SIZE(pairs); ++p) {
        PyObject *pair = PyList_GET_ITEM(pairs, p);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_Format(PyExc_TypeError, "pair %zd is not a tuple of two features", p);
            return -1;
        }
        for (Py_ssize_t side = 0; side < 2; ++side) {
            int id = id_of(attribute_ids, PyTuple_GET_ITEM(pair, side));
            if (id == -2)
                return -1;
            layout->pair[2 * p + side] = id;
        }
    }
    return 0;
}

/* The most ids any token of the layout can have (the size a token's buffer needs). */
static Py_ssize_t most_ids(const Layout *layout) {
    int most_own = 0;
    for (Py_ssize_t t = 0; t < layout->count; ++t)
        if (layout->word[t][0] > most_own)
            most_own = layout->word[t][0];
    return most_own + 3 + CONTEXT_BEFORE + layout->most_placed + CONTEXT_AFTER + 2 * 4 + 2;
}

/* Token ``t``'s known features' ids into ``out``, in features.py's Layout order; returns
 * how many. */
static Py_ssize_t token_ids(const Layout *layout, Py_ssize_t t, int *out) {
    Py_ssize_t n = 0;
#define EMIT(value)            \
    do {                       \
        const int id_ = (value); \
        if (id_ >= 0)          \
            out[n++] = id_;    \
    } while (0)
    const Py_ssize_t count = layout->count;
    const int *constants = layout->constants;
    const int *blob = layout->word[t];
    const int own = blob[0];
    for (int k = 1; k <= own; ++k)
        EMIT(blob[k]);
    const long bits = layout->flags[t];
    const int ended = (int)(bits >> ENDED_SHIFT);
    EMIT(constants[CONSTANT_POSITIONS + 10 * t / count]);
    EMIT(constants[CONSTANT_ENDS + ended]);
    EMIT(blob[1 + own + (ended < 3 ? ended : 3)]);
    for (int k = 0; k < CONTEXT_BEFORE; ++k)
        if (bits >> k & 1)
            EMIT(constants[CONSTANT_CONTEXT + k]);
    const Py_ssize_t chunk = layout->chunk_of[t];
    for (Py_ssize_t k = layout->placed_at[chunk]; k < layout->placed_at[chunk + 1]; ++k)
        EMIT(layout->placed[k]);
    for (int k = 0; k < CONTEXT_AFTER; ++k)
        if (bits >> (k + CONTEXT_BEFORE) & 1)
            EMIT(constants[CONSTANT_CONTEXT + CONTEXT_BEFORE + k]);
    /* The neighbours' window features: token t - 2's pair for offset -2 (window slots 0
     * and 1), t - 1's for -1 (2, 3), t + 1's for +1 (4, 5), t + 2's for +2 (6, 7). */
    static const Py_ssize_t offsets[4] = {-2, -1, 1, 2};
    for (int k = 0; k < 4; ++k) {
        const Py_ssize_t other = t + offsets[k];
        if (other < 0 || other >= count) {
            EMIT(constants[CONSTANT_EDGES + k]);
            continue;
        }
        const int *window = layout->word[other] + 1 + layout->word[other][0] + BLOB_ENDS;
        EMIT(window[2 * k]);
        EMIT(window[2 * k + 1]);
    }
    if (t > 0)
        EMIT(layout->pair[2 * (t - 1) + 1]);
    if (t + 1 < count)
        EMIT(layout->pair[2 * t]);
#undef EMIT
    return n;
}

/* tag_layout's tokens: the layout, and a buffer for one token's ids. */
typedef struct {
    const Layout *layout;
    int *ids; /* most_ids(layout) ints */
} LaidOut;

/* A ScoreToken over LaidOut: the token's ids (token_ids), each one's weights in order. */
static int score_laid_out(const void *tokens, Py_ssize_t t, double *score,
                          const Tables *tables) {
    const LaidOut *laid = tokens;
    const Py_ssize_t n = token_ids(laid->layout, t, laid->ids);
    for (Py_ssize_t k = 0; k < n; ++k)
        if (add_weights(score, tables, laid->ids[k]) < 0)
            return -1;
    return 0;
}

static PyObject *tag_layout(PyObject *self, PyObject *args) {
    PyObject *words, *flags, *chunk_of, *placed, *pairs, *attribute_ids, *result = NULL;
    Py_buffer constants = {0}, state_buf = {0}, trans_buf = {0};
    Py_ssize_t labels;
    Tables tables;
    Layout layout = {0};
    LaidOut laid = {&layout, NULL};

    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!y*y*y*n", &PyList_Type, &words, &PyList_Type,
                          &flags, &PyList_Type, &chunk_of, &PyList_Type, &placed,
                          &PyList_Type, &pairs, &PyDict_Type, &attribute_ids, &constants,
                          &state_buf, &trans_buf, &labels))
        return NULL;
    if (tables_of(&tables, &state_buf, &trans_buf, labels) < 0)
        goto done;
    if (layout_read(&layout, words, flags, chunk_of, placed, pairs, attribute_ids,
                    &constants) < 0)
        goto done;
    laid.ids = malloc(sizeof(int) * (size_t)most_ids(&layout)); /* never 0 ints */
    if (!laid.ids) {
        PyErr_NoMemory();
        goto done;
    }
    result = label_tokens(layout.count, &tables, score_laid_out, &laid);

done:
    free(laid.ids);
    layout_free(&layout);
    PyBuffer_Release(&constants);
    PyBuffer_Release(&state_buf);
    PyBuffer_Release(&trans_buf);
    return result;
}

static PyObject *layout_ids(PyObject *self, PyObject *args) {
    PyObject *words, *flags, *chunk_of, *placed, *pairs, *attribute_ids, *result = NULL;
    Py_buffer constants = {0};
    Layout layout = {0};
    int *ids = NULL;

    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!y*", &PyList_Type, &words, &PyList_Type,
                          &flags, &PyList_Type, &chunk_of, &PyList_Type, &placed,
                          &PyList_Type, &pairs, &PyDict_Type, &attribute_ids, &constants))
        return NULL;
    if (layout_read(&layout, words, flags, chunk_of, placed, pairs, attribute_ids,
                    &constants) < 0)
        goto done;
    result = PyList_New(layout.count);
    if (result == NULL || layout.count == 0)
        goto done;
    ids = malloc(sizeof(int) * (size_t)most_ids(&layout));
    if (!ids) {
        PyErr_NoMemory();
        Py_CLEAR(result);
        goto done;
    }
    for (Py_ssize_t t = 0; t < layout.count; ++t) {
        PyObject *token = int_list(ids, token_ids(&layout, t, ids));
        if (token == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, t, token);
    }

done:
    free(ids);
    layout_free(&layout);
    PyBuffer_Release(&constants);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS,
     "decode(xseq, attribute_ids, state_weights, transitions, num_labels) -> list[int]:\n"
     "the best label id of each token (see verifier/citations/parsing/crf/decode.py)."},
    {"tag_layout", tag_layout, METH_VARARGS,
     "tag_layout(words, flags, chunk_of, placed, pairs, attribute_ids, constants,\n"
     "           state_weights, transitions, num_labels) -> list[int]:\n"
     "the best label id of each token of a features.Layout (see the module source)."},
    {"layout_ids", layout_ids, METH_VARARGS,
     "layout_ids(words, flags, chunk_of, placed, pairs, attribute_ids, constants)\n"
     "-> list[list[int]]: each token's known features' ids, in the order tag_layout\n"
     "adds their weights."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_decode",
    "The CRF parser's decoder in C (see verifier/citations/parsing/crf/decode.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__decode(void) { return PyModule_Create(&module); }
