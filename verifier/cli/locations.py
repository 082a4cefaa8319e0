"""Where the sources live, from the command line: ``--base-url SOURCE=URL`` (repeatable)
and ``--world URL`` (every source the offline world serves, at ``URL/<source>``).

One helper for every command that talks to the sources: ``check``, ``judge`` (its
papers' references) and ``serve``."""

from __future__ import annotations

import argparse

from verifier.settings import SOURCE_NAMES, is_http_url


def base_url_pair(value: str) -> str:
    """An argparse type for ``SOURCE=URL``."""
    source, sep, url = value.partition("=")
    source, url = source.strip().lower(), url.strip()
    if not sep or not url:
        raise argparse.ArgumentTypeError(f"{value!r} is not SOURCE=URL")
    if source not in SOURCE_NAMES:
        raise argparse.ArgumentTypeError(
            f"unknown source {source!r} in {value!r} (known: {', '.join(SOURCE_NAMES)})")
    if not is_http_url(url):
        raise argparse.ArgumentTypeError(f"{url!r} is not an http(s) URL")
    return f"{source}={url}"


def world_url(value: str) -> str:
    """An argparse type for the root URL of a running world (``verifier world serve``);
    a service's URL as the world prints it (``ROOT/crossref``) is taken as its root."""
    url = value.strip().rstrip("/")
    if not is_http_url(url) or not url.split("//", 1)[1]:
        raise argparse.ArgumentTypeError(f"{value!r} is not an http(s) URL")
    root, _, last = url.rpartition("/")
    if last in SOURCE_NAMES and "//" in root and root.split("//", 1)[1]:
        return root
    return url


def world_pairs(url: str) -> list[str]:
    """``SOURCE=URL/SOURCE`` for every source: where the world serves each one."""
    return [f"{name}={url}/{name}" for name in SOURCE_NAMES]


def add_location_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--world", type=world_url, metavar="URL",
                        help="every source at a running offline world's root URL "
                             "('verifier world serve' prints it; e.g. "
                             "http://127.0.0.1:8000): URL/<source>")
    parser.add_argument("--base-url", type=base_url_pair, action="append", default=[],
                        metavar="SOURCE=URL",
                        help="where one source lives (repeatable; wins over --world)")


def location_pairs(args: argparse.Namespace) -> list[str]:
    """The ``SOURCE=URL`` pairs the options give, ``--world`` first so ``--base-url``
    overrides it (what ``Settings.with_base_urls`` takes)."""
    pairs = world_pairs(args.world) if args.world else []
    return [*pairs, *args.base_url]
