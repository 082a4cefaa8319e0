"""A Hypothesis strategy for JSON values as source answers hold them, for the adapters'
property tests: scalars of every JSON type (floats finite, as orjson writes them), the
strings a test's reader treats specially, and lists and objects of them under the keys
it reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st


def json_values(strings: Sequence[str], keys: Sequence[str]) -> st.SearchStrategy[Any]:
    """JSON values of at most eight leaves: ``None``, booleans, small integers, finite
    floats and ``strings``, in lists and in objects keyed by ``keys``."""
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(-3, 3000),
        st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(list(strings)),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=3),
                                st.dictionaries(st.sampled_from(list(keys)), inner,
                                                max_size=3)),
        max_leaves=8,
    )
