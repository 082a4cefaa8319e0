"""The numeric-tail pattern stays linear on texts of many numbers run together.

Its items may follow one another with no separator, so before the items' digits were
possessive a run such as "e26439e26439..." that ends in a character no tail ends with was
split every possible way before the search gave up: 2 s at four numbers, a minute at five
(each one about 30 times the last), the event loop frozen meanwhile. The check runs in a
child process, because a regular expression stuck in C cannot be interrupted in this one."""

from __future__ import annotations

import subprocess
import sys

RUN_TOGETHER = ["\t" + "e26439" * 40 + "Ⅳ", "Stuff " + "12a" * 60 + "—", "x" + "7e" * 80 + "Ⅳ"]


def test_numbers_run_together_are_peeled_at_once() -> None:
    code = ("import sys; from verifier.citations.parsing.tail import peel_tail\n"
            "for text in sys.argv[1:]: print(repr(peel_tail(text, 1999).pre[-8:]))")
    # A generous bound for what takes microseconds: without the fix it never ends.
    done = subprocess.run([sys.executable, "-c", code, *RUN_TOGETHER], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [repr(text[-8:]) for text in RUN_TOGETHER]
