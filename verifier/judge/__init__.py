"""The review judge's pure parts (ReviewBench and ReviewGrounder, spec in docs/claims.md).

- :mod:`.models`: the values (stances, critique types, judged comments);
- :mod:`.validate`: the post-validation rules applied to every model answer;
- :mod:`.metrics`: per-paper-and-source metrics, averaged over papers;
- :mod:`.statistics`: bootstrap intervals, Wilcoxon, Holm, Cohen's d and kappa;
- :mod:`.report`: the report dict and the Markdown table in ReviewBench's layout;
- :mod:`.published`: ReviewBench's published means, read from the shared data;
- :mod:`.rubric`: ReviewGrounder's rubric scores and rating/decision errors.
"""
