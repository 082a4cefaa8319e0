"""The exit codes of every ``verifier`` command: one table, so a script reads ``check``,
``premises`` and ``judge`` the same way.

When several apply, the first of these wins: 6 (nothing to do), 7 (a ``--fail-on`` gate
of ``check``), 5 (an input error: permanent, fix the input), 3 (an item not finished: a
source or model could not answer, temporary, run again), 1 (``check``: a citation not
verified).
"""

from __future__ import annotations

OK = 0
"""Finished, every item done (``check``: every citation verified)."""
NOT_VERIFIED = 1
"""``check`` finished; some citation unconfirmed or no_trace, none inconclusive."""
USAGE = 2
"""Usage or configuration error; nothing written."""
INCOMPLETE = 3
"""Finished with an item a source or model could not answer (``check``: an inconclusive
citation). Temporary: run again (``--resume``)."""
INTERNAL = 4
"""Internal error (traceback with ``--debug``)."""
INPUT_ERRORS = 5
"""Finished with an input error: an item that cannot be read. Permanent: fix the input.
Wins over 3."""
EMPTY = 6
"""The input holds nothing to check: nothing was written (an existing output is left as it
was)."""
FAIL_ON = 7
"""``check``: a ``--fail-on`` gate matched (wins over 1, 3 and 5)."""
INTERRUPTED = 130
"""Interrupted (Ctrl-C, SIGTERM): the output so far is kept; ``--resume`` continues."""


def finished(*, input_errors: bool, incomplete: bool) -> int:
    """The code of a run that finished: :data:`INPUT_ERRORS` over :data:`INCOMPLETE`
    over :data:`OK`."""
    if input_errors:
        return INPUT_ERRORS
    return INCOMPLETE if incomplete else OK


ITEM_COMMANDS_HELP = (
    "exit codes: 0 all done; 3 an item a source or model could not answer (run again: "
    "--output FILE --retry-inconclusive); "
    "5 an input error (fix the input; wins over 3); 6 the input holds nothing (nothing "
    "written); 2 usage; 4 internal error; 130 interrupted (--resume continues)")
"""The exit codes of ``premises`` and ``judge``, for their ``--help``."""
