"""The CRF parser's model is opened off the event loop: importing the parser reads no file
(an import may run on a loop), and the citation checker opens the model on a worker thread
before its first parse. In a new interpreter, where the model is not open yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import asyncio, threading
import pycrfsuite
from verifier.citations.parsing.crf import model_file

opened_on = []

class Recording(pycrfsuite.Tagger):
    def open(self, *args):
        opened_on.append(threading.get_ident())
        return super().open(*args)

pycrfsuite.Tagger = Recording  # a pure-Python install opens the model with the library
read_model = model_file.read_model

def recording_read(path):
    opened_on.append(threading.get_ident())
    return read_model(path)

model_file.read_model = recording_read  # a compiled one reads its tables
import verifier.api
from verifier import Settings, Verifier
from verifier.citations.parsing import is_warm
from verifier.http.mock import MockTransport
from verifier.http.transport import HttpResponse

print("warm after import:", is_warm())

async def run():
    loop_thread = threading.get_ident()
    nothing = MockTransport(lambda base, request: HttpResponse(404, b""))
    async with Verifier(Settings(sources=("crossref",), cache_dir=None, time_scale=1000.0),
                        transport=nothing) as v:
        texts = [f"Smith, J. ({2000 + i}). A study of things {i}. Journal of Stuff, 3, 1-9."
                 for i in range(20)]
        reports = [r async for r in v.verify_many(texts, concurrency=20)]
    return loop_thread, len(reports)

loop_thread, n = asyncio.run(run())
print("reports:", n, "opened:", len(opened_on),
      "on the loop:", any(t == loop_thread for t in opened_on), "warm:", is_warm())
"""


def test_the_checker_opens_the_model_once_off_the_loop_and_importing_opens_nothing() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == [
        "warm after import: False",
        "reports: 20 opened: 1 on the loop: False warm: True",
    ]
