"""Free-text citation parsing: one reference string in, one :class:`~verifier.models.Citation`
out.

Two parsers, measured side by side by ``bench/parsing.py`` on the validation split of
hand-labelled reference strings, and their combination, the default
(:mod:`.combined`: the rules for author-date references they complete, the CRF for the
rest):

* :mod:`.crf` (``parse_trained``): a CRF trained on labelled references segments the
  string; identifiers and names are read by the rules below.
* :mod:`.core` (``core.parse_citation``): rules, no model. :mod:`.core` runs the steps;
  :mod:`.names` reads author lists in any of the common forms; :mod:`.tail` the
  volume/issue/pages/date that end a journal reference; :mod:`.journal` splits title
  from journal name; :mod:`.imprint` reads books, theses, reports and chapters;
  :mod:`.source` what follows a delimited title; :mod:`.text` holds the shared clean-up,
  character classes and sentence boundaries.

``parse_citation`` is the default (:data:`DEFAULT_PARSER` names it) and never raises on
any text. It opens the CRF's model file on first use; code on an event loop runs
:func:`warm_up` on a worker thread first (until :func:`is_warm`), so no parse reads it on
the loop.
"""

from .combined import parse_citation
from .crf.model import is_loaded as is_warm
from .crf.model import warm_up
from .text import MAX_PARSE_CHARS

DEFAULT_PARSER = "combined"
"""The name (in ``bench/parsing.py``) of the parser ``parse_citation`` is."""

__all__ = ["DEFAULT_PARSER", "MAX_PARSE_CHARS", "is_warm", "parse_citation", "warm_up"]
