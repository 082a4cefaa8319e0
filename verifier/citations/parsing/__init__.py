"""Free-text citation parsing: one reference string in, one :class:`~verifier.models.Citation`
out. Rules, no model: :mod:`.core` runs the steps; :mod:`.names` reads author lists in
any of the common forms; :mod:`.tail` the volume/issue/pages/date that end a journal
reference; :mod:`.journal` splits title from journal name; :mod:`.imprint` reads books,
theses, reports and chapters; :mod:`.source` what follows a delimited title; :mod:`.text`
holds the shared clean-up, character classes and sentence boundaries.

Accuracy is measured by ``bench/parsing.py`` on hand-labelled reference strings.
``parse_citation`` never raises on any text.
"""

from .core import parse_citation
from .text import MAX_PARSE_CHARS

__all__ = ["MAX_PARSE_CHARS", "parse_citation"]
