"""The report on one citation from what its sources answered: the verdict, retraction,
flags, discrepancies and correction (:func:`report_from_results`).

Pure, and compiled (``native-modules.txt``): every citation a checker checks ends here.
:mod:`.checker` gathers the results; this turns them into the
:class:`~verifier.citations.models.Report`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .corrections import correction_of
from .discrepancies import (
    DOI_NOT_FOUND_FLAG,
    PREPRINT_CITED_AS_PUBLISHED_FLAG,
    discrepancies_of,
    doi_not_found,
    preprint_cited_as_published_of,
)
from .models import BookCheck, Citation, CitationInput, Report, Retraction, SourceResult, Status
from .verdict import agreeing_records, decide, retraction_of

RETRACTED_FLAG = "retracted"
"""Flag of a report whose work a matching source says is retracted (``retraction`` is
``retracted``): the work is real, and must not be cited as sound."""

NO_AUTHORS_FLAG = "no_authors_cited"
"""Flag of a matched citation that names no author: it was matched on its title and
the other fields it gives (:func:`verifier.citations.matching.score_record`)."""


# Enum members read through their class cost a descriptor call each (StrEnum, Python
# 3.11): report_from_results reads these module constants instead.
_CONFIRMED = (Status.VERIFIED, Status.UNCONFIRMED)
_RETRACTED, _RETRACTION_UNKNOWN = Retraction.RETRACTED, Retraction.UNKNOWN


def report_from_results(
    item: CitationInput,
    citation: Citation,
    results: Mapping[str, SourceResult],
    flags: Iterable[str] = (),
    *,
    independence: str = "distinct",
    elapsed: float = 0.0,
    book: BookCheck | None = None,
) -> Report:
    """The report on ``item`` (parsed as ``citation``) from the sources' answers
    ``results`` and the flags the search raised: the verdict, retraction, discrepancies
    and correction. Adds the flags :data:`RETRACTED_FLAG` and :data:`NO_AUTHORS_FLAG`;
    the correction keeps the input's citation key (``item.key``) and notes a retraction."""
    verdict = decide(results, independence)
    found = set(flags)
    agreeing = verdict.agreeing
    # The agreeing records, most authoritative first: found once, used by every part.
    sourced = agreeing_records(results, agreeing)
    if verdict.status in _CONFIRMED:
        found.discard("title_by_other_authors")
        if not citation.authors and not citation.et_al:
            found.add(NO_AUTHORS_FLAG)
    records = [r for _, r in sourced]
    if preprint_cited_as_published_of(citation, records):
        found.add(PREPRINT_CITED_AS_PUBLISHED_FLAG)
    if doi_not_found(citation, results):
        found.add(DOI_NOT_FOUND_FLAG)
    # The agreeing records are the ones retraction_status reads (its order aside).
    retraction = retraction_of(records) if agreeing else _RETRACTION_UNKNOWN
    retracted = retraction is _RETRACTED
    if retracted:
        found.add(RETRACTED_FLAG)
    return Report(
        id=item.id,
        index=item.index,
        input=item.text,
        citation=citation,
        status=verdict.status,
        retraction=retraction,
        flags=tuple(sorted(found)),
        discrepancies=discrepancies_of(citation, sourced),
        corrected=sourced[0][1] if sourced else None,
        agreeing_sources=agreeing,
        sources=dict(results),
        elapsed_s=round(elapsed, 4),
        correction=correction_of(citation, sourced, key=item.key,
                                 retracted=retracted),
        book=book,
    )
