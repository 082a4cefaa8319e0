"""The ``ww_note`` rules: how a cited work's annotation (wrong year, wrong authors, a
title fragment, a chapter's host ...) turns into the true metadata of the work.
"""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Sequence

from wwgen.extract import Row, _pages
from wwgen.model import REPORT_PUBLISHER, STOPWORDS
from wwgen.text import (
    Person,
    clean_space,
    family_set,
    fold,
    initials_family,
    join_title,
    split_title,
)
from wwgen.works import NamePool, Spec

# ---------------------------------------------------------------------------- note rules

NOTE_FIXES: dict[str, dict[str, str]] = {
    # The transcribed note is cut short ("Social Psychology 60(5), 685-71."): the work is
    # Eagly & Karau (1991), Journal of Personality and Social Psychology 60(5), 685-710.
    "walters_0120": {"container": "Journal of Personality and Social Psychology",
                     "pages": "685-710"},
}
NOTE_NAME_FIXES: dict[str, str] = {"Spench": "Spence"}  # walters_0077: a typo in the note


def note_segments(note: str) -> list[str]:
    """W&W separate the sentences of a note with two spaces."""
    parts = re.split(r"(?:(?<=\.)|(?<=\.\")|(?<=\.”))\s{2,}", note)
    return [clean_space(s).rstrip(".").strip() for s in parts if s.strip()]


def _name_list_segment(seg: str) -> list[Person] | None:
    """A note's list of people ("K.D. Multon, S.D. Brown, & R.W. Lent"), else None."""
    body = re.sub(r",?\s*…\s*,?", ", ", seg)
    tokens = [t for t in re.split(r",\s*&\s*|\s+&\s+|,\s+and\s+|\s+and\s+|,\s*", body) if t]
    people = [initials_family(t.strip()) for t in tokens]
    if not people or any(p is None for p in people):
        return None
    out = [p for p in people if p is not None]
    for p in out:
        p["family"] = NOTE_NAME_FIXES.get(p["family"], p["family"])
    return out


def _similar_word_index(words: Sequence[str], target: str) -> tuple[int, int] | None:
    """(start, length) of the one or two title words closest to ``target``."""
    t = fold(target)
    best: tuple[float, int, int] | None = None
    for n in (1, 2):
        for i in range(len(words) - n + 1):
            cand = fold("".join(words[i: i + n]))
            if not cand:
                continue
            score = difflib.SequenceMatcher(None, cand, t).ratio()
            if cand.startswith(t) or t.startswith(cand):
                score += 0.2
            if best is None or score > best[0]:
                best = (score, i, n)
    if best is None or best[0] < 0.75:
        return None
    return best[1], best[2]


def apply_title_fragment(title: str, fragment: str, qualifier: str = "") -> str:
    """Put a fragment W&W quote ("Title has ...") into the cited title, replacing the span it
    corrects. See WW_WORLD.md 2.3 for the rules."""
    fragment = fragment.strip().rstrip(".").strip()
    if "single quotes" in qualifier:
        fragment = f"'{fragment}'"
    words = title.split()
    fwords = fragment.split()
    keys = [fold(w) for w in words]
    fkeys = [fold(w) for w in fwords]
    # A bracketed fragment replaces the bracketed group.
    if fragment.startswith("("):
        m = re.search(r"\([^)]*\)", title)
        if m:
            return title[: m.start()] + fragment + title[m.end():]
    if len(fwords) == 1 or (fkeys and fkeys[0] not in keys):
        where = _similar_word_index(words, fragment)
        if where is not None and len(fwords) <= 2:
            i, n = where
            tail = words[i + n - 1]
            trail = re.search(r"[^\w'’)]+$", tail)
            return " ".join([*words[:i], fragment + (trail.group(0) if trail else ""),
                             *words[i + n:]])
    starts = [i for i, k in enumerate(keys) if fkeys and k == fkeys[0]]
    if not starts:
        return title
    i = starts[-1] if len(starts) > 1 and len(fwords) > 3 else starts[0]
    # Anchored at both ends: the fragment replaces the span between its first and last word.
    ends = [j for j in range(i, len(words)) if keys[j] == fkeys[-1]]
    if len(fwords) > 1 and ends:
        end = ends[0]
    else:
        prefix = 0
        while (prefix < len(fkeys) and i + prefix < len(keys)
               and keys[i + prefix] == fkeys[prefix]):
            prefix += 1
        if prefix >= 3:
            # The first words agree: the rest of the fragment replaces as many of the
            # following content words (none when a function word follows: an insertion).
            left = len(fkeys) - prefix
            end = i + prefix - 1
            while left > 0 and end + 1 < len(keys) and keys[end + 1] not in STOPWORDS:
                end += 1
                left -= 1
        else:
            end = len(words) - 1  # otherwise the fragment is the rest of the title
    new_fragment = fragment
    if i > 0 and words[i - 1].endswith(":") and new_fragment[:1].islower():
        new_fragment = new_fragment[0].upper() + new_fragment[1:]
    trail = re.search(r"[^\w'’)]+$", words[end]) if end < len(words) - 1 else None
    if trail and not new_fragment.endswith(trail.group(0)):
        new_fragment += trail.group(0)
    return " ".join([*words[:i], new_fragment, *words[end + 1:]])


