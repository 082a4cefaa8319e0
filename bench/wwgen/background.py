"""The background corpus: works of the rows' topics that no citation names, so that
searches return plausible neighbours (WW_WORLD.md section 2).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict

from wwgen.model import BACKGROUND_NEAR_TITLE_RATE, ORGANISATIONS
from wwgen.state import WorldState
from wwgen.text import split_title, title_key
from wwgen.works import Spec


class Background(WorldState):
    """The background works, run last."""

    # -------------------------------------------------------------------- background

    def background_works(self) -> None:
        topics = sorted(self.topic_field)
        type_mix: dict[int, Counter[str]] = defaultdict(Counter)
        for row in self.rows:
            type_mix[row.topic][row.pub_type] += 1
        per_topic = [self.background // len(topics)] * len(topics)
        for i in range(self.background % len(topics)):
            per_topic[i] += 1
        for topic, count in zip(topics, per_topic, strict=True):
            mix = type_mix[topic]
            weights = [mix["A"] + 1, mix["B"] + 1, mix["C"] + 1, (mix["W"] + 1) / 2]
            made = 0
            i = 0
            while made < count:
                rng = self.rng("background", topic, i)
                i += 1
                pub_type = rng.choices(("A", "B", "C", "W"), weights=weights)[0]
                cls = {"A": "article", "C": "chapter", "W": "web"}.get(pub_type, "book")
                if pub_type == "B" and rng.random() < 0.2:
                    cls = "report"
                if pub_type == "C" and rng.random() < 0.15:
                    cls = "proceedings"
                made += self._background_one(topic, i, cls, rng, room=count - made)

    def _background_one(self, topic: int, i: int, cls: str, rng: random.Random, *,
                        room: int) -> int:
        """One background work (and, for a chapter, sometimes its book): the number made."""
        field_code = self.topic_field[topic]
        year = 2023 - int(73 * rng.random() ** 2)
        if cls == "web":
            year = rng.randint(2005, 2023)
        title = None
        if rng.random() < BACKGROUND_NEAR_TITLE_RATE:
            title = self.vocab.near_title(rng, topic)
        for _ in range(10):
            if title and title_key(title) not in self.cited_title_keys:
                break
            title = self.vocab.title(rng, topic, year=year)
        assert title is not None
        n_auth = {"article": rng.choice((1, 1, 2, 2, 2, 3, 3, 4, 5, 6, 8)),
                  "book": rng.choice((1, 1, 1, 2, 2, 3)), "report": rng.choice((0, 1, 2, 4)),
                  "chapter": rng.choice((1, 1, 2, 3)), "proceedings": rng.choice((1, 2, 3, 4)),
                  "web": 0}[cls]
        authors = self.names.people(rng, n_auth)
        if not authors and cls in ("report", "web"):
            authors = [{"literal": rng.choice(ORGANISATIONS)}]
        spec = Spec(key=f"bg:{topic}:{i}", role="background", cls=cls, topic=topic,
                    field_code=field_code, title="", authors=authors, year=year)
        spec.title, spec.subtitle = split_title(title)
        before = len(self.specs)
        self._fill_venue(spec, rng, host_allowed=room >= 2)
        self.specs.append(spec)
        return len(self.specs) - before

