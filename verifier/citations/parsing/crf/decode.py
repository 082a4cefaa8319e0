"""Labelling a reference with the shipped model: the C decoder over the model's tables.

:class:`TableTagger` looks each feature string up in the model's attribute dictionary,
sums the weights of the known ones per label and runs the Viterbi recursion, all in C
(``_decode.c``, built at install beside the compiled modules), over the tables
:mod:`.model_file` reads from the model file. It computes what CRFsuite's own tagger
computes, addition for addition, so its labels are the library's (the tests compare the
two over the parsing gold data, and ``verifier bench parse-identity`` over 27,738
texts). It exists for speed: python-crfsuite's ``Tagger.tag`` encodes and copies every
feature string and looks each up in the model's hashed dictionary: about 240 us of a
500 us CRF parse, against about 55 us for the C decoder.

Importing this module raises ``ImportError`` in an install without compiled extensions
(``VERIFIER_PURE_PYTHON=1``: no ``_decode``); :func:`~.model.tagger` then labels through
python-crfsuite, with the same results.
"""

from __future__ import annotations

from sys import intern

from . import _decode  # type: ignore[attr-defined]  # built from _decode.c
from .model_file import ModelTables


class TableTagger:
    """The model's tables with the C decoder; ``tag`` as ``pycrfsuite.Tagger.tag``."""

    def __init__(self, tables: ModelTables) -> None:
        self._labels = tables.labels
        # Interned, as every string featurize gives is: a look-up finds its key by
        # identity (features.py's module docstring).
        self._ids = {intern(name): n for n, name in enumerate(tables.attributes)}
        self._state = tables.state_weights
        self._transitions = tables.transitions

    def tag(self, xseq: list[list[str]]) -> list[str]:
        """The label of each token, given each token's feature strings (lists, as
        :func:`~.features.featurize` gives them)."""
        labels = self._labels
        ids: list[int] = _decode.decode(xseq, self._ids, self._state, self._transitions,
                                        len(labels))
        return [labels[n] for n in ids]
