"""The trained reference parser: a linear-chain CRF (python-crfsuite) labels each token
of a reference (:mod:`.tokens`, :mod:`.features`, :mod:`.labels`), and the labelled runs
become a :class:`~verifier.citations.models.Citation` (:mod:`.assemble`). The model is
trained by ``bench/train_parser.py`` on the training split (:mod:`.split`) of
``parsing_gold`` and shipped as package data (``model/parser.crfsuite``, with the data's
licence notices in ``model/NOTICE.md``)."""

from .parse import parse_trained

__all__ = ["parse_trained"]
