"""Features of each token of a reference, for the CRF.

Every token gets its own features once (:func:`_own`): the lower-cased word, its shape,
length, character classes, the lexicons it is in (:mod:`.lexicon`), year / number /
pages patterns and whether a space precedes it. Then each token gets its neighbours'
words, shapes and lexicons (a window of two either side, prefixed "-1:", "+1:" ...) and
features of where it stands in the whole string: relative position, whether a year or a
quote came before it, how many sentence ends precede it, bracket depth. Features are
strings ("w=smith"), each with weight 1, the form python-crfsuite takes.

:func:`lay_out` works out everything those features are made of, once per reference (a
:class:`Layout`: each word's features, each token's context flags, its chunk, its
neighbours' classes); :func:`featurize` spells the layout out as each token's list of
strings (for training, and for python-crfsuite in a pure install), and the C decoder
reads the same layout as the model's attribute ids (:mod:`.decode`). One order of
features, defined by :class:`Layout`, serves both.

Every feature string is interned (:func:`sys.intern`), and so are the model's attribute
names in the C decoder's dictionary (:mod:`.decode`): a look-up there then finds its key
by identity, without comparing the strings' characters.
The strings that depend on a word alone are made once per distinct word
(:func:`_word`), those that depend on two neighbours' classes once per pair of classes
(:func:`_pair`), the rest come from tables: no feature string is built per token.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from sys import intern
from typing import NamedTuple

from verifier.value_memos import keep, register_memo, value_memo

from .lexicon import lexicon_names
from .tokens import Token

_YEAR = re.compile(r"^(?:1[5-9]\d\d|20[0-3]\d)[a-z]?$")
_ROMAN = re.compile(
    r"^(?=[ivxlcdm]+$)m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$"
)
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th|e|er|re|ème|eme)$", re.I)
_QUOTES = frozenset("\"“”„«»‘’'`")
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")
_DASHES = frozenset("-–—‐−")


@value_memo(65536)
def _shape(word: str) -> str:
    """Character classes with runs collapsed: "Smith" -> "Xx", "2004" -> "d4",
    "J" -> "X", "ASCE" -> "X4", "O" -> "X"."""
    if word.isdigit():
        return f"d{min(len(word), 6)}"
    out: list[str] = []
    for char in word:
        if char.isupper():
            cls = "X"
        elif char.islower():
            cls = "x"
        elif char.isdigit():
            cls = "d"
        elif char.isalpha():
            cls = "c"  # a letter without case (CJK)
        else:
            cls = char
        if not out or out[-1] != cls:
            out.append(cls)
    shape = "".join(out)
    if shape == "X" and len(word) > 1:
        return f"X{min(len(word), 5)}"
    return shape


@value_memo(65536)
def _own(word: str, spaced: bool) -> tuple[str, ...]:
    """The token's own features (cached: the same word gives the same features)."""
    lower = word.lower()
    shape = _shape(word)
    feats = [f"w={lower[:24]}", f"s={shape}"]
    length = len(word)
    feats.append(f"n={length if length < 5 else ('5-7' if length < 8 else '8+')}")
    if length > 3 and word.isalpha():
        feats.append(f"x3={lower[-3:]}")
        feats.append(f"p3={lower[:3]}")
    if not spaced:
        feats.append("glued")
    if _YEAR.match(lower):
        feats.append("year")
    elif lower.isdigit():
        feats.append("num")
        if length <= 2:
            feats.append("num12")
    elif _ORDINAL.match(lower):
        feats.append("ordinal")
    if length > 1 and _ROMAN.match(lower):
        feats.append("roman")
    if lower.startswith(("http", "www.")):
        feats.append("url")
    elif lower.startswith("10.") and "/" in lower:
        feats.append("doi")
    if length == 1 and word.isupper():
        feats.append("initial")
    if word in _QUOTES:
        feats.append("quote")
    elif word in _OPEN:
        feats.append("open")
    elif word in _CLOSE:
        feats.append("close")
    elif word in _DASHES:
        feats.append("dash")
    feats.extend(f"L={name}" for name in lexicon_names(lower))
    return tuple([intern(feat) for feat in feats])


