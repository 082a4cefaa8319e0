"""The shipped model file read into tables: CRFsuite's ``crf1d`` format (``lCRF``/``FOMC``,
written by ``bench/train_parser.py`` through python-crfsuite).

The file is a header, a chunk of features (each a type, a source, a destination and a
little-endian double weight: type 0 is a state feature, attribute -> label; type 1 a
transition, label -> label), and two string dictionaries in CRFsuite's CQDB format (the
labels and the attributes), whose backward arrays give each id's string. Read here once,
so the decoder (:mod:`.decode`) scores a reference from a dense table of weights instead
of asking the library through its wrapper.

Contract: :func:`read_model` gives the labels and attributes by id as the library numbers
them, every state weight at ``attribute * len(labels) + label`` and every transition at
``from * len(labels) + to`` (0.0 where the model has no feature), exactly as stored.
Raises ``OSError`` when the file cannot be read and ``ValueError`` naming the file when
it is not such a model.
"""

from __future__ import annotations

import struct
from array import array
from pathlib import Path
from typing import NamedTuple

_HEADER = struct.Struct("<4sI4sIIIIIIIII")
_CHUNK = struct.Struct("<4sII")
_FEATURE = struct.Struct("<IIId")
_CQDB = struct.Struct("<4sIIIII")
_RECORD = struct.Struct("<II")
_STATE, _TRANSITION = 0, 1


class ModelTables(NamedTuple):
    """A model's labels and attributes by id, and its weights (see the module doc)."""

    labels: tuple[str, ...]
    attributes: tuple[str, ...]
    state_weights: array[float]
    transitions: array[float]


def read_model(path: Path) -> ModelTables:
    """The tables of the ``crf1d`` model at ``path`` (see the module doc)."""
    data = path.read_bytes()
    try:
        return _tables(data)
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a readable CRFsuite model ({exc})") from exc


def _tables(data: bytes) -> ModelTables:
    (magic, _size, kind, _version, _features, num_labels, num_attrs, off_features,
     off_labels, off_attrs, _off_labelrefs, _off_attrrefs) = _HEADER.unpack_from(data, 0)
    if magic != b"lCRF" or kind != b"FOMC":
        raise ValueError(f"the header reads {magic!r}/{kind!r}, not b'lCRF'/b'FOMC'")
    labels = _strings(data, off_labels)
    attributes = _strings(data, off_attrs)
    if len(labels) != num_labels or len(attributes) != num_attrs:
        raise ValueError(f"the dictionaries hold {len(labels)} labels and {len(attributes)} "
                         f"attributes, the header says {num_labels} and {num_attrs}")
    chunk, _chunk_size, count = _CHUNK.unpack_from(data, off_features)
    if chunk != b"FEAT":
        raise ValueError(f"the feature chunk reads {chunk!r}, not b'FEAT'")
    state = array("d", bytes(8 * num_attrs * num_labels))
    transitions = array("d", bytes(8 * num_labels * num_labels))
    for kind_of, source, target, weight in _FEATURE.iter_unpack(
            data[off_features + _CHUNK.size:off_features + _CHUNK.size
                 + count * _FEATURE.size]):
        if kind_of == _STATE:
            state[source * num_labels + target] = weight
        elif kind_of == _TRANSITION:
            transitions[source * num_labels + target] = weight
        else:
            raise ValueError(f"a feature of unknown type {kind_of}")
    return ModelTables(labels, attributes, state, transitions)


def _strings(data: bytes, offset: int) -> tuple[str, ...]:
    """The strings of the CQDB dictionary at ``offset``, by id (its backward array)."""
    chunk, _size, _flag, _byteorder, count, backward = _CQDB.unpack_from(data, offset)
    if chunk != b"CQDB":
        raise ValueError(f"a dictionary reads {chunk!r}, not b'CQDB'")
    strings: list[str] = []
    for n, record in enumerate(struct.unpack_from(f"<{count}I", data, offset + backward)):
        start = offset + record
        key_id, key_size = _RECORD.unpack_from(data, start)
        if key_id != n or key_size < 1:
            raise ValueError(f"dictionary record {n} reads id {key_id}, size {key_size}")
        key = data[start + _RECORD.size:start + _RECORD.size + key_size - 1]
        strings.append(key.decode("utf-8"))
    return tuple(strings)
