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
 * It computes what CRFsuite's tagger computes (crf1d_tag.c, crf1d_context.c): each
 * token's state score per label is the sum of its known features' weights, added in
 * the features' order (each feature's value is 1.0); then the Viterbi recursion over
 * log-domain scores, keeping the first of equal maxima (a strictly greater score
 * replaces the best), the last token's best label found the same way, and the path
 * traced back. The same additions in the same order give the same doubles, so the
 * labels are the library's. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <stdlib.h>

static PyObject *decode(PyObject *self, PyObject *args) {
    PyObject *xseq, *attribute_ids, *result = NULL;
    Py_buffer state_buf = {0}, trans_buf = {0};
    Py_ssize_t labels;
    double *state = NULL, *alpha = NULL;
    int *back = NULL, *path = NULL;

    if (!PyArg_ParseTuple(args, "O!O!y*y*n", &PyList_Type, &xseq, &PyDict_Type,
                          &attribute_ids, &state_buf, &trans_buf, &labels))
        return NULL;
    const Py_ssize_t count = PyList_GET_SIZE(xseq);
    const double *weights = (const double *)state_buf.buf;
    const double *trans = (const double *)trans_buf.buf;
    const Py_ssize_t num_attributes =
        labels > 0 ? state_buf.len / (Py_ssize_t)sizeof(double) / labels : 0;
    if (labels <= 0 || trans_buf.len != (Py_ssize_t)sizeof(double) * labels * labels
        || state_buf.len != (Py_ssize_t)sizeof(double) * labels * num_attributes) {
        PyErr_SetString(PyExc_ValueError, "the weight tables do not match the label count");
        goto done;
    }
    if (count == 0) {
        result = PyList_New(0);
        goto done;
    }
    state = calloc((size_t)(count * labels), sizeof(double));
    alpha = malloc(sizeof(double) * (size_t)(count * labels));
    back = malloc(sizeof(int) * (size_t)(count * labels));
    path = malloc(sizeof(int) * (size_t)count);
    if (!state || !alpha || !back || !path) {
        PyErr_NoMemory();
        goto done;
    }

    /* State scores: each known feature's weights, in order. */
    for (Py_ssize_t t = 0; t < count; ++t) {
        PyObject *item = PyList_GET_ITEM(xseq, t);
        if (!PyList_Check(item)) {
            PyErr_Format(PyExc_TypeError, "token %zd's features are not a list", t);
            goto done;
        }
        double *score = state + t * labels;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(item); ++k) {
            PyObject *id = PyDict_GetItemWithError(attribute_ids, PyList_GET_ITEM(item, k));
            if (id == NULL) {
                if (PyErr_Occurred())
                    goto done;
                continue;
            }
            Py_ssize_t attribute = PyLong_AsSsize_t(id);
            if (attribute < 0 || attribute >= num_attributes) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "an attribute id out of range");
                goto done;
            }
            const double *row = weights + attribute * labels;
            for (Py_ssize_t j = 0; j < labels; ++j)
                score[j] += row[j];
        }
    }

    /* Viterbi. */
    for (Py_ssize_t j = 0; j < labels; ++j)
        alpha[j] = state[j];
    for (Py_ssize_t t = 1; t < count; ++t) {
        const double *prev = alpha + (t - 1) * labels;
        double *cur = alpha + t * labels;
        const double *score = state + t * labels;
        int *edge = back + t * labels;
        for (Py_ssize_t j = 0; j < labels; ++j) {
            double best = -DBL_MAX;
            int from = 0;
            for (Py_ssize_t i = 0; i < labels; ++i) {
                double value = prev[i] + trans[i * labels + j];
                if (best < value) {
                    best = value;
                    from = (int)i;
                }
            }
            edge[j] = from;
            cur[j] = best + score[j];
        }
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

    result = PyList_New(count);
    if (result == NULL)
        goto done;
    for (Py_ssize_t t = 0; t < count; ++t) {
        PyObject *label = PyLong_FromLong(path[t]);
        if (label == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, t, label);
    }

done:
    free(state);
    free(alpha);
    free(back);
    free(path);
    PyBuffer_Release(&state_buf);
    PyBuffer_Release(&trans_buf);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS,
     "decode(xseq, attribute_ids, state_weights, transitions, num_labels) -> list[int]:\n"
     "the best label id of each token (see verifier/citations/parsing/crf/decode.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_decode",
    "The CRF parser's decoder in C (see verifier/citations/parsing/crf/decode.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__decode(void) { return PyModule_Create(&module); }
