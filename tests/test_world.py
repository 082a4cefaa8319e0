"""The world (offline Crossref and OpenAlex stand-ins) against real HTTP on loopback.

Protocol shapes are checked against the recorded real responses in
``shared/data/api_samples`` (tests that need them skip when the folder is absent).
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recorded import load_sample
from world_helpers import DEMO_CORPUS, DEMO_DIR, EncodedClient, WorldClient, connect_world

from verifier.world import SERVICES, Corpus, CorpusError

ROOT = Path(__file__).resolve().parents[1]
DEMO_REFS = DEMO_DIR / "refs.txt"

SEMICOLON_DOI = "10.1002/(SICI)1097-4636(199911)47:2<244::AID-JBM15>3.0.CO;2-J"
LINES = [
    {"id": "cats", "type": "article", "title": "Deep learning for cats", "subtitle": "A survey",
     "authors": [{"family": "Smith", "given": "John"}, {"family": "Doe", "given": "Jane Mary"},
                 {"family": "Roe", "given": "Rick"}, {"family": "Poe", "given": "Pat"}],
     "year": 2020, "container": "Journal of Feline Studies", "volume": 12, "issue": "3",
     "pages": "100–120", "publisher": "Cat Press", "doi": "10.1234/Cats.2020",
     "issn": ["1234-5678"],
     "sources": {"crossref": {},
                 "openalex": {"title_case": "lower", "drop_subtitle": True, "initials": True,
                              "max_authors": 3, "year_offset": -1, "omit_doi": True}}},
    {"id": "deep", "type": "article", "title": "Deep learning",
     "authors": [{"family": "Ng", "given": "Ann"}], "year": 2015, "container": "Nature",
     "doi": "10.1234/deep", "sources": {"crossref": {}, "openalex": {"id": "W42"}}},
    {"id": "retracted", "type": "article", "title": "Vaccines, autism, and other claims",
     "subtitle": "A case series", "authors": [{"family": "Quack", "given": "Q. Q."}],
     "year": 1998, "doi": SEMICOLON_DOI, "retracted": True,
     "retraction": {"doi": "10.1234/retraction", "year": 2010},
     "sources": {"crossref": {}, "openalex": {}}},
    {"id": "preprint", "type": "preprint", "title": "Attention please",
     "subtitle": "Commas, colons: and more", "authors": [{"family": "Vee", "given": "Ava"}],
     "year": 2021, "doi": "10.48550/arXiv.2101.00001", "doi_agency": "datacite",
     "sources": {"openalex": {}, "arxiv": {"future_option": 1}}},
    {"id": "who", "type": "report", "title": "World health statistics",
     "authors": [{"literal": "World Health Organization"}], "year": 2019,
     "sources": {"openalex": {}}, "future_key": "kept"},
]
CORPUS = Corpus.from_lines([json.dumps(line) for line in LINES])


def world_client(corpus: Corpus | Path = CORPUS, **options: Any
                 ) -> AbstractAsyncContextManager[WorldClient]:
    # No async fixture: the server and session live inside each test's own task.
    # Protocol tests send as fast as they can: limits are tested in test_world_limits.py.
    # EncodedClient: the path goes out exactly as written (yarl would turn %3B into ";").
    options.setdefault("enforce_limits", False)
    return connect_world(corpus, client_type=EncodedClient, **options)


def recorded_json(source: str, name: str) -> Any:
    return orjson.loads(load_sample(source, name).body)


def recorded_item_keys(*names: str) -> set[str]:
    keys: set[str] = set()
    for name in names:
        message = recorded_json("crossref", name)["message"]
        for item in message.get("items", [message]):
            keys.update(item)
    return keys


# ----------------------------------------------------------------------------- corpus


def test_corpus_error_names_the_line_and_blank_lines_are_skipped() -> None:
    good = json.dumps(LINES[1])
    with pytest.raises(CorpusError) as info:
        Corpus.from_lines([good, "", '{"id": "x", "type": "article"', good], origin="c.jsonl")
    assert info.value.line == 3
    assert str(info.value).startswith("c.jsonl:3: not valid JSON")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("work", "message"),
    [
        ({"id": "a", "type": "article"}, "missing required field 'title'"),
        ({"id": "a", "type": "poem", "title": "T"}, "type 'poem' is not one of"),
        ({"id": "a", "type": "book", "title": "T", "year": "1999"},
         "field 'year' must be an integer"),
        ({"id": "a", "type": "book", "title": "T", "authors": [{"given": "Ann"}]},
         "authors[0] needs 'family'"),
        ({"id": "a", "type": "book", "title": "T", "doi": "https://doi.org/10.1/x"},
         "is not a bare DOI"),
        ({"id": "a", "type": "book", "title": "T", "sources": {"crossref": {}}},
         "crossref only holds works with a DOI"),
        ({"id": "a", "type": "book", "title": "T", "sources": {"openalex": {"title_case": "x"}}},
         "sources.openalex.title_case must be one of"),
        ({"id": "a", "type": "book", "title": "T", "sources": {"openalex": {"initials": "yes"}}},
         "field 'initials' must be true or false"),
    ],
)
def test_corpus_rejects_bad_works_naming_the_line(work: dict[str, Any], message: str) -> None:
    with pytest.raises(CorpusError, match=r"^<corpus>:2: ") as info:
        Corpus.from_lines([json.dumps(LINES[1]), json.dumps(work)])
    assert info.value.line == 2
    assert message in str(info.value)


def test_duplicate_ids_name_both_lines() -> None:
    with pytest.raises(CorpusError, match=r"^<corpus>:3: duplicate id 'deep' \(first on line 1\)"):
        Corpus.from_lines([json.dumps(LINES[1]), "", json.dumps(LINES[1])])


def test_unknown_keys_and_sources_are_kept_for_later_worlds() -> None:
    who = CORPUS.get("who")
    assert who.extra == {"future_key": "kept"}
    assert CORPUS.get("preprint").sources["arxiv"].extra == {"future_option": 1}
    assert CORPUS.source_names == ("arxiv", "crossref", "openalex")


def test_rendering_options_are_applied_per_source() -> None:
    crossref = CORPUS.source("crossref").by_source_id(CORPUS.source("crossref").records[0]
                                                      .source_id)
    assert crossref is not None
    assert (crossref.title, crossref.subtitle, crossref.year, crossref.doi) == (
        "Deep learning for cats", "A survey", 2020, "10.1234/Cats.2020")
    openalex = CORPUS.source("openalex").records[0]
    assert openalex.work.id == "cats"
    assert (openalex.title, openalex.subtitle, openalex.year, openalex.doi) == (
        "deep learning for cats", None, 2019, None)
    assert [p.display for p in openalex.authors] == ["J. Smith", "J. M. Doe", "R. Roe"]


def test_search_ranks_exact_title_first_and_only_unknown_words_miss() -> None:
    from verifier.world import Clause

    view = CORPUS.source("crossref")
    title = frozenset({"title"})
    hits = view.search([Clause(title, "Deep learning")])
    assert [h.record.work.id for h in hits] == ["deep", "cats"]
    assert hits[0].score > hits[1].score > 0
    assert view.search([Clause(title, "askldjrq3rjaw938h")]) == []
    # One shared everyday word is enough for a hit, as on the real engines.
    assert [h.record.work.id for h in view.search([Clause(title, "cats of the world")])] == [
        "cats"]


# Words for a synthetic corpus: a few everyday ones every title shares, many rare ones.
_COMMON = ["the", "of", "and", "in", "for", "a", "on", "learning", "analysis", "model"]
_RARE = [f"{a}{b}" for a in ("zor", "quel", "mib", "tav", "kren", "sop", "dul", "vex")
         for b in ("ane", "ith", "oru", "eps", "ald", "imo", "uth", "ery", "ond")]


def synthetic_corpus(count: int = 300) -> Corpus:
    """``count`` works with titles mixing everyday and rare words (deterministic)."""
    import random

    rng = random.Random(11)
    lines = []
    for i in range(count):
        words = rng.sample(_COMMON, 3) + rng.sample(_RARE, rng.randint(1, 4))
        rng.shuffle(words)
        authors = [{"family": rng.choice(_RARE).title() + "sen", "given": "A."}
                   for _ in range(rng.choice((1, 2, 3, 60)))]
        lines.append(json.dumps({
            "id": f"w{i}", "type": "article", "title": " ".join(words).capitalize(),
            "authors": authors, "year": 1990 + i % 30, "container": "Journal of Tests",
            "doi": f"10.5555/w{i}", "sources": {"crossref": {}}}))
    return Corpus.from_lines(lines)


def test_search_finds_every_record_first_by_its_own_title() -> None:
    from verifier.world import Clause

    view = synthetic_corpus().source("crossref")
    title, bibliographic = frozenset({"title"}), frozenset({"title", "author", "year",
                                                          "container"})
    for record in view.records:
        hits = view.search([Clause(title, record.title)])
        # Another record may hold the very same words: then either may come first.
        assert set(tokens_of(hits[0].record.title)) == set(tokens_of(record.title)), record
        citation = f"{record.authors[0].display} ({record.year}). {record.title}. Journal."
        assert view.search([Clause(bibliographic, citation)])[0].record == record


def tokens_of(text: str) -> list[str]:
    from verifier.world.corpus import tokens

    return tokens(text)


def test_search_length_norm_is_per_field() -> None:
    from verifier.world import Clause

    many = [{"family": f"Author{i}"} for i in range(80)]
    corpus = Corpus.from_lines([json.dumps(line) for line in [
        {"id": "short", "type": "article", "title": "Graph networks",
         "authors": [{"family": "Lee"}], "doi": "10.5555/a", "sources": {"crossref": {}}},
        {"id": "long", "type": "article", "title": "Graph networks for molecules",
         "authors": many, "doi": "10.5555/b", "sources": {"crossref": {}}},
        {"id": "other", "type": "article", "title": "Molecules of life",
         "authors": [{"family": "Poe"}], "doi": "10.5555/c", "sources": {"crossref": {}}},
    ]])
    view = corpus.source("crossref")
    title = frozenset({"title"})
    # Eighty authors do not sink a title match: bm25 normalises each field on its own.
    assert view.search([Clause(title, "Graph networks for molecules")])[0].record.work.id == "long"
    assert view.search([Clause(title, "Graph networks")])[0].record.work.id == "short"
    # Words are stemmed: "molecule" finds "molecules".
    assert {h.record.work.id for h in view.search([Clause(title, "molecule")])} == {
        "long", "other"}


def test_search_real_words_always_find_something_but_gibberish_nothing() -> None:
    from verifier.world import Clause

    view = Corpus.load(DEMO_CORPUS).source("crossref")
    fabricated = "Quantum annealing approaches to protein folding kinetics"
    hits = view.search([Clause(frozenset({"title"}), fabricated)])
    assert hits and all(h.record.title.casefold() != fabricated.casefold() for h in hits)
    assert view.search([Clause(frozenset({"title"}), "askldjrq3rjaw938h zqxvwpt")]) == []
    assert view.search([Clause(frozenset({"title"}), "!!! ... ???")]) == []


@pytest.mark.parametrize("match", ["any", "all", "phrase"])
def test_search_text_is_never_read_as_fts5_syntax(match: str) -> None:
    from verifier.world import Clause

    view = CORPUS.source("crossref")
    nasty = ['"', '""', "deep\" learning", "deep AND", "OR", "NOT deep", "deep NEAR(learning)",
             "NEAR(deep learning, 2)", "title:deep", "{title}: deep", "deep*", "*", "^deep",
             "(deep", "deep)", "deep -learning", "deep + learning", "'", "-", ":", "",
             "   ", "d\u00e9ep l\u00e9arning", "\u6df1\u5ea6\u5b66\u4e60", "deep\x00learning",
             "a" * 5000]
    fields = frozenset({"title", "author"})
    for text in nasty:
        hits = view.search([Clause(fields, text, match), Clause(frozenset({"year"}), "2015 x")])
        assert isinstance(hits, list), text
    # Operators are words like any other: "AND" matches the "and" of a title.
    found = {h.record.work.id for h in view.search([Clause(fields, "deep AND", match)])}
    assert found == ({"deep", "cats", "retracted"} if match == "any" else set())


@settings(max_examples=300, deadline=None)
@given(text=st.text(), match=st.sampled_from(["any", "all", "phrase"]))
def test_search_never_fails_on_any_text(text: str, match: str) -> None:
    from verifier.world import Clause

    hits = CORPUS.source("openalex").search([Clause(frozenset({"title", "author"}), text, match)])
    assert all(h.score > 0 for h in hits)


def test_search_match_modes_phrase_all_and_any() -> None:
    from verifier.world import Clause

    view = CORPUS.source("openalex")
    title, both = frozenset({"title"}), frozenset({"title", "author"})

    def ids(*clauses: Clause) -> list[str]:
        return [h.record.work.id for h in view.search(list(clauses))]

    assert ids(Clause(title, "deep learning", "phrase")) == ["deep", "cats"]
    assert ids(Clause(title, "learning deep", "phrase")) == []
    assert ids(Clause(title, "deep cats", "all")) == ["cats"]
    assert ids(Clause(title, "deep cats zebra", "all")) == []
    assert ids(Clause(title, "deep cats zebra")) == ["cats", "deep"]
    # "all" across fields: each word in one of them, not necessarily the same.
    assert ids(Clause(both, "deep ng", "all")) == ["deep"]
    assert ids(Clause(title, "deep ng", "all")) == []
    # Clauses are AND-ed.
    assert ids(Clause(title, "deep"), Clause(frozenset({"author"}), "smith")) == ["cats"]
    with pytest.raises(ValueError, match="unknown match 'most'"):
        Clause(title, "x", "most")


@pytest.mark.asyncio
async def test_asearch_is_search_off_the_event_loop() -> None:
    from verifier.world import Clause

    view = CORPUS.source("crossref")
    clauses = [Clause(frozenset({"title", "author"}), "deep learning smith")]
    assert await view.asearch(clauses, lambda r: r.year != 2015) == view.search(
        clauses, lambda r: r.year != 2015)


def test_demo_fixtures_are_consistent() -> None:
    corpus = Corpus.load(DEMO_CORPUS)
    assert len(corpus) == 52
    assert (len(corpus.source("crossref")), len(corpus.source("openalex"))) == (41, 48)
    for work in corpus:
        for isbn in work.isbn:
            total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(isbn[:12]))
            assert (10 - total % 10) % 10 == int(isbn[12]), (work.id, isbn)
    refs = DEMO_REFS.read_text(encoding="utf-8").splitlines()
    assert len(refs) == 17
    assert all(line.strip() and not line.startswith("#") for line in refs)
    # The fabricated citations' titles are absent from the corpus.
    titles = {w.title.casefold() for w in corpus}
    assert "quantum annealing approaches to protein folding kinetics" not in titles
    assert "neural scaling laws for citation graph completion" not in titles


# ----------------------------------------------------------------------------- server


@pytest.mark.asyncio
async def test_serve_world_binds_loopback_on_a_free_port_and_logs_requests() -> None:
    async with world_client(DEMO_CORPUS) as client:
        world = client.world
        assert world.port > 0
        assert world.url == f"http://127.0.0.1:{world.port}"
        assert world.base_urls == {name: f"{world.url}/{name}" for name in SERVICES}
        assert {"crossref", "openalex"} <= set(world.base_urls)
        await client.get("crossref", "/works/10.1038/nature14539")
        await client.get("crossref", "/works", {"query": "deep learning", "rows": "2"})
        await client.get("openalex", "/works/doi:10.1038/nope")
        await client.get("openalex", "/nowhere")
        async with client.session.get(world.url + "/elsewhere") as response:
            assert response.status == 404
        log = world.requests
        assert [(r.source, r.endpoint, r.path, r.status) for r in log] == [
            ("crossref", "work", "/works/10.1038/nature14539", 200),
            ("crossref", "works", "/works", 200),
            ("openalex", "work", "/works/doi:10.1038/nope", 404),
            ("openalex", None, "/nowhere", 404),
            (None, None, "/elsewhere", 404),
        ]
        assert log[1].query == "query=deep learning&rows=2"
        assert [(r.pool, r.request_class) for r in log] == [
            ("public", "single"), ("public", "list"), ("keyless", "all"), ("keyless", "all"),
            (None, None)]
        assert all(r.fault is None and r.throttled is None for r in log)
        assert all(r.method == "GET" and r.time <= r.finished for r in log)
        assert [r.time for r in log] == sorted(r.time for r in log)
        assert [r.path for r in world.requests_for("openalex")] == [
            "/works/doi:10.1038/nope", "/nowhere"]


@pytest.mark.asyncio
async def test_serve_world_serves_only_the_services_asked_for() -> None:
    async with world_client(services=["crossref"]) as client:
        assert list(client.world.base_urls) == ["crossref"]
        async with client.session.get(client.world.url + "/openalex/works/W42") as response:
            assert response.status == 404
        assert [(r.source, r.status) for r in client.world.requests] == [(None, 404)]


def test_world_command_serves_until_terminated_and_summarizes(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    script = tmp_path / "storm.json"
    script.write_text(json.dumps({"windows": [
        {"source": "crossref", "from_request": 2, "count": 1, "fault": "503"}]}))
    command = [sys.executable, "-m", "verifier.world", "serve", "--corpus", str(DEMO_CORPUS),
               "--time-scale", "10", "--scenario", str(script)]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        assert process.stdout is not None
        banner = [process.stdout.readline() for _ in range(len(SERVICES) + 1)]
        urls = dict(line.split() for line in banner[:-1])
        assert "limits time scale 10; scenario" in banner[-1]
        statuses = []
        for _ in range(2):
            try:
                with urllib.request.urlopen(urls["crossref"] + "/works/10.1038/nature14539",
                                            timeout=10) as response:
                    statuses.append(response.status)
            except urllib.error.HTTPError as exc:
                statuses.append(exc.code)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=10)
    assert statuses == [200, 503]
    assert process.returncode == 0, err
    assert "crossref              2 requests: 1 × 200, 1 × 503 (503)" in out


def test_world_command_reports_a_bad_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    from verifier.world.cli import main

    assert main(["serve", "--corpus", "/nonexistent/corpus.jsonl"], prog="verifier-world") == 2
    assert capsys.readouterr().err.startswith("verifier-world serve: cannot read ")


def test_the_old_server_module_entry_still_serves_with_the_same_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from verifier.world.server import main

    assert main(["--corpus", "/nonexistent/corpus.jsonl"], prog="verifier world serve") == 2
    assert capsys.readouterr().err.startswith("verifier world serve: cannot read ")


# ----------------------------------------------------------------------------- crossref


@pytest.mark.asyncio
async def test_crossref_list_envelope_has_the_recorded_structure() -> None:
    recorded = recorded_json("crossref", "works_query.json")
    allowed = recorded_item_keys("works_query.json", "works_query_author.json",
                                 "works_doi.json")
    async with world_client() as client:
        reply = await client.get("crossref", "/works", {"query": "deep learning", "rows": "2"})
    assert reply.status == 200
    assert reply.content_type == "application/json"
    body = reply.json()
    assert list(body) == list(recorded)
    assert {k: body[k] for k in ("status", "message-type", "message-version")} == {
        "status": "ok", "message-type": "work-list", "message-version": "1.0.0"}
    message = body["message"]
    assert list(message) == list(recorded["message"])
    assert message["query"] == {"start-index": 0, "search-terms": "deep learning"}
    assert (message["total-results"], message["items-per-page"]) == (2, 2)
    first = message["items"][0]
    assert first["DOI"] == "10.1234/deep" and first["title"] == ["Deep learning"]
    for item in message["items"]:
        assert set(item) <= allowed, set(item) - allowed
        assert isinstance(item["score"], float) and item["score"] > 0


@pytest.mark.asyncio
async def test_crossref_work_envelope_and_fields() -> None:
    recorded = recorded_json("crossref", "works_doi.json")
    allowed = recorded_item_keys("works_query.json", "works_query_author.json",
                                 "works_doi.json")
    async with world_client() as client:
        reply = await client.get("crossref", "/works/10.1234/CATS.2020")  # case-insensitive
        v1 = await client.get("crossref", "/v1/works/10.1234/cats.2020")
    assert reply.status == 200 and reply.content_type == "application/json"
    body = reply.json()
    assert list(body) == list(recorded)
    assert body["message-type"] == "work"
    work = body["message"]
    assert set(work) <= allowed, set(work) - allowed
    assert work["DOI"] == "10.1234/Cats.2020"
    assert work["title"] == ["Deep learning for cats"]
    assert work["subtitle"] == ["A survey"]
    assert work["author"][:2] == [
        {"given": "John", "family": "Smith", "sequence": "first", "affiliation": []},
        {"given": "Jane Mary", "family": "Doe", "sequence": "additional", "affiliation": []},
    ]
    assert len(work["author"]) == 4
    assert work["issued"] == {"date-parts": [[2020]]}
    assert (work["container-title"], work["volume"], work["issue"], work["page"]) == (
        ["Journal of Feline Studies"], "12", "3", "100-120")
    assert (work["type"], work["publisher"], work["ISSN"], work["score"]) == (
        "journal-article", "Cat Press", ["1234-5678"], 1.0)
    assert v1.json() == body


@pytest.mark.asyncio
async def test_crossref_unknown_doi_is_a_plain_text_404() -> None:
    recorded = load_sample("crossref", "works_doi_not_found.txt")
    async with world_client() as client:
        reply = await client.get("crossref", "/works/10.1371/notarealdoi")
        route = await client.get("crossref", "/nothing/here")
    for answer in (reply, route):
        assert answer.status == recorded.status == 404
        assert answer.content_type == recorded.headers["content-type"] == "text/plain"
        assert answer.body == recorded.body == b"Resource not found."


@pytest.mark.asyncio
async def test_crossref_select_keeps_only_selected_fields_and_score_on_request() -> None:
    recorded = recorded_json("crossref", "works_query_select.json")
    assert all("score" not in item for item in recorded["message"]["items"])
    async with world_client() as client:
        plain = await client.get("crossref", "/works",
                                 {"query": "deep", "select": "DOI,title,author,published"})
        scored = await client.get("crossref", "/works", {"query": "deep", "select": "DOI,score"})
        bad = await client.get("crossref", "/works", {"select": "DOI,language"})
    items = plain.json()["message"]["items"]
    assert [list(i) for i in items] == [["DOI", "title", "author", "published"]] * 2
    assert [set(i) for i in scored.json()["message"]["items"]] == [{"DOI", "score"}] * 2
    assert bad.status == 400
    [failure] = bad.json()["message"]
    assert (failure["type"], failure["value"]) == ("select-not-available", "language")
    assert failure["message"].startswith(
        "Select language specified but there is no such select for this route.")


@pytest.mark.asyncio
async def test_crossref_validation_failures_match_the_recorded_bodies() -> None:
    rows = load_sample("crossref", "error_rows_invalid.json")
    field_query = load_sample("crossref", "error_field_query_on_doi_route.json")
    cursor = load_sample("crossref", "error_cursor_invalid.json")
    async with world_client() as client:
        got_rows = await client.get("crossref", "/works", {"rows": "things"})
        got_field = await client.get("crossref", "/works/10.1234/deep",
                                     {"query.author": "carl boettiger"})
        got_cursor = await client.get("crossref", "/works", {"query": "widget",
                                                             "cursor": "thing"})
        too_many = await client.get("crossref", "/works", {"rows": "1001"})
    for got, want in ((got_rows, rows), (got_field, field_query), (got_cursor, cursor)):
        assert got.status == want.status
        assert got.json() == orjson.loads(want.body)
    assert got_rows.content_type == rows.headers["content-type"] == "application/json;charset=utf-8"
    assert too_many.status == 400
    assert too_many.json() == {
        "status": "failed", "message-type": "validation-failure",
        "message": [{"type": "integer-not-valid", "value": "1001",
                     "message": "Integer specified as 1001 but must be a positive integer "
                                "less than or equal to 1000. "}]}


@pytest.mark.asyncio
async def test_crossref_lists_every_failure_and_rejects_unknown_parameters() -> None:
    async with world_client() as client:
        reply = await client.get("crossref", "/works", {"rows": "-1", "query.colour": "red",
                                                        "filter": "colour:red", "foo": "1"})
    assert reply.status == 400
    assert [(m["type"], m["value"]) for m in reply.json()["message"]] == [
        ("unknown-parameter", "foo"),
        ("integer-not-valid", "-1"),
        ("filter-not-available", "colour"),
        ("field-query-not-available", "colour"),
    ]


@pytest.mark.asyncio
async def test_crossref_gibberish_finds_nothing_but_real_words_always_find_something() -> None:
    recorded = recorded_json("crossref", "works_query_no_results.json")
    async with world_client(DEMO_CORPUS) as client:
        gibberish = await client.get("crossref", "/works",
                                     {"query.title": "askldjrq3rjaw938h", "rows": "1"})
        words = await client.get("crossref", "/works", {
            "query.title": "SF Districts in the style of Andy Warhol, with Math", "rows": "1"})
    assert gibberish.json() == recorded
    message = words.json()["message"]
    # Like the recorded irrelevant top hit: everyday words ("the", "of") match something.
    assert message["total-results"] > 10
    assert len(message["items"]) == 1
    assert "Warhol" not in message["items"][0]["title"][0]


@pytest.mark.asyncio
async def test_crossref_field_queries_are_anded_and_filters_apply() -> None:
    async with world_client() as client:
        both = await client.get("crossref", "/works", {"query.title": "deep learning",
                                                       "query.author": "smith"})
        filtered = await client.get("crossref", "/works", {
            "query.bibliographic": "deep learning",
            "filter": "from-pub-date:2016,type:journal-article"})
        bad_type = await client.get("crossref", "/works", {"filter": "type:paper"})
    assert [i["DOI"] for i in both.json()["message"]["items"]] == ["10.1234/Cats.2020"]
    assert [i["DOI"] for i in filtered.json()["message"]["items"]] == ["10.1234/Cats.2020"]
    assert bad_type.json()["message"][0]["type"] == "type-not-valid"


@pytest.mark.asyncio
async def test_crossref_retraction_and_jetty_semicolon() -> None:
    async with world_client() as client:
        encoded = await client.get("crossref", "/works/" + quote(SEMICOLON_DOI, safe="/()"))
        bare = await client.get("crossref", "/works/" + quote(SEMICOLON_DOI, safe="/();"))
    assert bare.status == 404  # Jetty reads ";2-J" as a path parameter
    work = encoded.json()["message"]
    assert work["DOI"] == SEMICOLON_DOI
    [update] = work["updated-by"]
    assert (update["DOI"], update["type"], update["source"]) == (
        "10.1234/retraction", "retraction", "publisher")
    assert update["updated"]["date-parts"] == [[2010, 1, 1]]


@pytest.mark.asyncio
async def test_crossref_agency() -> None:
    async with world_client() as client:
        crossref = await client.get("crossref", "/works/10.1234/deep/agency")
        datacite = await client.get("crossref", "/works/10.48550/arXiv.2101.00001/agency")
        missing = await client.get("crossref", "/works/10.48550/arXiv.2101.00001")
        unknown = await client.get("crossref", "/works/10.9999/none/agency")
    assert crossref.json()["message"] == {"DOI": "10.1234/deep",
                                          "agency": {"id": "crossref", "label": "Crossref"}}
    assert datacite.json()["message"]["agency"] == {"id": "datacite", "label": "DataCite"}
    assert (missing.status, unknown.status, unknown.body) == (404, 404, b"Resource not found.")


@pytest.mark.asyncio
async def test_crossref_pool_headers_follow_identification() -> None:
    public = load_sample("crossref", "works_doi.json").headers
    polite = load_sample("crossref", "works_query.json").headers
    rate = ("x-api-pool", "x-rate-limit-limit", "x-rate-limit-interval", "x-concurrency-limit")
    async with world_client() as client:
        anonymous = await client.get("crossref", "/works/10.1234/deep")
        by_param = await client.get("crossref", "/works", {"mailto": "you@example.org"})
        by_agent = await client.get("crossref", "/works", headers={
            "User-Agent": "app/1.0 (https://example.org; mailto:you@example.org)"})
        plus = await client.get("crossref", "/works/10.1234/nope",
                                headers={"Crossref-Plus-API-Token": "Bearer k"})
    assert {h: anonymous.headers.get(h) for h in rate} == {h: public[h] for h in rate}
    assert {h: by_param.headers.get(h) for h in rate} == {h: polite[h] for h in rate}
    assert {h: by_agent.headers.get(h) for h in rate} == {h: polite[h] for h in rate}
    assert plus.status == 404
    assert {h: plus.headers.get(h) for h in rate} == {
        "x-api-pool": "plus", "x-rate-limit-limit": "150", "x-rate-limit-interval": "1s",
        "x-concurrency-limit": None}


# ----------------------------------------------------------------------------- openalex


@pytest.mark.asyncio
async def test_openalex_list_has_the_recorded_structure() -> None:
    recorded = recorded_json("openalex", "works_title_search.json")
    allowed = set(recorded["results"][0]) | set(recorded_json(
        "openalex", "works_title_search_single.json")["results"][0])
    async with world_client() as client:
        reply = await client.get("openalex", "/works", {"filter": "title.search:deep learning"})
    assert reply.status == 200 and reply.content_type == "application/json"
    body = reply.json()
    assert list(body) == list(recorded)
    assert set(body["meta"]) == set(recorded["meta"])
    assert {k: body["meta"][k] for k in ("count", "page", "per_page", "groups_count")} == {
        "count": 2, "page": 1, "per_page": 25, "groups_count": None}
    ids = [r["id"] for r in body["results"]]
    assert ids[0] == "https://openalex.org/W42"
    for result in body["results"]:
        assert set(result) <= allowed, set(result) - allowed
        assert result["relevance_score"] > 0
    assert body["results"][0]["relevance_score"] > body["results"][1]["relevance_score"]


@pytest.mark.asyncio
async def test_openalex_rendering_options_show_in_the_work() -> None:
    async with world_client() as client:
        reply = await client.get("openalex", "/works", {"search": "cats"})
        by_doi = await client.get("openalex", "/works/doi:10.1234/cats.2020")
    [work] = reply.json()["results"]
    assert (work["title"], work["display_name"]) == ("deep learning for cats",) * 2
    assert (work["doi"], work["publication_year"]) == (None, 2019)
    assert [(a["author_position"], a["raw_author_name"]) for a in work["authorships"]] == [
        ("first", "J. Smith"), ("middle", "J. M. Doe"), ("last", "R. Roe")]
    assert work["primary_location"]["source"]["display_name"] == "Journal of Feline Studies"
    assert work["biblio"] == {"volume": "12", "issue": "3", "first_page": "100",
                              "last_page": "120"}
    assert by_doi.status == 404  # omit_doi: OpenAlex does not know the DOI


@pytest.mark.asyncio
async def test_openalex_singleton_by_doi_url_with_select() -> None:
    recorded = recorded_json("openalex", "works_doi_select.json")
    async with world_client() as client:
        full = await client.get("openalex", "/works/https://doi.org/10.1234%2FDEEP")
        selected = await client.get("openalex", "/works/doi:10.1234/deep",
                                    {"select": "open_access,doi"})
        by_id = await client.get("openalex", "/works/https://openalex.org/W42")
        retracted = await client.get("openalex", "/works/doi:" + quote(SEMICOLON_DOI, safe="/"))
    work = full.json()
    assert (work["id"], work["doi"], work["title"]) == (
        "https://openalex.org/W42", "https://doi.org/10.1234/deep", "Deep learning")
    assert "relevance_score" not in work
    assert by_id.json() == work
    assert list(selected.json()) == list(recorded) == ["open_access", "doi"]
    body = retracted.json()
    assert body["is_retracted"] is True
    assert body["title"] == "Vaccines, autism, and other claims: A case series"


@pytest.mark.asyncio
async def test_openalex_unknown_doi_is_an_html_404() -> None:
    recorded = load_sample("openalex", "works_doi_not_found.html")
    async with world_client() as client:
        reply = await client.get("openalex", "/works/https://doi.org/10.1046%2Fj.x",
                                 {"select": "open_access,doi"})
        route = await client.get("openalex", "/authors/A1")
    for answer in (reply, route):
        assert answer.status == recorded.status == 404
        assert answer.content_type == recorded.headers["content-type"]
        assert answer.body == recorded.body


@pytest.mark.asyncio
async def test_openalex_title_search_quotes_protect_commas() -> None:
    title = "Attention please: Commas, colons: and more"
    async with world_client() as client:
        quoted = await client.get("openalex", "/works", {"filter": f'title.search:"{title}"'})
        unquoted = await client.get("openalex", "/works", {"filter": f"title.search:{title}"})
        wildcard = await client.get("openalex", "/works", {"search": "attention?"})
    assert quoted.json()["results"][0]["title"] == title
    assert unquoted.status == 400
    assert unquoted.json()["message"].startswith(" colons is not a valid field.")
    assert wildcard.status == 400
    assert wildcard.json()["message"].startswith("Wildcards (* or ?) require exact")


@pytest.mark.asyncio
async def test_openalex_filters_paging_and_errors() -> None:
    async with world_client() as client:
        years = await client.get("openalex", "/works", {"filter": "publication_year:2019-2021",
                                                        "select": "id,publication_year",
                                                        "sort": "publication_year:asc"})
        dois = await client.get("openalex", "/works", {
            "filter": "doi:https://doi.org/10.1234/deep|10.48550/ARXIV.2101.00001"})
        page = await client.get("openalex", "/works", {"per-page": "1", "page": "2"})
        too_big = await client.get("openalex", "/works", {"per_page": "101"})
        bad_select = await client.get("openalex", "/works", {"select": "open_access.is_oa"})
        bad_param = await client.get("openalex", "/works", {"rows": "5"})
    assert [r["publication_year"] for r in years.json()["results"]] == [2019, 2019, 2021]
    assert all(set(r) == {"id", "publication_year"} for r in years.json()["results"])
    assert "relevance_score" not in dois.json()["results"][0]
    assert sorted(r["doi"] for r in dois.json()["results"]) == [
        "https://doi.org/10.1234/deep", "https://doi.org/10.48550/arxiv.2101.00001"]
    assert (page.json()["meta"]["count"], len(page.json()["results"])) == (5, 1)
    assert too_big.status == 400
    assert too_big.json() == {"error": "Pagination error.",
                              "message": "per-page parameter must be between 1 and 100"}
    assert bad_select.json()["message"].startswith(
        "open_access.is_oa is not a valid select field.")
    assert bad_param.json()["message"].startswith("rows is not a valid parameter.")
