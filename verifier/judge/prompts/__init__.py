"""The judge's prompts: versioned text files shipped as package data.

Each file ``<task>.v<N>.txt`` is the instruction of one model call; its first line is
``task: <task>`` (the convention the offline chat model reads, harmless to a real model).
:data:`VERSIONS` pins the version each task uses, so a prompt change is a new file and a
new pin, never an edit in place: the version goes into every output line
(:func:`prompt_versions`), and a changed prompt changes the request bytes, so cached
answers of the old prompt are never served for the new one.

Every call is laid out the same way (:func:`messages_for`): a system message holding the
paper inside ``<paper>…</paper>`` (the same bytes for every call on one paper: the prefix
an endpoint caches), then a user message with the task's instruction and its inputs in
tagged sections.
"""

from __future__ import annotations

from importlib.resources import files

from verifier.llm.types import ChatMessage, Role

VERSIONS: dict[str, int] = {
    "extract_claims": 1,
    "parse_comments": 1,
    "map_comments": 1,
    "type_critiques": 1,
    "generate_rubric": 1,
    "score_rubric": 1,
}
"""Task → prompt version in use."""

_FILES = {"generate_rubric": "rubric_generate", "score_rubric": "rubric_score"}

PAPER_PREAMBLE = ("You are a careful scientific reviewer's assistant. The article under "
                  "discussion follows.\n")


def _load(task: str) -> str:
    name = f"{_FILES.get(task, task)}.v{VERSIONS[task]}.txt"
    return (files(__package__) / name).read_text(encoding="utf-8")


_TEXTS: dict[str, str] = {task: _load(task) for task in VERSIONS}
"""Read once at import (a few kilobytes of package data), so no call reads a file on the
event loop."""


def prompt_text(task: str) -> str:
    """The instruction text of ``task`` at its pinned version (KeyError: unknown task)."""
    return _TEXTS[task]


def prompt_versions() -> dict[str, str]:
    """Task → ``v<N>``, as written into output lines."""
    return {task: f"v{v}" for task, v in VERSIONS.items()}


def paper_message(paper_text: str) -> ChatMessage:
    """The shared first message of every call on one paper."""
    return ChatMessage(Role.SYSTEM, f"{PAPER_PREAMBLE}<paper>\n{paper_text}\n</paper>")


def messages_for(paper_text: str, task: str, **sections: str) -> list[ChatMessage]:
    """The paper first, then the task's instruction with its ``<name>…</name>`` sections."""
    body = "\n".join(f"<{name}>\n{text}\n</{name}>" for name, text in sections.items())
    return [paper_message(paper_text),
            ChatMessage(Role.USER, f"{prompt_text(task)}\n{body}".rstrip() + "\n")]
