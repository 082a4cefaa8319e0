"""Where the sources live, from the command line: ``--base-url SOURCE=URL`` (repeatable)
and ``--world URL`` (every source the offline world serves, at ``URL/<source>``).

One helper for every command that talks to the sources (``serve`` today; ``check`` can
take the same two options through :func:`add_location_arguments`)."""

from __future__ import annotations

import argparse

from verifier.settings import SOURCE_NAMES


def base_url_pair(value: str) -> str:
    """An argparse type for ``SOURCE=URL``."""
    source, sep, url = value.partition("=")
    source, url = source.strip().lower(), url.strip()
    if not sep or not url:
        raise argparse.ArgumentTypeError(f"{value!r} is not SOURCE=URL")
    if source not in SOURCE_NAMES:
        raise argparse.ArgumentTypeError(
            f"unknown source {source!r} in {value!r} (known: {', '.join(SOURCE_NAMES)})")
    if not url.startswith(("http://", "https://")):
        raise argparse.ArgumentTypeError(f"{url!r} is not an http(s) URL")
    return f"{source}={url}"


def world_url(value: str) -> str:
    """An argparse type for the root URL of a running world (``verifier world serve``)."""
    url = value.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise argparse.ArgumentTypeError(f"{value!r} is not an http(s) URL")
    return url


def world_pairs(url: str) -> list[str]:
    """``SOURCE=URL/SOURCE`` for every source: where the world serves each one."""
    return [f"{name}={url}/{name}" for name in SOURCE_NAMES]


def add_location_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", type=base_url_pair, action="append", default=[],
                        metavar="SOURCE=URL", help="where a source lives (repeatable)")
    parser.add_argument("--world", type=world_url, metavar="URL",
                        help="every source at a running offline world's root URL "
                             "(e.g. http://127.0.0.1:8000); --base-url wins for its source")


def location_pairs(args: argparse.Namespace) -> list[str]:
    """The ``SOURCE=URL`` pairs the options give, ``--world`` first so ``--base-url``
    overrides it (what ``Settings.with_base_urls`` takes)."""
    pairs = world_pairs(args.world) if args.world else []
    return [*pairs, *args.base_url]
