"""Suite-wide fixtures: every test runs under a blocking-call detector, and property
tests have no time limit per example.

blockbuster raises ``BlockingError`` when code of ``verifier`` or ``adapters`` makes a
blocking call (file or socket I/O, ``time.sleep``, SQLite) on a running event loop's
thread. The offline world is excluded: it is the stand-in service, not the engine, and
benchmarks run it in its own process.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from blockbuster import BlockBuster, blockbuster_ctx
from hypothesis import settings

from verifier.native import stale_extensions

ROOT = Path(__file__).resolve().parents[1]

# A property test asserts what its examples give, never how long one took: hypothesis's
# default 200 ms deadline per example failed tests on this shared machine under load.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test a compiled module older than its source: Python would import the
    old compiled code, and the tests would pass or fail on code no longer there."""
    stale = stale_extensions(ROOT)
    if stale:
        names = ", ".join(str(path.relative_to(ROOT)) for path in stale)
        pytest.exit(f"compiled modules older than their sources: {names}. Install again to "
                    "rebuild them (make does it), or delete them to test plain Python.",
                    returncode=4)


@pytest.fixture(autouse=True)
def blockbuster(request: pytest.FixtureRequest) -> Iterator[BlockBuster | None]:
    """``@pytest.mark.blocking_allowed(reason)`` turns it off for a test that blocks on
    purpose (a synchronous API exercised from a coroutine, the in-process demo world)."""
    if request.node.get_closest_marker("blocking_allowed") is not None:
        yield None
        return
    with blockbuster_ctx(["verifier", "adapters"], excluded_modules=["verifier.world"]) as bb:
        # The response cache reads on the loop's thread on purpose: one indexed SELECT on a
        # read-only connection whose busy timeout (READ_BUSY_TIMEOUT_S, milliseconds)
        # bounds the wait; handing each read to a worker cost more than the read. Only
        # that function (and the two that begin and end a turn's read transaction) may;
        # every other SQLite call (writes, open, close) stays flagged on the loop.
        # The parse store reads on the loop's thread the same way.
        for name in ("sqlite3.Connection.execute", "sqlite3.Cursor.fetchall",
                     "sqlite3.Cursor.fetchone"):
            bb.functions[name].can_block_in("verifier/http/cache.py", "_select_on_loop")
            # Its read transaction (one per turn of the loop) begins and ends on the
            # loop's thread too: neither takes a lock that could make it wait.
            for snapshot_step in ("_begin_read_on_loop", "_end_read_on_loop"):
                bb.functions[name].can_block_in("verifier/http/cache.py", snapshot_step)
            bb.functions[name].can_block_in("verifier/citations/parse_store.py",
                                            "_select_on_loop")
        yield bb


@pytest.fixture(autouse=True, scope="session")
def user_cache_in_a_temporary_folder(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """The ``verifier`` processes the tests start keep what they keep in the user's cache
    folder (the store of compiled patterns, :mod:`verifier.regex_store`) in a temporary
    one: ``XDG_CACHE_HOME``, which no test's clean environment removes."""
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("user-cache"))
    yield
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved
