"""Claim extraction, offline baseline: a paper → 3–7 central sentences of its opening.

Rules (deterministic; a sentence picker, not a summariser):

1. candidates are the first :data:`WINDOW` sentences after an "Abstract" heading (or of
   the text when there is none): the abstract and the start of the introduction in the
   usual layout. Headings (Markdown ``#`` lines; lines with no final punctuation under
   eight words), questions, and sentences under six or over 80 words are skipped;
2. each candidate is scored: +2 for each finding cue ("we show", "results indicate",
   "outperforms", "significantly" …), up to three; +2 × its centrality (mean share of its
   content terms found in the other candidates); −2 for a method or layout cue ("we
   used", "were collected", "Table", "Section" …); −1 for speculation ("may", "might",
   "future work" …); −1 when it states more than three numbers;
3. the best ``k`` are kept (ties to the earlier sentence), where ``k`` is a quarter of
   the candidates clamped to 3–7 (fewer only when there are fewer candidates), and
   returned in document order;
4. ``source_excerpt`` is the sentence verbatim; ``summary`` is the same sentence with a
   leading reporting phrase ("Here we show that", "Our results suggest that" …) removed.
"""

from __future__ import annotations

import re

from verifier.llm.offline.text import numbers, sentences, terms

WINDOW = 40
MIN_CLAIMS, MAX_CLAIMS = 3, 7

_ABSTRACT = re.compile(r"(?im)^[\s#*]*abstract[\s*]*[:.]?\s*$|\babstract\s*[:.—-]\s")
_FINDING = re.compile(
    r"(?i)\b(?:we (?:show|find|found|demonstrate|observe|observed|establish|report|prove|"
    r"identify|identified|reveal)|(?:our |these |the )?(?:results|findings|data|experiments)"
    r" (?:show|shows|indicate|suggest|demonstrate|reveal|confirm)|outperform\w*|"
    r"significantly|state[- ]of[- ]the[- ]art|leads? to|associated with|improv\w+|"
    r"increas\w+|decreas\w+|reduc\w+|enabl\w+|achiev\w+|consistently|robust\w*)\b")
_METHOD = re.compile(
    r"(?i)\b(?:we (?:use|used|collected|recruited|trained|implemented|adopt|adopted)|"
    r"were (?:collected|recruited|measured|obtained|performed)|was (?:performed|measured)|"
    r"table|figure|fig\.|section|appendix|in this section|the rest of this paper)\b")
_SPECULATION = re.compile(r"(?i)\b(?:may|might|could|possibly|potentially|we hope|"
                          r"future work|remains? to be|speculate)\b")
_REPORTING = re.compile(
    r"(?i)^(?:(?:here|in this (?:paper|work|study|article)|overall|together|taken together"
    r"|collectively|finally|moreover|furthermore|importantly)[, ]+)?"
    r"(?:we (?:show|find|found|demonstrate|observe|observed|report|establish|reveal)"
    r"|(?:our |these |the )?(?:results|findings|data|experiments) (?:show|indicate|suggest|"
    r"demonstrate|reveal|confirm))(?: that)?[, ]+")


def extract_claims(paper_text: str) -> list[dict[str, str]]:
    """3–7 ``{"summary", "source_excerpt"}`` picks from the paper's opening (module doc)."""
    candidates = _candidates(paper_text)
    if not candidates:
        return []
    term_sets = [set(terms(sentence)) for sentence in candidates]
    scored = []
    for position, sentence in enumerate(candidates):
        scored.append((-_score(sentence, position, term_sets), position))
    k = min(len(candidates), max(MIN_CLAIMS, min(MAX_CLAIMS, round(len(candidates) / 4))))
    chosen = sorted(position for _, position in sorted(scored)[:k])
    return [{"summary": _summary(candidates[i]), "source_excerpt": candidates[i]}
            for i in chosen]


def _candidates(paper_text: str) -> list[str]:
    marker = _ABSTRACT.search(paper_text)
    text = paper_text[marker.end():] if marker else paper_text
    kept = []
    for sentence in sentences(text):
        words = sentence.split()
        if sentence.startswith("#") or (not sentence.endswith((".", "!")) and len(words) < 8):
            continue                      # a heading
        if sentence.endswith("?"):
            continue
        if 6 <= len(words) <= 80:
            kept.append(sentence)
        if len(kept) == WINDOW:
            break
    return kept


def _score(sentence: str, position: int, term_sets: list[set[str]]) -> float:
    own = term_sets[position]
    others = [other for i, other in enumerate(term_sets) if i != position]
    centrality = (sum(len(own & other) / len(own) for other in others) / len(others)
                  if own and others else 0.0)
    score = 2.0 * min(3, len(_FINDING.findall(sentence))) + 2.0 * centrality
    if _METHOD.search(sentence):
        score -= 2.0
    if _SPECULATION.search(sentence):
        score -= 1.0
    if len(numbers(sentence)) > 3:
        score -= 1.0
    return score


def _summary(sentence: str) -> str:
    text = _REPORTING.sub("", sentence, count=1).strip()
    return text[0].upper() + text[1:] if text else sentence