def _class(word: str) -> str:
    """A coarse class for the neighbour window: the lexicon, else the shape."""
    if len(word) == 1 and word.isupper():
        return "X"  # an initial, whatever lexicon the letter is in ("V.", "S.")
    lower = word.lower()
    names = lexicon_names(lower)
    if names:
        return names[0]
    if _YEAR.match(lower):
        return "year"
    return _shape(word)


class WordInfo(NamedTuple):
    """Everything about one word that does not depend on its place (:func:`_word`)."""

    own: tuple[str, ...]
    """Its own features."""
    cls: str
    """Its class for the neighbour window (:func:`_class`)."""
    window: tuple[tuple[str, str], ...]
    """The features it gives its neighbours at offsets -2, -1, +1, +2 ("-2:w=", "-2:c=")."""
    marks: frozenset[str]
    """Its sentence marks ("S:journal", ...)."""
    flags: tuple[bool, bool, bool]
    """Whether its own features hold "year", "L=in" and "L=editor" (which change the
    state :func:`featurize` carries along)."""
    ends: tuple[str, str, str, str]
    """Its "ends|c=K|class" feature for K = 0, 1, 2, 3 sentence ends before it."""
    firsts: tuple[str, str]
    """Its "S:first=" and "C:first=" features, for a sentence or chunk it begins."""


_WORDS_MAX = 65536
_SPACED_WORDS: dict[str, WordInfo] = {}
""":func:`_word` of words with a space (or the start) before them, by word (each memo is
emptied when it reaches :data:`_WORDS_MAX`)."""
_GLUED_WORDS: dict[str, WordInfo] = {}
"""The same for words glued to the token before them."""
register_memo(_SPACED_WORDS.clear)
register_memo(_GLUED_WORDS.clear)


def _word(word: str, spaced: bool) -> WordInfo:
    """Everything about one word that does not depend on its place (see
    :class:`WordInfo`), computed once per distinct (word, spaced): two plain memos keyed
    by the word, a look-up cheaper than a value memo's (a key tuple made and hashed
    for every token)."""
    memo = _SPACED_WORDS if spaced else _GLUED_WORDS
    info = memo.get(word)
    if info is None:
        info = keep(memo, word, _word_info(word, spaced), _WORDS_MAX)
    return info


def _word_info(word: str, spaced: bool) -> WordInfo:
    own = _own(word, spaced)
    cls = intern(_class(word))
    lower = word.lower()[:24]
    window = tuple(
        (intern(f"{offset}:w={lower}"), intern(f"{offset}:c={cls}"))
        for offset in ("-2", "-1", "1", "2")
    )
    marks = frozenset(_SENTENCE_MARKS[f] for f in own if f in _SENTENCE_MARKS)
    ends = (intern(f"ends|c=0|{cls}"), intern(f"ends|c=1|{cls}"),
            intern(f"ends|c=2|{cls}"), intern(f"ends|c=3|{cls}"))
    first = word.lower()[:12]
    firsts = (intern(f"S:first={first}"), intern(f"C:first={first}"))
    return WordInfo(own, cls, window, marks, ("year" in own, "L=in" in own, "L=editor" in own),
                    ends, firsts)


_PAIRS: dict[str, dict[str, tuple[str, str]]] = {}
""":func:`_pair`'s memo, by the left class and then the right."""
_PAIRS_MAX = 16384
"""Pairs the memo holds at most (all are forgotten when it is full)."""
_pairs_held = 0


def _forget_pairs() -> None:
    global _pairs_held
    _PAIRS.clear()
    _pairs_held = 0


register_memo(_forget_pairs)


