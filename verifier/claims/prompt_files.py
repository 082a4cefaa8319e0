"""PremiseCheck's prompts: our own text, stored as versioned files in ``prompts/``.

Files (package data of :mod:`verifier.claims`):

- ``decompose-<field>-v<N>.txt``: the decomposition instructions for one field variant
  (``general``, ``ml``, ``ns``), sent as the system message; the comment goes in the user
  message as ``<comment>…</comment>``.
- ``questions-v<N>.txt``: the decision-model questions, in ``[section]`` blocks with one
  phrasing per line (``grounded``, ``paper``, ``contradiction``, ``knowledge``, the
  ``knowledge_state`` text and ``holistic``).

**Versions.** Each file's first line is ``version: <file name without .txt>``; a file is
never edited in place: a changed prompt is a new file with the next version, and
:data:`DECOMPOSE_FILES` / :data:`QUESTIONS_FILE` name the ones in use. The version is part
of every result (``prompts`` in the output) and of every request body: the decomposition
prompt carries its version line, and each decision question's name starts with the
question file's version (``v1_p0_paper_3``), so a cached answer is never reused across
versions.

The files are read once, when this module is imported (small package data, read before
any event loop needs them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from .aggregate import Field

QUESTIONS_FILE = "questions-v1"
DECOMPOSE_FILES: dict[Field, str] = {
    Field.GENERAL: "decompose-general-v1",
    Field.MACHINE_LEARNING: "decompose-ml-v1",
    Field.NATURAL_SCIENCE: "decompose-ns-v1",
}
SECTIONS = ("grounded", "paper", "contradiction", "knowledge", "knowledge_state", "holistic")
"""The sections a question file must have, each with at least one line."""

_VERSION_LINE = re.compile(r"\Aversion:[ \t]*(\S+)[ \t]*\n")
_SECTION = re.compile(r"^\[([a-z_]+)\]\s*$")
_FILE_VERSION = re.compile(r"-v(\d+)$")


class PromptFileError(ValueError):
    """A prompt file that does not follow its format (a packaging bug)."""


@dataclass(frozen=True, slots=True)
class PromptFile:
    name: str
    """The file name without ``.txt``; equal to the version its first line declares."""
    text: str
    """The whole file, version line included (it is sent as is)."""

    @property
    def version(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class QuestionSet:
    """The decision questions of one question file."""

    version: str
    grounded: str
    paper: tuple[str, ...]
    contradiction: tuple[str, ...]
    knowledge: tuple[str, ...]
    knowledge_state: str
    holistic: str

    @property
    def max_phrasings(self) -> int:
        """The most phrasings every verifying section has."""
        return min(len(self.paper), len(self.contradiction), len(self.knowledge))

    @property
    def tag(self) -> str:
        """The short version tag that starts every question name (``v1``)."""
        found = _FILE_VERSION.search(self.version)
        return f"v{found.group(1)}" if found else self.version


def read_prompt(name: str) -> PromptFile:
    """The prompt file ``prompts/<name>.txt``; raises :class:`PromptFileError` when its
    first line does not declare ``version: <name>``."""
    text = (resources.files("verifier.claims") / "prompts" / f"{name}.txt").read_text(
        encoding="utf-8")
    found = _VERSION_LINE.match(text)
    if found is None or found.group(1) != name:
        raise PromptFileError(f"prompts/{name}.txt must start with 'version: {name}'")
    if not _FILE_VERSION.search(name):
        raise PromptFileError(f"prompt file name {name!r} must end in -v<N>")
    return PromptFile(name, text)


def parse_questions(prompt: PromptFile) -> QuestionSet:
    """The sections of a question file (see the module docstring)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in prompt.text.splitlines()[1:]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        header = _SECTION.match(stripped)
        if header:
            current = sections.setdefault(header.group(1), [])
            continue
        if current is None:
            raise PromptFileError(f"{prompt.name}: text before the first [section]")
        current.append(stripped)
    missing = [name for name in SECTIONS if not sections.get(name)]
    if missing:
        raise PromptFileError(f"{prompt.name}: missing or empty sections {missing}")
    for name in ("grounded", "paper", "contradiction", "knowledge"):
        bad = [p for p in sections[name] if not p.endswith("{premise}")]
        if bad:
            raise PromptFileError(f"{prompt.name}: [{name}] phrasing must end in {{premise}}: "
                                  f"{bad[0]!r}")
    if not sections["holistic"][0].endswith("{comment}"):
        raise PromptFileError(f"{prompt.name}: [holistic] must end in {{comment}}")
    return QuestionSet(
        version=prompt.version,
        grounded=sections["grounded"][0],
        paper=tuple(sections["paper"]),
        contradiction=tuple(sections["contradiction"]),
        knowledge=tuple(sections["knowledge"]),
        knowledge_state=" ".join(sections["knowledge_state"]),
        holistic=sections["holistic"][0],
    )


DECOMPOSE_PROMPTS: dict[Field, PromptFile] = {
    field: read_prompt(name) for field, name in DECOMPOSE_FILES.items()}
QUESTIONS: QuestionSet = parse_questions(read_prompt(QUESTIONS_FILE))
