"""Review data: papers with their human reviews, and reviews split into comments.

- :mod:`.models`: :class:`~.models.Paper`, :class:`~.models.Review`,
  :class:`~.models.Comment`, :class:`~.models.ItemError`;
- :mod:`.splitting`: a review text → comments (numbered and bulleted points, sections);
- :mod:`.elife`: the eLife sample's records and review formats;
- :mod:`.neurips`: the NeurIPS 2025 OpenReview records.
"""