def _pair(left: str, right: str) -> tuple[str, str]:
    """The features of two neighbouring classes: "0|+1:c=left|right", which the left
    token gets, and "-1|0:c=left|right", which the right one gets; made once per pair
    (a memo of at most :data:`_PAIRS_MAX` pairs)."""
    global _pairs_held
    by_right = _PAIRS.get(left)
    if by_right is not None:
        pair = by_right.get(right)
        if pair is not None:
            return pair
    if _pairs_held >= _PAIRS_MAX:
        _forget_pairs()
        by_right = None
    if by_right is None:
        by_right = _PAIRS[left] = {}
    pair = by_right[right] = (intern(f"0|+1:c={left}|{right}"),
                              intern(f"-1|0:c={left}|{right}"))
    _pairs_held += 1
    return pair


def _sentence_end(tokens: Sequence[Token], index: int) -> bool:
    """True for a "." that ends a sentence: after a word of two or more letters that is
    not all capitals, a digit or a closing bracket, and before a space."""
    token = tokens[index]
    if token.text not in ".?!" or index == 0:
        return False
    if index + 1 < len(tokens) and tokens[index + 1].start == token.end:
        return False
    before = tokens[index - 1].text
    if before in _CLOSE or before in _QUOTES or before.isdigit():
        return True
    return len(before) >= 2 and not before.isupper()


_SENTENCE_MARKS = {
    "L=journal": "S:journal",
    "L=pub": "S:pub",
    "L=univ": "S:univ",
    "L=place": "S:place",
    "L=genre": "S:genre",
    "L=editor": "S:editor",
    "year": "S:year",
    "num": "S:num",
    "quote": "S:quote",
    "url": "S:link",
    "doi": "S:link",
}


def _size_class(size: int) -> str:
    return str(size) if size < 4 else ("4-8" if size <= 8 else "9+")


POSITIONS = tuple(intern(f"pos={k}") for k in range(10))
"""The relative-position features, ``POSITIONS[10 * i // count]`` for token ``i``."""
ENDS_BEFORE = tuple(intern(f"ends={k}") for k in range(5))
"""The sentence-ends features, by a :attr:`Layout.flags` entry's count of ends (0-4)."""
_MARK_FEATURES = {
    prefix: {mark: intern(f"{prefix}{mark[1:]}") for mark in _SENTENCE_MARKS.values()}
    for prefix in ("S", "C")
}
"""A sentence mark's feature for a sentence ("S:journal") and for a chunk ("C:journal")."""
_SIZES = {prefix: tuple(intern(f"{prefix}:len={_size_class(size)}") for size in range(10))
          for prefix in ("S", "C")}
"""A sentence's or chunk's length feature by size (9 for 9 and more)."""
_LEFT = {prefix: tuple(intern(f"{prefix}:left={k}") for k in range(3)) for prefix in ("S", "C")}
"""How many sentences or chunks follow one (0, 1, 2 for 2 and more)."""
EDGES = tuple(intern(edge) for edge in ("-2:edge", "-1:edge", "1:edge", "2:edge"))
"""What a token at the edge gets for the missing neighbour at offset -2, -1, +1, +2."""


def _sentence_features(
    infos: Sequence[WordInfo],
    ends: Sequence[bool],
    chunks: bool = False,
) -> tuple[list[int], list[int], list[list[str]]]:
    """The sentence of each token (a new one after each ``ends`` token), the first token
    of each sentence, and the features of each sentence: which lexicons and patterns
    occur in it ("S:journal", "S:year"), its first word, its length, and how many
    sentences follow it (0, 1, 2+). With
    ``chunks`` and commas as ends, the same for comma-separated chunks ("C:...")."""
    prefix = "C" if chunks else "S"
    mark_features = _MARK_FEATURES[prefix]
    sizes = _SIZES[prefix]
    lefts = _LEFT[prefix]
    first_of = 1 if chunks else 0
    sentence_of: list[int] = []
    starts = [0]
    count = len(infos)
    current = 0
    for i in range(count):
        sentence_of.append(current)
        if ends[i] and i + 1 < count:
            starts.append(i + 1)
            current += 1
    starts.append(count)
    last = len(starts) - 2
    feats: list[list[str]] = []
    for k in range(last + 1):
        start, stop = starts[k], starts[k + 1]
        marked: set[str] = set()
        for info in infos[start:stop]:
            if info.marks:
                marked |= info.marks
        size = stop - start
        one = [mark_features[mark] for mark in sorted(marked)]
        one.append(infos[start].firsts[first_of])
        one.append(sizes[size if size < 9 else 9])
        one.append(lefts[min(last - k, 2)])
        feats.append(one)
    starts.pop()
    return sentence_of, starts, feats


