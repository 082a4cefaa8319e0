"""Build hook: compiles the warm path's pure modules (``native-modules.txt``) to C
extensions with mypyc, which translates type-checked Python into C, and builds the CRF
parser's decoder (``verifier/citations/parsing/crf/_decode.c``). Metadata lives in
pyproject.toml; this file adds only the extensions.

``VERIFIER_PURE_PYTHON=1`` at install builds none: every module then runs as plain Python
and the CRF labels through python-crfsuite, with the same results, only slower."""

import os
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent


def native_sources() -> list[str]:
    """The paths native-modules.txt lists: Python modules for mypyc, and C sources."""
    lines = (HERE / "native-modules.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def ext_modules() -> list:
    if os.environ.get("VERIFIER_PURE_PYTHON", "") not in ("", "0"):
        return []
    from mypyc.build import mypycify

    sources = native_sources()
    # Extensions written in C (the CRF parser's decoder: see
    # verifier/citations/parsing/crf/decode.py), each the module its path names.
    written_in_c = [Extension(path.removesuffix(".c").replace("/", "."), [path])
                    for path in sources if path.endswith(".c")]

    # The build environment holds only the build requirements, so the libraries these
    # modules import are typed as Any here (the type check proper is `make typecheck`).
    compiled = mypycify(["--ignore-missing-imports", "--no-warn-return-any",
                         "--allow-subclassing-any", "--allow-untyped-calls",
                         "--allow-untyped-decorators", "--no-warn-unused-ignores",
                         *(path for path in sources if path.endswith(".py"))],
                        opt_level="3", debug_level="0", group_name="verifier_native")
    return [*written_in_c, *compiled]


setup(ext_modules=ext_modules())
