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

:meth:`TableTagger.label` goes further: it hands the decoder a reference's
:class:`~.features.Layout` with each word's features already as attribute ids
(:mod:`.word_ids`, once per distinct word), so no feature string is gathered per token
and none is looked up; ``_decode.c`` adds the same weights in the same order as for
:func:`~.features.featurize`'s strings (the tests compare the two sequences of ids over
the parsing gold data).

Importing this module raises ``ImportError`` in an install without compiled extensions
(``VERIFIER_PURE_PYTHON=1``: no ``_decode``); :func:`~.model.tagger` then labels through
python-crfsuite, with the same results.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from sys import intern

from . import _decode  # type: ignore[attr-defined]  # built from _decode.c
from .features import (
    CONTEXT_AFTER,
    CONTEXT_BEFORE,
    EDGES,
    ENDS_BEFORE,
    POSITIONS,
    Layout,
    lay_out,
)
from .model_file import ModelTables
from .tokens import Token
from .word_ids import WordIds

LayoutArgs = tuple[list[bytes], list[int], list[int], list[list[str]], list[tuple[str, str]],
                   dict[str, int], bytes]
"""What ``_decode.tag_layout`` and ``_decode.layout_ids`` take before the weight tables:
the word blobs, the layout's flags, chunks, placed features and pairs, the attribute ids
and the constant features' ids."""


class TableTagger:
    """The model's tables with the C decoder; ``tag`` as ``pycrfsuite.Tagger.tag``."""

    def __init__(self, tables: ModelTables) -> None:
        self._labels = tables.labels
        # Interned, as every string featurize gives is: a look-up finds its key by
        # identity (features.py's module docstring).
        self._ids = {intern(name): n for n, name in enumerate(tables.attributes)}
        self._state = tables.state_weights
        self._transitions = tables.transitions
        self._words = WordIds(self._ids)
        # The ids of the features every reference shares, in _decode.c's CONSTANT_* order.
        shared = (*POSITIONS, *ENDS_BEFORE, *CONTEXT_BEFORE, *CONTEXT_AFTER, *EDGES)
        self._constants = array("i", [self._ids.get(name, -1) for name in shared]).tobytes()

    def tag(self, xseq: list[list[str]]) -> list[str]:
        """The label of each token, given each token's feature strings (lists, as
        :func:`~.features.featurize` gives them)."""
        labels = self._labels
        ids: list[int] = _decode.decode(xseq, self._ids, self._state, self._transitions,
                                        len(labels))
        return [labels[n] for n in ids]

    def label(self, tokens: Sequence[Token], author_end: int = 0) -> list[str]:
        """The label of each token, as ``tag(featurize(tokens, author_end))`` gives, from
        the tokens' :class:`~.features.Layout` read as attribute ids."""
        if not tokens:
            return []
        labels = self._labels
        ids: list[int] = _decode.tag_layout(*self.layout_args(lay_out(tokens, author_end)),
                                            self._state, self._transitions, len(labels))
        return [labels[n] for n in ids]

    def layout_args(self, layout: Layout) -> LayoutArgs:
        """What ``_decode.tag_layout`` and ``_decode.layout_ids`` take for ``layout``
        before the weight tables (:data:`LayoutArgs`)."""
        return (self._words.blobs(layout.infos), layout.flags, layout.chunk_of,
                layout.placed, layout.pairs, self._ids, self._constants)
