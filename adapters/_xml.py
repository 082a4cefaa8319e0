"""Pure XML helpers for the adapters whose services answer in XML (PubMed, arXiv).

Elements are found by their local name, whatever namespace or prefix the service used:
arXiv's Atom feed changed its namespace prefixes and attribute order over the years, and
PubMed mixes un-namespaced elements with MathML. Only the standard library's
ElementTree is used; it never loads external DTDs or entities, and bodies that declare
entities of their own are refused outright (no service we read needs them).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator

from verifier.errors import MalformedResponse
from verifier.http.transport import HttpResponse

from ._text import clean_text

# MathML annotations repeat a formula as TeX or MathML: their text is not part of the
# title (same rule as ``verifier.normalize.strip_markup``).
_SKIPPED_TEXT = frozenset({"annotation", "annotation-xml"})


def xml_root(response: HttpResponse, source: str) -> ET.Element:
    """The root element of the body, or ``MalformedResponse`` naming what came instead."""
    body = response.body
    if b"<!ENTITY" in body:
        raise MalformedResponse(f"{source}: XML body declares entities; refused")
    try:
        return ET.fromstring(body)
    except ET.ParseError as exc:
        kind = response.content_type or "no content type"
        raise MalformedResponse(
            f"{source}: HTTP {response.status} body is not XML ({kind}): {exc}"
        ) from exc


def local_name(tag: object) -> str:
    """``"entry"`` for ``"{http://www.w3.org/2005/Atom}entry"``; "" for comments and PIs."""
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


def children(element: ET.Element | None, name: str) -> Iterator[ET.Element]:
    """The direct children of ``element`` called ``name`` (any namespace), in order."""
    if element is None:
        return
    for child in element:
        if local_name(child.tag) == name:
            yield child


def child(element: ET.Element | None, *path: str) -> ET.Element | None:
    """The first element down ``path`` (local names, one level each), or None."""
    current = element
    for name in path:
        current = next(children(current, name), None)
        if current is None:
            return None
    return current


def raw_text(element: ET.Element | None) -> str:
    """All text inside ``element``, inline markup (``<i>``, ``<sup>``, MathML) flattened
    and MathML annotations left out; "" for None. Whitespace is kept as it came."""
    if element is None:
        return ""
    return "".join(_texts(element))


def text(element: ET.Element | None) -> str:
    """:func:`raw_text` as display text: markup that arrived entity-escaped removed,
    Unicode NFC, spaces collapsed."""
    return clean_text(raw_text(element))


def child_text(element: ET.Element | None, *path: str) -> str:
    """:func:`text` of the first element down ``path``; "" when there is none."""
    return text(child(element, *path))


def _texts(element: ET.Element) -> Iterator[str]:
    if local_name(element.tag) in _SKIPPED_TEXT:
        return
    if element.text:
        yield element.text
    for sub in element:
        yield from _texts(sub)
        if sub.tail:
            yield sub.tail