CONTEXT_BEFORE = ("first", "last", "sent_start", "rule_author")
"""The context features a token gets before its sentence's and chunk's, in this order,
flagged by bits 0-3 of its :attr:`Layout.flags` entry."""
CONTEXT_AFTER = ("after_year", "after_in", "after_quote", "after_editor", "in_quote",
                 "in_bracket")
"""The context features it gets after them, in this order, flagged by bits 4-9."""
ENDED_SHIFT = 10
"""A :attr:`Layout.flags` entry shifted right by this is how many sentence ends precede
its token, 4 for four and more."""
_FIRST, _LAST, _SENT_START, _RULE_AUTHOR = 1, 2, 4, 8
_AFTER_YEAR, _AFTER_IN, _AFTER_QUOTE, _AFTER_EDITOR, _IN_QUOTE, _IN_BRACKET = (
    16, 32, 64, 128, 256, 512)
_BEFORE_BITS = (1 << len(CONTEXT_BEFORE)) - 1
_AFTER_BITS = ((1 << len(CONTEXT_AFTER)) - 1) << len(CONTEXT_BEFORE)


class Layout(NamedTuple):
    """What :func:`featurize` turns into feature strings, token by token; the C decoder
    (:mod:`.decode`) reads the same into attribute ids, so the two give one sequence of
    features (each token's, in :func:`featurize`'s order):

    1. its word's own features (``infos[i].own``);
    2. ``POSITIONS[10 * i // count]``, ``ENDS_BEFORE[e]`` and ``infos[i].ends[min(e, 3)]``,
       ``e`` being ``flags[i] >> ENDED_SHIFT``;
    3. the :data:`CONTEXT_BEFORE` features its flags set;
    4. ``placed[chunk_of[i]]``: its sentence's features, then its chunk's;
    5. the :data:`CONTEXT_AFTER` features its flags set;
    6. its neighbours' window features: token ``i - 2``'s ``window[0]``, ``i - 1``'s
       ``window[1]``, ``i + 1``'s ``window[2]``, ``i + 2``'s ``window[3]``, each
       ``(EDGES[k],)`` where that neighbour is missing;
    7. ``pairs[i - 1][1]`` when ``i > 0``, then ``pairs[i][0]`` when ``i + 1 < count``.
    """

    infos: list[WordInfo]
    """Each token's :class:`WordInfo`."""
    flags: list[int]
    """Each token's context bits and sentence ends (see the constants above)."""
    chunk_of: list[int]
    """Each token's chunk, an index into ``placed``."""
    placed: list[list[str]]
    """Each chunk's features: its sentence's, then its own."""
    pairs: list[tuple[str, str]]
    """The class-pair features of tokens ``i`` and ``i + 1`` (:func:`_pair`)."""


def lay_out(tokens: Sequence[Token], author_end: int = 0) -> Layout:
    """Everything about the tokens of one reference that their features are made of
    (see :class:`Layout`); ``author_end`` as for :func:`featurize`."""
    count = len(tokens)
    if not count:
        return Layout([], [], [], [], [])
    infos = [
        _word(t.text, i == 0 or tokens[i - 1].end < t.start) for i, t in enumerate(tokens)
    ]
    classes = [info.cls for info in infos]
    ends = [_sentence_end(tokens, i) for i in range(count)]
    sentence_of, _, sentence_feats = _sentence_features(infos, ends)
    commas = [t.text in ",;" or e for t, e in zip(tokens, ends, strict=True)]
    chunk_of, chunk_starts, chunk_feats = _sentence_features(infos, commas, chunks=True)
    # A chunk lies within one sentence (every sentence end is a chunk end): each chunk's
    # features follow its sentence's, joined once per chunk rather than per token.
    placed = [sentence_feats[sentence_of[start]] + chunk
              for start, chunk in zip(chunk_starts, chunk_feats, strict=True)]
    pairs = [_pair(classes[i], classes[i + 1]) for i in range(count - 1)]
    # The module's tables as locals: compiled, a module global is a dictionary look-up
    # at each use.
    quotes, opening, closing = _QUOTES, _OPEN, _CLOSE
    flags: list[int] = []
    year_seen = quote_open = sentence_start = in_seen = quote_closed = editor_seen = False
    ended = depth = 0
    last = count - 1
    for i in range(count):
        info = infos[i]
        is_year, is_in, is_editor = info.flags
        bits = (ended if ended < 4 else 4) << ENDED_SHIFT
        if i == 0:
            bits |= _FIRST
        if i == last:
            bits |= _LAST
        if sentence_start:
            bits |= _SENT_START
        if tokens[i].start < author_end:
            bits |= _RULE_AUTHOR
        if year_seen:
            bits |= _AFTER_YEAR
        if in_seen:
            bits |= _AFTER_IN
        if quote_closed:
            bits |= _AFTER_QUOTE
        if editor_seen:
            bits |= _AFTER_EDITOR
        if quote_open:
            bits |= _IN_QUOTE
        if depth:
            bits |= _IN_BRACKET
        flags.append(bits)
        word = tokens[i].text
        if word in quotes:
            was_open = quote_open
            if word == '"':
                quote_open = not quote_open
            elif word in "“„«":
                quote_open = True
            elif word in "”»":
                quote_open = False
            quote_closed = quote_closed or (was_open and not quote_open)
        elif word in opening:
            depth += 1
        elif word in closing and depth:
            depth -= 1
        if is_year:
            year_seen = True
        if is_in and i > 0 and not classes[i - 1][:1].isalnum():
            in_seen = True  # ", in", ". In", "” in"
        if is_editor and len(word) > 1:
            editor_seen = True
        sentence_start = ends[i]
        if sentence_start:
            ended += 1
    return Layout(infos, flags, chunk_of, placed, pairs)


def featurize(tokens: Sequence[Token], author_end: int = 0) -> list[list[str]]:
    """The features of every token of one reference (one list per token), in the order
    :class:`Layout` gives. ``author_end``: where the rule parser's author scan ends (0: no
    author list found); tokens before it get "rule_author"."""
    count = len(tokens)
    if not count:
        return []
    infos, flags, chunk_of, placed, pairs = lay_out(tokens, author_end)
    windows = [info.window for info in infos]
    edges = EDGES
    # The neighbour features each token receives, edges padded: before2[i] comes from
    # token i-2 ("-2:w=..."), after1[i] from token i+1, and so on.
    before2 = [(edges[0],), (edges[0],), *(w[0] for w in windows)]
    before1 = [(edges[1],), *(w[1] for w in windows)]
    after1 = [*(w[2] for w in windows[1:]), (edges[2],)]
    after2 = [*(w[3] for w in windows[2:]), (edges[3],), (edges[3],)]
    positions, ends_before = POSITIONS, ENDS_BEFORE
    context_before, context_after = CONTEXT_BEFORE, CONTEXT_AFTER
    result: list[list[str]] = []
    for i in range(count):
        info = infos[i]
        bits = flags[i]
        ended = bits >> ENDED_SHIFT
        feats = [
            *info.own,
            positions[10 * i // count],
            ends_before[ended],
            info.ends[ended if ended < 3 else 3],
        ]
        if bits & _BEFORE_BITS:
            feats += [name for k, name in enumerate(context_before) if bits >> k & 1]
        feats += placed[chunk_of[i]]
        if bits & _AFTER_BITS:
            feats += [name for k, name in enumerate(context_after, len(context_before))
                      if bits >> k & 1]
        feats += before2[i]
        feats += before1[i]
        feats += after1[i]
        feats += after2[i]
        if i > 0:
            feats.append(pairs[i - 1][1])
        if i + 1 < count:
            feats.append(pairs[i][0])
        result.append(feats)
    return result
