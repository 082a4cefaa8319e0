"""Determinism (seeded draws keyed by purpose), text helpers, and people: parsing and
normalising the author lists of the citations.
"""

from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from collections.abc import Iterable, Mapping

from wwgen.model import FIRST_NAMES, GIVEN_EXPANSION_RATE, ORG_WORDS

# ============================================================================ determinism


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()


def unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts."""
    return int.from_bytes(_digest(*parts)[:8], "big") / 2.0**64


def rng_for(seed: int, *parts: object) -> random.Random:
    return random.Random(int.from_bytes(_digest(seed, *parts)[:16], "big"))


def corpus_id(seed: int, key: str) -> str:
    return "ww" + hashlib.sha256(f"{seed}\x1f{key}".encode()).hexdigest()[:14]


# ============================================================================ text helpers


def fold(text: str) -> str:
    """Letters and digits only, accents removed, case-folded (for keys and comparisons)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


def title_key(title: str) -> str:
    return fold(title)


def clean_space(text: str) -> str:
    text = text.replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text).strip()


def split_title(full: str) -> tuple[str, str | None]:
    """Main title and subtitle, split at the first colon."""
    full = clean_space(full).rstrip(".").strip()
    m = re.match(r"^(.+?):\s+(.+)$", full)
    if m and len(m.group(1)) >= 3:
        return m.group(1).strip(), m.group(2).strip()
    return full, None


def join_title(title: str, subtitle: str | None) -> str:
    return f"{title}: {subtitle}" if subtitle else title


# ============================================================================ people

Person = dict[str, str]
INITIAL_WORD = re.compile(r"^(?:[A-Z]\.)(?:-?[A-Z]\.)*$")
PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "du", "la", "le", "di", "del"})


def is_initials(token: str) -> bool:
    """"M." "M. L." "B.A." "F.-M." (initials only)."""
    words = _initial_words(token)
    return bool(words) and all(INITIAL_WORD.match(p) or re.fullmatch(r"[A-Z]\.-[A-Z]\.", p)
                               for p in words)


def _initial_words(token: str) -> list[str]:
    # "B.A." -> ["B.", "A."], "F.-M." -> ["F.-M."], "M. L." -> ["M.", "L."]
    out: list[str] = []
    for word in token.split():
        if re.fullmatch(r"(?:[A-Z]\.)+", word) and "-" not in word:
            out.extend(re.findall(r"[A-Z]\.", word))
        else:
            out.append(word)
    return out


def normalize_initials(token: str) -> str:
    return " ".join(_initial_words(token))


def initials_family(token: str) -> Person | None:
    """"H.C. Steiner" / "M. Parker Pearson" / "C. de Haan" -> a person, else None."""
    m = re.match(r"^((?:[A-Z]\.\s*-?\s*)+)\s*(.+)$", token.strip())
    if not m:
        return None
    given, family = m.group(1).strip(), m.group(2).strip()
    if not family or not re.search(r"[A-Za-zÀ-ÿ]{2,}", family) or family.endswith("."):
        return None
    if family.split()[0].lower() not in PARTICLES and not family[0].isupper():
        return None
    return {"family": family, "given": normalize_initials(given)}


def is_given_names(token: str) -> bool:
    """"M." "M. L." "B.A." "Matthew L." "Franco" "St. Thomas" "F.-M."."""
    token = token.strip()
    if not token or len(token.split()) > 3:
        return False
    if all(INITIAL_WORD.match(w) or re.fullmatch(r"[A-Z]\.-[A-Z]\.", w)
           for w in _initial_words(token)):
        return True
    return all(re.fullmatch(r"[A-ZÀ-Ý][a-zà-ÿ'’]+\.?|[A-Z]\.", w) for w in token.split())