def apply_note(spec: Spec, row: Row, rng: random.Random, names: NamePool) -> None:
    """Correct ``spec`` by the row's W&W note (WW_WORLD.md 2.3). Records which error kinds
    the note resolved, for the fallback alterations."""
    resolved: set[str] = set()
    cited_families = family_set(spec.authors)
    fixes = NOTE_FIXES.get(row.id, {})
    for seg in note_segments(row.note):
        low = seg.lower()
        if re.fullmatch(r"\d{4}", seg):
            spec.year = int(seg)
            resolved.add("year")
            spec.notes.append(f"year {seg} from note")
            continue
        m = re.fullmatch(r"Vol\. (\d+)(?:\(([^)]+)\))?, (\S+)", seg)
        if m:
            spec.volume, spec.issue, spec.pages = m.group(1), m.group(2), _pages(m.group(3))
            resolved.add("volume")
            spec.notes.append("volume/issue/pages from note")
            continue
        m = re.fullmatch(r"Pages (\S+)", seg)
        if m:
            spec.pages = _pages(m.group(1))
            resolved.add("volume")
            continue
        m = re.fullmatch(r'Title has "(.+?),?" not "(.+?)\.?"', seg)
        if m:
            full = join_title(spec.title, spec.subtitle)
            new = re.sub(rf"\b{re.escape(m.group(2).rstrip('.'))}\b", m.group(1), full, count=1)
            spec.title, spec.subtitle = split_title(new)
            resolved.add("title")
            continue
        if seg.startswith("Title has "):
            fragments = re.findall(r'"(.+?)"', seg)
            qualifier = seg.rsplit('"', 1)[-1]
            full = join_title(spec.title, spec.subtitle)
            for frag in fragments:
                full = apply_title_fragment(full, frag, qualifier)
            spec.title, spec.subtitle = split_title(full)
            resolved.add("title")
            spec.notes.append("title from note")
            continue
        m = re.match(r'Title is "(.+?),?"', seg)
        if m:
            spec.title, spec.subtitle = split_title(m.group(1).rstrip(","))
            resolved.add("title")
            continue
        m = re.match(r'I\'m counting "(.+?),?" at', seg)
        if m:
            spec.title, spec.subtitle = split_title(m.group(1).rstrip(","))
            continue
        m = re.match(r'Book title has "(.+?)\.?"', seg)
        if m and spec.container:
            words = spec.container.split()
            where = _similar_word_index(words, m.group(1))
            if where is not None:
                i, n = where
                spec.container = " ".join([*words[:i], m.group(1).rstrip("."), *words[i + n:]])
            continue
        m = re.match(r"(\w+) is the editor of the .+, not the author", seg)
        if m:
            spec.editors = [p for p in spec.authors if fold(p.get("family", "")) == fold(
                m.group(1))] or spec.editors
            spec.authors = names.people(rng, 1, avoid=cited_families)
            resolved.add("authorship")
            continue
        m = re.fullmatch(r"Final author is (.+)", seg)
        if m:
            person = initials_family(m.group(1))
            if person and spec.authors:
                spec.authors[-1] = person
            resolved.add("authorship")
            spec.notes.append("final author from note")
            continue
        m = re.search(r"final editor is (.+?), not (.+)$", seg)
        if m:
            new_p, old_p = initials_family(m.group(1)), initials_family(m.group(2))
            if new_p and old_p:
                for i, p in enumerate(spec.editors):
                    if fold(p.get("family", "")) == fold(old_p["family"]):
                        spec.editors[i] = new_p
            resolved.add("authorship")
            continue
        if low == "the article has one more author":
            spec.authors.extend(names.people(rng, 1, avoid=cited_families))
            resolved.add("authorship")
            continue
        m = re.fullmatch(r"there are (\w+) additional authors", low)
        if m:
            n = {"two": 2, "three": 3, "four": 4}.get(m.group(1), 2)
            spec.authors.extend(names.people(rng, n, avoid=cited_families))
            resolved.add("authorship")
            continue
        if "are the first two authors, but the rest" in seg:
            rest = max(1, len(spec.authors) - 2)
            spec.authors = spec.authors[:2] + names.people(rng, rest, avoid=cited_families)
            resolved.add("authorship")
            continue
        if low.startswith("authorship statement is not quite correct"):
            if len(spec.authors) > 1:
                i = 1 + rng.randrange(len(spec.authors) - 1)
                spec.authors[i] = names.people(rng, 1, avoid=cited_families)[0]
            else:
                spec.authors.extend(names.people(rng, 1, avoid=cited_families))
            resolved.add("authorship")
            continue
        m = re.match(r"Editors(?: \(not authors\))? are (.+)$", seg)
        if m:
            people = _name_list_segment(m.group(1))
            if people:
                spec.editors = people
                spec.authors = []
            resolved.add("authorship")
            continue
        m = re.match(r"The ChatGPT citation is for an article, but the work is a (?:(\d{4}) )?"
                     r"(book|chapter in a book)(?: published by (.+)| \((.+)\))?$", seg)
        if m:
            _apply_type_note(spec, m)
            resolved.update({"journal", "volume"})
            continue
        m = re.match(r'"(.+)"$', seg)
        if m:
            spec.title, spec.subtitle = split_title(m.group(1))
            resolved.add("title")
            continue
        m = re.match(r"In (.+?) \(Eds?\.\), (.+?) \(pp\. (.+)\)$", seg)
        if m:
            spec.editors = _name_list_segment(m.group(1)) or spec.editors
            spec.container, spec.pages = m.group(2), _pages(m.group(3))
            continue
        m = re.fullmatch(r"(.+?) \(online content\), (?:https?://doi\.org/)?(10\.\S+)", seg)
        if m:
            spec.container, spec.doi = m.group(1), m.group(2).rstrip(".")
            spec.volume = spec.issue = spec.pages = None
            resolved.update({"journal", "volume"})
            continue
        m = re.fullmatch(r"(.+?) (\d+)\(([^)]+)\), (\S+)", seg)
        if m and not re.search(r"\d", m.group(1)):
            spec.container = m.group(1)
            spec.volume, spec.issue, spec.pages = m.group(2), m.group(3), _pages(m.group(4))
            resolved.update({"journal", "volume"})
            spec.notes.append("journal and volume from note")
            continue
        m = re.search(r"web site now has a (\d{4}) date", seg)
        if m:
            spec.year = int(m.group(1))
            continue
        if "web site is undated" in seg:
            spec.year = None
            continue
        m = re.search(r"they mean the (\d{4}) TV series", seg)
        if m:
            spec.year = int(m.group(1))
            spec.cls, spec.corpus_type = "web", "other"
            continue
        if low.startswith("this is a data set"):
            spec.cls, spec.corpus_type = "web", "other"
            continue
        if "since the chatgpt citation doesn't include that information" in low:
            if not spec.volume:
                spec.volume = str(rng.randint(1, 60))
                spec.issue = str(rng.randint(1, 12))
                first = rng.randint(1, 400)
                spec.pages = f"{first}-{first + rng.randint(4, 25)}"
            resolved.add("volume")
            spec.notes.append("volume/issue/pages supplied (citation had none)")
            continue
        if low.startswith("this article is in the online version"):
            spec.volume = spec.issue = spec.pages = None
            resolved.add("volume")
            continue
        people = _name_list_segment(seg)
        if people is not None:
            if len(people) == 1 and not (family_set(people) & cited_families) and (
                spec.cls in ("book", "report", "early", "chapter")
            ):
                spec.publisher = seg  # "I.B. Tauris": a publisher, not a person
                resolved.add("publisher")
                continue
            spec.authors = people
            resolved.add("authorship")
            spec.notes.append("authors from note")
            continue
        if _is_ignorable(low):
            continue
        if not re.search(r"\d", seg) and len(seg.split()) <= 8:
            if spec.cls == "article":
                spec.container = seg
                resolved.add("journal")
            else:
                spec.publisher = seg
                resolved.add("publisher")
            spec.notes.append("venue/publisher from note")
            continue
        spec.notes.append(f"note segment not used: {seg[:40]}")
    for key, value in fixes.items():
        setattr(spec, key, value)
        resolved.add("journal" if key == "container" else "volume")
    spec.notes.append("resolved:" + ",".join(sorted(resolved)))
    _fallback_alterations(spec, row, resolved, rng, names, cited_families)


def _apply_type_note(spec: Spec, m: re.Match[str]) -> None:
    year, kind, published_by, details = m.group(1), m.group(2), m.group(3), m.group(4)
    if year:
        spec.year = int(year)
    spec.volume = spec.issue = spec.pages = None
    if kind.startswith("chapter"):
        spec.cls = "chapter"
        if details:
            parts = [p.strip() for p in details.split(";")]
            spec.container = parts[0]
            if len(parts) > 1:
                y = re.match(r"(\d{4}),\s*(.+)$", parts[1])
                if y:
                    spec.year, spec.publisher = int(y.group(1)), y.group(2)
        return
    spec.container = None
    if published_by:
        spec.publisher = published_by
        spec.cls = "report" if REPORT_PUBLISHER.search(published_by) else "book"
        return
    if details:
        bits = [b.strip() for b in re.split(r"\.\s{2,}", details)]
        if len(bits) > 1:
            people = _name_list_segment(bits[0].rstrip("."))
            if people:
                spec.authors = people
            details = bits[-1]
        y = re.search(r"(?:^|,\s*)(\d{4})(?:,|$)", details)
        if y:
            spec.year = int(y.group(1))
        publisher = re.sub(r"(?:^|,\s*)\d{4}(?=,|$)", "", details).strip(", ")
        spec.publisher = publisher or spec.publisher
    spec.cls = "report"


