"""A work one source's answer offers, built into a record only when it is asked for.

A search answer holds several works (Crossref five, OpenAlex up to five), and only the
ones whose titles could fit the citation are ever scored against it
(:func:`verifier.citations.matching.best_of`): the rest are ruled out on their titles
alone. Building a :class:`~verifier.citations.models.WorkRecord` (cleaning every field,
splitting every author's name) costs several times more than reading its title, so an
adapter may offer each work as a :class:`Candidate`: its title read at once, its record
built at the first :meth:`Candidate.record` and kept.

The contract an adapter keeps when it offers lazy candidates:

- ``candidate.title`` is the title its record will have (``record().title``), and
  ``candidate.notice_for`` its record's ``notice_for``;
- everything that makes an answer unreadable (``MalformedResponse``) is found while the
  candidates are made, so :meth:`Candidate.record` never raises: an answer is read or
  refused whole, as when every record was built at once;
- ``record()`` gives the record the adapter's ``parse`` gives for the same work (its
  ``parse`` is ``[c.record() for c in candidates]``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .models import WorkRecord

RecordBuild = Callable[[Any], WorkRecord]
"""Builds one record from what the adapter kept of its work (never raises)."""


class Candidate:
    """One work of an answer: its title now, its record when :meth:`record` is called
    (built once, then kept: an answer remembered by the client is read by many
    citations)."""

    __slots__ = ("title", "notice_for", "_record", "_build", "_work")

    def __init__(self, title: str, build: RecordBuild | None, work: Any,
                 notice_for: str | None = None,
                 record: WorkRecord | None = None) -> None:
        self.title: Final = title
        self.notice_for: Final = notice_for
        self._record = record
        self._build = build
        self._work = work

    @staticmethod
    def ready(record: WorkRecord) -> Candidate:
        """A candidate for a record already built."""
        return Candidate(record.title, None, None, record.notice_for, record)

    def record(self) -> WorkRecord:
        """The work's record, built at the first call (see the module's contract)."""
        record = self._record
        if record is None:
            build = self._build
            if build is None:  # unreachable: a candidate has a record or its build
                raise RuntimeError("a candidate with neither a record nor a build")
            record = build(self._work)
            self._record = record
            self._build = None
            self._work = None
        return record

    def __repr__(self) -> str:
        built = "built" if self._record is not None else "not built"
        return f"Candidate({self.title!r}, {built})"


def ready_candidates(records: list[WorkRecord]) -> list[Candidate]:
    """Candidates for records already built (an adapter that builds them all at once)."""
    return [Candidate.ready(r) for r in records]
