"""The command line, on top of everything else: one module per command family.

:mod:`.main` parses the arguments and runs ``check`` and ``demo``; :mod:`.commands` adds
``sources``, ``world serve`` and ``bench``; :mod:`.output` writes and resumes JSON lines;
:mod:`.progress` draws progress and the summary.
"""

from .main import main

__all__ = ["main"]
