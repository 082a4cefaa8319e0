"""PubMed's term syntax for the stand-in: field tags, phrases, operators, stopwords.

:func:`parse_term` reads an esearch ``term`` into a :class:`Group` tree of :class:`Term`
leaves (see :mod:`verifier.world.pubmed` for the syntax it accepts) and records what
PubMed reports about it: ignored stopwords and unknown field tags. :func:`translation`
renders the ``querytranslation``. Pure functions: no corpus, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# PubMed's stopword list: words it drops from a query (reporting them as ignored).
STOPWORDS = frozenset(
    """a about again all almost also although always among an and another any are as at
    be because been before being between both but by can could did do does done due
    during each either enough especially etc for found from further had has have having
    here how however i if in into is it its itself just kg km made mainly make may mg
    might ml mm most mostly must nearly neither no nor obtained of often on our overall
    perhaps pmid quite rather really regarding seem seen several should show showed
    shown shows significantly since so some such than that the their theirs them then
    there therefore these they this those through thus to upon use used using various
    very was we were what when which while with within without would""".split()
)

# Field tags (lower-case, as typed between brackets) -> (field, display name).
_TAGS: Mapping[str, tuple[str, str]] = {
    **dict.fromkeys(("ti", "title"), ("title", "Title")),
    **dict.fromkeys(("tiab", "title/abstract"), ("title", "Title/Abstract")),
    **dict.fromkeys(("au", "author", "auth", "fau", "full author name"), ("author", "Author")),
    **dict.fromkeys(("1au", "first author name", "author - first"),
                    ("first_author", "Author - First")),
    **dict.fromkeys(("lastau", "last author name", "author - last"),
                    ("last_author", "Author - Last")),
    **dict.fromkeys(("cn", "corporate author"), ("collective", "Corporate Author")),
    **dict.fromkeys(("dp", "pdat", "publication date", "date - publication"),
                    ("date", "Date - Publication")),
    **dict.fromkeys(("ta", "journal", "jour", "jt"), ("journal", "Journal")),
    **dict.fromkeys(("doi", "aid", "lid", "location id", "article identifier"),
                    ("doi", "doi")),
    **dict.fromkeys(("pmid", "uid", "pubmed unique identifier"), ("pmid", "uid")),
    **dict.fromkeys(("vi", "volume"), ("volume", "Volume")),
    **dict.fromkeys(("ip", "issue"), ("issue", "Issue")),
    **dict.fromkeys(("pg", "pagination"), ("page", "Pagination")),
    **dict.fromkeys(("is", "issn"), ("issn", "ISSN")),
    **dict.fromkeys(("pt", "publication type"), ("type", "Publication Type")),
    **dict.fromkeys(("la", "language"), ("language", "Language")),
    **dict.fromkeys(("all", "all fields"), ("all", "All Fields")),
}
WORD_FIELDS = frozenset({"title", "all"})


class TermError(ValueError):
    """A term the stand-in cannot read (the world's wording: NCBI's is not recorded)."""


@dataclass(frozen=True, slots=True)
class Term:
    """One search term: ``text`` searched in ``field`` (``quoted``: as a phrase)."""

    text: str
    field: str
    display: str
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class Group:
    """Operands combined left to right: ``ops[i]`` joins ``items[i]`` and ``items[i+1]``."""

    items: tuple[Term | Group, ...]
    ops: tuple[str, ...]


@dataclass(slots=True)
class Parsed:
    """A parsed term and what PubMed reports about it."""

    root: Group
    ignored: list[str] = field(default_factory=list)
    fields_not_found: list[str] = field(default_factory=list)


_OPERATORS = frozenset({"AND", "OR", "NOT"})


def _lex(term: str) -> list[tuple[str, str]]:
    """(kind, text) tokens: ``(``, ``)``, ``op``, ``phrase``, ``word``, ``tag``."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(term)
    while i < n:
        c = term[i]
        if c.isspace():
            i += 1
        elif c in "()":
            out.append((c, c))
            i += 1
        elif c == '"':
            close = term.find('"', i + 1)
            if close == -1:
                raise TermError("Unmatched quotation mark in term")
            out.append(("phrase", term[i + 1:close]))
            i = close + 1
        elif c == "[":
            close = term.find("]", i + 1)
            if close == -1:
                raise TermError("Unmatched bracket in term")
            out.append(("tag", term[i + 1:close]))
            i = close + 1
        else:
            j = i
            while j < n and not term[j].isspace() and term[j] not in '()"[':
                j += 1
            word = term[i:j]
            out.append(("op" if word in _OPERATORS else "word", word))
            i = j
    return out


