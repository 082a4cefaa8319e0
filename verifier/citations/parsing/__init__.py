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
any text.
"""

from .combined import parse_citation
from .text import MAX_PARSE_CHARS

DEFAULT_PARSER = "combined"
"""The name (in ``bench/parsing.py``) of the parser ``parse_citation`` is."""

__all__ = ["DEFAULT_PARSER", "MAX_PARSE_CHARS", "parse_citation"]
