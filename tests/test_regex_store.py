"""The store of compiled regular expressions (verifier.regex_store): a later process gets
exactly the patterns re.compile would build, without compiling them, and a bad store
never breaks a process. Each case runs in a fresh interpreter (re's cache is global)."""

from __future__ import annotations

import marshal
import subprocess
import sys
import textwrap
from pathlib import Path

PATTERNS = r'''
import re
PATTERNS = [
    (r"(?P<family>[A-Z][a-z]+),\s?(?P<given>(?:[A-Z]\.\s?)+)", 0),
    (r"\b(?:ed|eds|edn)\b\.?", re.IGNORECASE),
    ("|".join(f"w{i:04d}" for i in range(2000)), 0),
    (rb"\x00+|(?P<x>ab)", 0),
]
TEXTS = ["Smith, J. K.", "ED. Eds edn", "w1999 w0007", "Jones, A."]
'''


def run(code: str, store: Path) -> str:
    """Run ``code`` (after PATTERNS) in a new interpreter with the store at ``store``."""
    script = PATTERNS + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={"VERIFIER_REGEX_STORE": str(store), "PATH": "/usr/bin:/bin"},
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


SAVE = """
from verifier import regex_store
compiled = [re.compile(p, f) for p, f in PATTERNS]
print(regex_store.save(), regex_store.save())
"""

LOAD = """
import re._compiler
from verifier import regex_store
seeded = regex_store.preload()
calls = []
real = re._compiler.compile
re._compiler.compile = lambda *a: calls.append(a) or real(*a)
got = [re.compile(p, f) for p, f in PATTERNS]
re._compiler.compile = real
fresh = [real(p, f) for p, f in PATTERNS]
same = all(g == f and g.groupindex == f.groupindex and g.flags == f.flags
           for g, f in zip(got, fresh))
found = [[bool(g.search(t if isinstance(g.pattern, str) else t.encode()))
          for t in TEXTS] for g in got]
expected = [[bool(f.search(t if isinstance(f.pattern, str) else t.encode()))
             for t in TEXTS] for f in fresh]
print(seeded >= len(PATTERNS), len(calls), same, found == expected)
"""


def test_a_later_process_gets_the_same_patterns_without_compiling_them(tmp_path: Path) -> None:
    store = tmp_path / "regex.bin"
    assert run(SAVE, store) == "True False"  # written once; nothing new the second time
    assert run(LOAD, store) == "True 0 True True"


def test_without_a_store_every_pattern_is_compiled_as_usual(tmp_path: Path) -> None:
    assert run(LOAD, tmp_path / "none.bin") == f"False {4} True True"


def test_a_corrupt_or_foreign_store_is_ignored_and_replaced(tmp_path: Path) -> None:
    store = tmp_path / "regex.bin"
    store.write_bytes(b"not a store at all")
    assert run(LOAD, store) == "False 4 True True"
    store.write_bytes(marshal.dumps(((1, "Python 2.7", 0), [])))  # another build's
    assert run(LOAD, store) == "False 4 True True"
    assert run(SAVE, store) == "True False"
    assert run(LOAD, store) == "True 0 True True"


def test_an_entry_with_bad_code_is_skipped_not_trusted(tmp_path: Path) -> None:
    store = tmp_path / "regex.bin"
    run(SAVE, store)
    stamp, entries = marshal.loads(store.read_bytes())
    bad = [(e[0], e[1], e[2], [999999] * len(e[3]), *e[4:]) for e in entries]
    store.write_bytes(marshal.dumps((stamp, bad)))
    # _sre refuses code it cannot validate: every pattern is compiled again, correctly.
    assert run(LOAD, store) == "False 4 True True"


def test_a_store_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    assert run(SAVE, blocked / "sub" / "regex.bin") == "False False"


def test_a_store_larger_than_re_cache_is_not_rewritten_on_every_run(tmp_path: Path) -> None:
    store = tmp_path / "regex.bin"
    many = """
from verifier import regex_store
seeded = regex_store.preload()
for i in range(600):  # more than re's cache holds (512): some cannot be seeded
    re.compile(f"many{i}[a-z]+")
print(seeded < 600, regex_store.save())
"""
    assert run(many, store) == "True True"  # the first run writes the store
    assert run(many, store) == "True False"  # nothing new: no rewrite, seeded or not