def parse_term(term: str, default_tag: str | None = None) -> Parsed:
    """A PubMed ``term`` as a :class:`Group` tree; untagged words get ``default_tag``
    (esearch's ``field`` parameter) or search all fields. Raises :class:`TermError`."""
    lexed = _lex(term)
    parsed = Parsed(Group((), ()))
    pos = 0

    def group(depth: int) -> Group:
        nonlocal pos
        items: list[Term | Group] = []
        ops: list[str] = []
        pending_op: str | None = None
        words: list[str] = []

        def add(item: Term | Group) -> None:
            nonlocal pending_op
            if items:
                ops.append(pending_op or "AND")  # adjacent terms: implicit AND
            items.append(item)
            pending_op = None

        def flush_words(tag: str | None) -> None:
            if not words:
                return
            if tag is None:
                for word in words:
                    term_of = _make_term(word, default_tag, False, parsed)
                    if term_of is not None:
                        add(term_of)
            else:
                term_of = _make_term(" ".join(words), tag, False, parsed)
                if term_of is not None:
                    add(term_of)
            words.clear()

        while pos < len(lexed):
            kind, text = lexed[pos]
            pos += 1
            if kind == "word":
                words.append(text)
            elif kind == "tag":
                if not words:
                    continue  # a tag with nothing before it tags nothing
                flush_words(text)
            elif kind == "phrase":
                flush_words(None)
                tag = default_tag
                if pos < len(lexed) and lexed[pos][0] == "tag":
                    tag = lexed[pos][1]
                    pos += 1
                phrase = _make_term(text, tag, True, parsed)
                if phrase is not None:
                    add(phrase)
            elif kind == "op":
                flush_words(None)
                if items:
                    pending_op = text
            elif kind == "(":
                flush_words(None)
                inner = group(depth + 1)
                if inner.items:
                    add(inner)
            else:  # ")"
                if depth == 0:
                    raise TermError("Unbalanced parentheses in term")
                flush_words(None)
                return Group(tuple(items), tuple(ops))
        if depth > 0:
            raise TermError("Unbalanced parentheses in term")
        flush_words(None)
        return Group(tuple(items), tuple(ops))

    parsed.root = group(0)
    return parsed


def _make_term(text: str, tag: str | None, quoted: bool, parsed: Parsed) -> Term | None:
    text = " ".join(text.split())
    if not text:
        return None
    if tag is None:
        spec = _TAGS["all"]
    else:
        key = " ".join(tag.split()).lower()
        found = _TAGS.get(key)
        if found is None:
            # NCBI drops an unknown tag and searches the words everywhere.
            parsed.fields_not_found.append(tag)
            spec = _TAGS["all"]
        else:
            spec = found
    fld, display = spec
    if fld in WORD_FIELDS and not quoted:
        kept = [w for w in text.split() if w.lower() not in STOPWORDS]
        parsed.ignored.extend(w for w in text.split() if w.lower() in STOPWORDS)
        if not kept:
            return None
        text = " ".join(kept)
    return Term(text, fld, display, quoted)


def translation(node: Term | Group, top: bool = True) -> str:
    """The ``querytranslation`` PubMed reports for a parsed term."""
    if isinstance(node, Term):
        text = f'"{node.text}"' if node.quoted or node.field in ("journal", "all") else node.text
        return f"{text}[{node.display}]"
    parts = [translation(node.items[0], False)] if node.items else []
    for op, item in zip(node.ops, node.items[1:], strict=True):
        parts.append(f"{op} {translation(item, False)}")
    joined = " ".join(parts)
    return joined if top or len(node.items) < 2 else f"({joined})"
