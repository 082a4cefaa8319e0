"""Parses kept between runs (verifier/citations/parse_store.py): an equal value back, a
parser that changed never reads an old parse, a re-run reads instead of parsing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from verifier.citations import checker as checker_module
from verifier.citations import parse_store
from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.citations.parse_store import ParseStore, decode, encode, parser_files
from verifier.citations.parsing.combined import parse_citation

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
TEXTS = (
    "Smith, J., & Doe, A. (2019). Deep learning for citation checks. Journal of Tests, "
    "3(2), 1-9. https://doi.org/10.1234/abc",
    'Brown, Bob. "A History of Salt." Food Studies, vol. 4, no. 1, 2001, pp. 5-20.',
    "World Health Organization. (2020). Global report on infection prevention (ISBN "
    "978-92-4-001019-5). WHO.",
    "Hochreiter S, Schmidhuber J. Long short-term memory. arXiv:1706.03762 [cs.CL]; 1997.",
    "",
)


def gold_texts() -> list[str]:
    folder = SHARED / "parsing_gold"
    texts = list(TEXTS)
    for path in sorted(folder.glob("*.jsonl")):
        lines = [line for line in path.read_bytes().splitlines() if line.strip()]
        texts += [str(orjson.loads(line)["text"]) for line in lines[::4]]  # a quarter
    return texts


def test_a_decoded_parse_equals_the_parse() -> None:
    texts = gold_texts()
    for text in texts:
        citation = parse_citation(text)
        assert decode(encode(citation)) == citation, text
    odd = Citation(authors=(Author(literal="WHO"), Author("Ng", "A.")), et_al=True,
                   editors=(Author("Li", "X."),), type=WorkType.CHAPTER,
                   identifiers=Identifiers(doi="10.1/x", isbn=("9780300085709",),
                                           issn=("1234-5678",), arxiv="1706.03762",
                                           pmid="1", pmcid="PMC1", url="https://x.org"))
    assert decode(encode(odd)) == odd


def test_the_fingerprint_covers_every_module_the_parser_loads() -> None:
    """A parser module left out of the fingerprint could change without invalidating
    the stored parses: every ``verifier`` module importing the parser loads must be one
    of the fingerprinted files."""
    # A compiled module counts as its source (what it is built from); the library of
    # compiled code they share is not a module of the parser's.
    code = ("import sys; import verifier.citations.parsing.combined, "
            "verifier.citations.parsing.crf.parse; from verifier.native import source_of; "
            "print('\\n'.join(str(source_of(m)) for n, m in list(sys.modules.items()) "
            "if n.split('.')[0] == 'verifier' and n != 'verifier.native' "
            "and getattr(m, '__file__', None)))")
    loaded = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                            text=True).stdout.split()
    covered = {path.resolve() for path in parser_files()}
    top = Path(parse_store.__file__).resolve().parents[1] / "__init__.py"  # lazy front door
    missing = [f for f in loaded if Path(f).resolve() not in covered | {top}]
    assert missing == []


@pytest.mark.asyncio
async def test_a_parse_kept_is_read_back_and_another_parser_never_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    citation = parse_citation(TEXTS[0])
    store = await ParseStore.open(tmp_path)
    assert store is not None
    assert store.get_now(TEXTS[0]) is None
    store.remember(TEXTS[0], citation)
    await store.close()
    store = await ParseStore.open(tmp_path)
    assert store is not None and store.get_now(TEXTS[0]) == citation
    assert store.get_now(TEXTS[1]) is None
    await store.close()
    old_file = store.path
    monkeypatch.setattr(parse_store, "parser_fingerprint", lambda: "another-parser")
    changed = await ParseStore.open(tmp_path)
    assert changed is not None and changed.get_now(TEXTS[0]) is None
    await changed.close()
    assert not old_file.exists()  # the other parser's parses are gone


@pytest.mark.asyncio
async def test_refresh_writes_parses_without_reading_them(tmp_path: Path) -> None:
    store = await ParseStore.open(tmp_path)
    assert store is not None
    store.remember(TEXTS[1], parse_citation(TEXTS[1]))
    await store.close()
    refreshing = await ParseStore.open(tmp_path, read=False)
    assert refreshing is not None and refreshing.get_now(TEXTS[1]) is None
    refreshing.remember(TEXTS[2], parse_citation(TEXTS[2]))
    await refreshing.close()
    store = await ParseStore.open(tmp_path)
    assert store is not None and store.get_now(TEXTS[2]) == parse_citation(TEXTS[2])
    await store.close()


@pytest.mark.asyncio
async def test_a_value_that_does_not_decode_is_a_miss(tmp_path: Path) -> None:
    store = await ParseStore.open(tmp_path)
    assert store is not None
    store._pending[parse_store._key(TEXTS[0])] = b"[not a citation"
    await store.close()
    store = await ParseStore.open(tmp_path)
    assert store is not None and store.get_now(TEXTS[0]) is None
    await store.close()


@pytest.mark.asyncio
async def test_more_parses_than_a_batch_are_all_kept(tmp_path: Path) -> None:
    store = await ParseStore.open(tmp_path)
    assert store is not None
    texts = [f"Author, A. ({1900 + n}). Title number {n}. Journal, 1, 1-2." for n in
             range(parse_store.BATCH * 2 + 3)]
    for text in texts:
        store.remember(text, parse_citation(text))
    await store.close()
    store = await ParseStore.open(tmp_path)
    assert store is not None
    assert all(store.get_now(text) == parse_citation(text) for text in texts)
    await store.close()


@pytest.mark.asyncio
async def test_a_rerun_reads_the_parse_instead_of_parsing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier import Verifier
    from verifier.settings import Settings

    parsed: list[str] = []

    def counting(text: str) -> Citation:
        parsed.append(text)
        return parse_citation(text)

    monkeypatch.setattr(checker_module, "parse_citation", counting)
    settings = Settings(sources=("crossref",), cache_dir=tmp_path,
                        base_urls={"crossref": "http://127.0.0.1:9"}, deadline_s=0.5)
    reports = []
    for _ in range(2):
        async with Verifier(settings) as verifier:
            reports.append(await verifier.verify(TEXTS[0]))
            reports.append(await verifier.verify(TEXTS[0]))  # in memory the second time
    assert parsed == [TEXTS[0]]
    assert len({r.citation for r in reports}) == 1
    no_keeping = Settings(sources=("crossref",), cache_dir=tmp_path, keep_parses=False,
                          base_urls={"crossref": "http://127.0.0.1:9"}, deadline_s=0.5)
    async with Verifier(no_keeping) as verifier:
        await verifier.verify(TEXTS[0])
    assert parsed == [TEXTS[0], TEXTS[0]]


def test_the_environment_can_turn_kept_parses_off() -> None:
    from verifier.settings import Settings

    assert Settings.from_env({}).keep_parses is True
    assert Settings.from_env({"VERIFIER_KEEP_PARSES": "0"}).keep_parses is False
    assert Settings.from_env({"VERIFIER_KEEP_PARSES": "off"}).keep_parses is False
    assert Settings.from_env({"VERIFIER_KEEP_PARSES": "1"}).keep_parses is True


@pytest.mark.asyncio
async def test_a_relative_cache_folder_keeps_parses_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = await ParseStore.open(Path("cache"))
    assert store is not None
    store.remember(TEXTS[0], parse_citation(TEXTS[0]))
    await store.close()
    store = await ParseStore.open(Path("cache"))
    assert store is not None and store.get_now(TEXTS[0]) == parse_citation(TEXTS[0])
    await store.close()


@pytest.mark.asyncio
async def test_a_parse_json_cannot_hold_is_not_kept_and_never_raises(tmp_path: Path) -> None:
    store = await ParseStore.open(tmp_path)
    assert store is not None
    text = "Smith, J. (2019). A title with a lone \ud800 surrogate. Journal, 1, 1-2."
    store.remember(text, parse_citation(text))
    await store.close()
    store = await ParseStore.open(tmp_path)
    assert store is not None and store.get_now(text) is None
    await store.close()
