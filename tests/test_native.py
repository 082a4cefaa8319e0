"""Telling a compiled module older than its source (verifier.native), which the test
suite refuses to run over."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from verifier.native import interpreter, stale_extensions

SO = ".cpython-311-x86_64-linux-gnu.so"


def _file(path: Path, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    os.utime(path, (mtime, mtime))
    return path


def test_a_source_edited_after_the_build_is_stale(tmp_path: Path) -> None:
    _file(tmp_path / f"verifier_native__mypyc{SO}", 100)
    shim = _file(tmp_path / "verifier" / "citations" / f"matching{SO}", 100)
    _file(tmp_path / "verifier" / "citations" / "matching.py", 200)
    _file(tmp_path / "adapters" / f"crossref{SO}", 100)
    _file(tmp_path / "adapters" / "crossref.py", 50)
    assert stale_extensions(tmp_path) == [shim]


def test_a_shim_kept_from_an_earlier_build_is_not_stale_when_the_library_is_newer(
    tmp_path: Path,
) -> None:
    """A rebuild rewrites the shared library of compiled code but may leave a shim whose
    content did not change with its old time: the module is built all the same."""
    _file(tmp_path / f"verifier_native__mypyc{SO}", 300)
    _file(tmp_path / "verifier" / "http" / f"client{SO}", 100)
    _file(tmp_path / "verifier" / "http" / "client.py", 200)
    assert stale_extensions(tmp_path) == []


def test_a_compiled_module_without_its_source_or_outside_the_packages_is_not_looked_at(
    tmp_path: Path,
) -> None:
    _file(tmp_path / "verifier" / f"gone{SO}", 100)
    _file(tmp_path / "other" / f"thing{SO}", 100)
    _file(tmp_path / "other" / "thing.py", 200)
    assert stale_extensions(tmp_path) == []


def test_an_extension_written_in_c_is_stale_when_its_c_source_is_newer(tmp_path: Path) -> None:
    _file(tmp_path / f"verifier_native__mypyc{SO}", 100)
    decoder = _file(tmp_path / "verifier" / "citations" / f"_decode{SO}", 100)
    source = _file(tmp_path / "verifier" / "citations" / "_decode.c", 200)
    assert stale_extensions(tmp_path) == [decoder]
    os.utime(source, (50, 50))
    assert stale_extensions(tmp_path) == []


def test_the_interpreter_says_whether_it_runs_from_a_shared_libpython(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 0 08:01 42 /opt/py/lib/libpython3.11.so.1.0\n")
    described = interpreter(maps)
    assert described["libpython_shared"] is True
    assert described["executable"] == sys.executable
    assert described["version"] == ".".join(map(str, sys.version_info[:3]))
    maps.write_text("7f00-7f01 r-xp 0 08:01 42 /usr/bin/python3.11\n")
    assert interpreter(maps)["libpython_shared"] is False
    assert interpreter(tmp_path / "absent")["libpython_shared"] is None