def _is_ignorable(low: str) -> bool:
    return any(
        phrase in low
        for phrase in (
            "no longer available online", "couldn't verify", "i've counted it as",
            "it's clear that this is the same work", "appears on beall", "early work",
        )
    )


ERROR_KINDS = {
    "incorrect title": "title", "incorrect authorship": "authorship",
    "incorrect journal": "journal", "incorrect year": "year",
    "incorrect volume/issue/pages": "volume",
}


def _fallback_alterations(
    spec: Spec, row: Row, resolved: set[str], rng: random.Random, names: NamePool,
    cited_families: frozenset[str],
) -> None:
    """WW_WORLD.md 2.4: a field HALLMARK says is wrong, that the note does not correct, is
    altered deterministically so the world holds a *different* (true) value."""
    flagged = {kind for text, kind in ERROR_KINDS.items() if text in row.hallmark_explanation}
    if row.hallmark_type == "near_miss_title":
        flagged.add("title")
    if row.hallmark_type == "swapped_authors":
        flagged.add("authorship")
    if row.hallmark_type == "wrong_venue":
        flagged.add("journal")
    for kind in sorted(flagged - resolved):
        if kind == "year" and spec.year is not None:
            spec.year += rng.choice((-3, -2, -1, 1, 2, 3))
        elif kind == "volume":
            spec.volume = str(max(1, int(spec.volume) + rng.choice((-3, -2, -1, 1, 2))
                                  if spec.volume and spec.volume.isdigit()
                                  else rng.randint(1, 60)))
            first = rng.randint(1, 900)
            spec.pages = f"{first}-{first + rng.randint(5, 30)}"
        elif kind == "title":
            spec.title, spec.subtitle = split_title(
                near_miss_title(join_title(spec.title, spec.subtitle), rng, names))
        elif kind == "authorship":
            keep = spec.authors[:1]
            spec.authors = keep + names.people(rng, max(1, len(spec.authors) - 1),
                                               avoid=cited_families)
        elif kind == "journal":
            spec.container = names.other_journal(rng, spec.field_code, spec.container)
        spec.notes.append(f"fallback alteration: {kind}")


def near_miss_title(title: str, rng: random.Random, names: NamePool) -> str:
    """One content word of the title changed (WW_WORLD.md 2.4)."""
    words = title.split()
    content = [i for i, w in enumerate(words) if fold(w) not in STOPWORDS and len(fold(w)) > 3]
    if not content:
        return f"{title} revisited"
    i = rng.choice(content)
    trail = re.search(r"[^\w]+$", words[i])
    replacement = rng.choice(names.vocab_words or ["changing"])
    if words[i][:1].isupper():
        replacement = replacement[:1].upper() + replacement[1:]
    words[i] = replacement + (trail.group(0) if trail else "")
    return " ".join(words)