def parse_name_list(text: str, *, early: bool = False) -> tuple[list[Person], bool, str]:
    """Authors of a citation: (people, elided, elision kind '' / 'middle' / 'end').

    Handles APA ("Family, I. I., & Family, I."), Chicago ("Family, I., I. Family, and
    I. Family"), MLA ("Family, Given") and note lists ("I. Family, I. Family, & I. Family").
    """
    text = clean_space(text).strip().rstrip(",").strip()
    text = re.sub(r"\s*\((?:Eds?|eds?)\.?\)\s*\.?$", "", text).strip()
    kind = ""
    if re.search(r"…|\.\.\.", text):
        kind = "middle" if re.search(r"(?:…|\.\.\.)\s*,?\s*&?", text) and re.search(
            r"(?:…|\.\.\.)\s*,?\s*(?:&|and)?\s*\S", text) else "end"
        text = re.sub(r",?\s*(?:…|\.\.\.)\s*,?\s*", ", ", text)
    if re.search(r"\bet al\.?", text) or re.search(r"\band others\b", text):
        kind = kind or "end"
        text = re.sub(r",?\s*(?:et al\.?|and others)\s*", " ", text)
    text = strip_final_period(text.strip().rstrip(",").strip())
    if not text:
        return [], bool(kind), kind
    if not re.search(r",\s*[A-Z][a-z]?\.|^[A-Z]\.", text) and (
        ORG_WORDS.search(text) or (" " not in text and not early)
        or re.fullmatch(r"[A-Z]{2,}(?:\s*\([^)]*\))?", text)
    ):
        literal = re.sub(r"\s*\([A-Za-z.]+\)$", "", text).strip()
        m = re.match(r"^([A-Z]{2,})\s*\((.+)\)$", text)
        if m:  # "IPCC (Intergovernmental Panel on Climate Change)"
            literal = m.group(2)
        return [{"literal": literal}], bool(kind), kind
    tokens = [t.strip() for t in re.split(r",\s*&\s*|\s+&\s+|,\s+and\s+|\s+and\s+|,\s*", text)]
    tokens = [t for t in tokens if t]
    people: list[Person] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        person = initials_family(tok)
        if person is not None and not (i + 1 < len(tokens) and is_initials(tokens[i + 1])
                                       and not initials_family(tokens[i + 1])):
            people.append(person)
            i += 1
            continue
        if i + 1 < len(tokens) and is_given_names(tokens[i + 1]) and not initials_family(
            tokens[i + 1]
        ):
            given = tokens[i + 1]
            given = normalize_initials(given) if is_initials(given) else given
            people.append({"family": tok, "given": given})
            i += 2
            continue
        if early or not ORG_WORDS.search(tok):
            people.append({"family": tok})
        else:
            people.append({"literal": tok})
        i += 1
    return people, bool(kind), kind


def strip_final_period(text: str) -> str:
    """Drop a sentence's final period, but not an initial's ("Wainwright, G.")."""
    text = text.strip()
    if re.search(r"(?:^|[\s.,-])[A-Z]\.$", text):
        return text
    return text.rstrip(".").strip()


def family_set(people: Iterable[Person]) -> frozenset[str]:
    return frozenset(fold(p.get("family") or p.get("literal") or "") for p in people) - {""}


def expand_given(person: Person, seed: int,
                 known: Mapping[tuple[str, str], str] | None = None) -> Person:
    """The name a database record carries: an initials-only first name becomes a full one —
    the one the data gives for the person where it gives one, else (for
    GIVEN_EXPANSION_RATE of people) one drawn for that person, the same everywhere.
    ``known`` maps (folded family, first initial) to a first name the data gives
    ("Moretti, Franco")."""
    given = person.get("given")
    family = person.get("family")
    if not given or not family or not is_initials(given):
        return dict(person)
    parts = _initial_words(given)
    full = (known or {}).get((fold(family), parts[0][:1]))
    if full:
        return {"family": family, "given": " ".join([full, *parts[1:]])}
    key = (fold(family), given.replace(" ", ""))
    if unit(seed, "expand", *key) >= GIVEN_EXPANSION_RATE:
        return dict(person)
    first = parts[0]
    if "-" in first:
        return dict(person)
    pool = FIRST_NAMES.get(first[0], ("Alex",))
    name = pool[int(unit(seed, "first", *key) * len(pool))]
    return {"family": family, "given": " ".join([name, *parts[1:]])}


