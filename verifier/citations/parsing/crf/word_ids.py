"""Each word's features as one model's attribute ids, made once per distinct word: the
"word blobs" the C decoder reads (``_decode.c``'s ``tag_layout``).

A blob is the bytes of native C ints ``[n, own ids (n), ends ids (4), window ids (8)]``:
the word's own features (:attr:`~.features.WordInfo.own`) the model knows, in order;
then its four "ends" features and its eight window features (:attr:`~.features.WordInfo.
ends`, :attr:`~.features.WordInfo.window` flattened), -1 where the model lacks one. A
feature the model lacks adds no weight, so leaving it out changes no score.

Compiled (``native-modules.txt``): every token of a reference the CRF labels asks for
one.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from verifier.value_memos import keep, register_memo

from .features import WordInfo

WORDS_MAX = 65536
"""Blobs a :class:`WordIds` keeps at most (all are forgotten when it is full)."""


class WordIds:
    """One model's word blobs, by word (see the module doc); a value memo of the
    process (:mod:`verifier.value_memos`), registered when made."""

    __slots__ = ("_ids", "_memo")

    def __init__(self, ids: dict[str, int]) -> None:
        self._ids = ids
        # By the id of the WordInfo, which the entry holds, so no other object can take
        # that id while it is there: an int's hash, where the WordInfo's own is a hash of
        # all its fields. features.py keeps one WordInfo per distinct word.
        self._memo: dict[int, tuple[WordInfo, bytes]] = {}
        register_memo(self._memo.clear)

    def __len__(self) -> int:
        """Blobs held."""
        return len(self._memo)

    def blobs(self, infos: Sequence[WordInfo]) -> list[bytes]:
        """The blob of each word."""
        memo = self._memo
        found: list[bytes] = []
        for info in infos:
            entry = memo.get(id(info))
            if entry is None:
                entry = keep(memo, id(info), (info, self.blob(info)), WORDS_MAX)
            found.append(entry[1])
        return found

    def blob(self, info: WordInfo) -> bytes:
        """One word's blob, made anew."""
        get = self._ids.get
        own = [n for n in (get(feature, -1) for feature in info.own) if n >= 0]
        values = [len(own), *own, *(get(feature, -1) for feature in info.ends)]
        for word_feature, class_feature in info.window:
            values.append(get(word_feature, -1))
            values.append(get(class_feature, -1))
        return array("i", values).tobytes()
