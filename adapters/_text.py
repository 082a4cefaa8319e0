"""Pure text helpers the adapters share: reading bodies and header values, cleaning
display text, splitting person names, and DOI strings.

Only display cleaning lives here. Normalisation for matching (case, accents,
punctuation) belongs to ``verifier.normalize``, not to the adapters.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any
from urllib.parse import quote

import orjson

from verifier.citations.models import Author, Citation
from verifier.citations.normalize import PARTICLES, strip_markup
from verifier.errors import MalformedResponse
from verifier.http.transport import HttpResponse
from verifier.identifiers import strip_doi_prefix

_RETRACTED_PREFIX = re.compile(r"^\s*retracted(?:\s+article)?\s*:\s*", re.I)
_NAME_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


def json_body(response: HttpResponse, source: str) -> Any:
    """The decoded JSON body, or ``MalformedResponse`` naming what came instead."""
    try:
        return orjson.loads(response.body)
    except orjson.JSONDecodeError as exc:
        kind = response.content_type or "no content type"
        raise MalformedResponse(
            f"{source}: HTTP {response.status} body is not JSON ({kind}): {exc}"
        ) from exc


def json_object(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (absent and null read alike)."""
    return value if isinstance(value, dict) else {}


def header_number(value: str | None) -> float | None:
    """A numeric header value, or None when absent or unreadable."""
    if value is None:
        return None
    try:
        return float(value.strip())
    except ValueError:
        return None


def clean_text(value: object) -> str:
    """Display text without JATS/HTML/MathML markup, entities resolved, spaces collapsed.

    Anything that is not a string reads as "".
    """
    if not isinstance(value, str):
        return ""
    if value.isascii() and "<" not in value and "&" not in value:
        # Fast path, same output: strip_markup leaves such text as it is and NFC leaves
        # ASCII as it is (property-tested against the slow path).
        return " ".join(value.split())
    text = strip_markup(value)
    if not text.isascii():
        # NFC leaves ASCII text as it is: only other text needs normalising.
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def strip_retracted_prefix(title: str) -> tuple[str, bool]:
    """Remove a publisher's "RETRACTED:" / "RETRACTED ARTICLE:" title prefix.

    Returns the title and whether the prefix was there.
    """
    # The prefix begins, after any spaces, with an "r" in either case. A title whose
    # first other character is a different ASCII one (most titles) cannot hold it, and
    # is given back without running the pattern (property-tested against the pattern).
    first = title.lstrip()[:1]
    if first and first.isascii() and first not in "rR":
        return title, False
    stripped = _RETRACTED_PREFIX.sub("", title, count=1)
    return stripped, stripped != title


def split_person_name(name: str) -> Author | None:
    """An ``Author`` from a name written as one string, or None for an empty name.

    "Family, Given" is split at the comma; "Given Middle Family" takes the last word as
    the family name, together with particles in front of it ("de", "van der"). A
    trailing "Jr."/"III" is dropped.
    """
    name = " ".join(name.split())
    if not name:
        return None
    if "," in name:
        family, _, given = name.partition(",")
        given_parts = [p for p in given.split(",") if p.strip().lower() not in _NAME_SUFFIXES]
        return Author(family=family.strip(), given=" ".join(", ".join(given_parts).split()))
    words = name.split(" ")
    while len(words) > 1 and words[-1].lower() in _NAME_SUFFIXES:
        words.pop()
    start = len(words) - 1
    # Keep at least one given name: in "Van Nguyen", "Van" is the given name.
    while start > 1 and words[start - 1].lower() in PARTICLES:
        start -= 1
    return Author(family=" ".join(words[start:]), given=" ".join(words[:start]))


def bare_doi(value: object) -> str | None:
    """A DOI without URL or "doi:" prefix, lower-cased (DOIs are case-insensitive)."""
    if not isinstance(value, str):
        return None
    return strip_doi_prefix(value) or None


def registered_doi(value: object) -> str | None:
    """A DOI as the registration agency gives it ("10.1037/0003-066X.59.1.29"), without
    URL or "doi:" prefix but in its own case: the form a corrected citation shows.
    Compare DOIs with :func:`verifier.identifiers.normalize_doi`, never as given."""
    if not isinstance(value, str):
        return None
    return strip_doi_prefix(value, lower=False) or None


def doi_path(doi: str) -> str:
    """A DOI as a URL path: "/" kept, characters unsafe in a path percent-encoded.

    ";" is encoded too: Jetty (Crossref's server) cuts a path at a bare ";".
    """
    return quote(doi, safe="/()")


def string_tuple(value: object) -> tuple[str, ...]:
    """The non-empty strings of a JSON list (ISBNs, ISSNs), stripped; () for anything else."""
    if not isinstance(value, list) or not value:
        return ()
    return tuple([text for v in value if isinstance(v, str) and (text := v.strip())])


def first_author_name(citation: Citation) -> str:
    """The first cited author's family name (or organisation name), or "": what a
    search restricted to an author sends."""
    for author in citation.authors:
        name = " ".join((author.family or author.literal).split())
        if name:
            return name
    return ""


def names_from_list(value: object) -> tuple[Author, ...]:
    """Authors from a JSON list of display names ("Herman Melville")."""
    if not isinstance(value, list):
        return ()
    authors = [split_person_name(clean_text(name)) for name in value]
    return tuple(a for a in authors if a is not None)


def join_title(title: object, subtitle: object, fallback: object = None) -> str:
    """A record's title with its subtitle as "Title: Subtitle" (once; a subtitle the
    title already holds is not added twice); ``fallback`` when there is no title."""
    main, sub = clean_text(title), clean_text(subtitle)
    if not main:
        return clean_text(fallback) or sub
    if not sub or sub.lower() in main.lower():
        return main
    return f"{main} {sub}" if main[-1] in ":?!." else f"{main}: {sub}"
