"""The review judge's pure parts (ReviewBench and ReviewGrounder, spec in docs/claims.md).

- :mod:`.models`: the values (stances, critique types, judged comments);
- :mod:`.validate`: the post-validation rules applied to every model answer;
- :mod:`.metrics`: per-paper-and-source metrics, averaged over papers;
- :mod:`.statistics`: bootstrap intervals, Wilcoxon, Holm, Cohen's d and kappa;
- :mod:`.report`: the report dict and the Markdown table in ReviewBench's layout;
- :mod:`.published`: ReviewBench's published means, read from the shared data;
- :mod:`.rubric`: ReviewGrounder's rubric scores and rating/decision errors.

The judge that runs them (model calls through a :class:`~verifier.llm.interfaces.ChatModel`):

- :mod:`.prompts`: the versioned prompt files and the call layout (paper first);
- :mod:`.steps`: the four steps, two attempts each, JSON repaired, validated;
- :mod:`.pipeline`: :class:`~.pipeline.Judge`, one paper and its sources;
- :mod:`.inputs`: papers, other sources' comments, each paper's references;
- :mod:`.run`: :class:`~.run.JudgeRun`, judging and reference checks on one loop;
- :mod:`.lines`: the output lines, and the judgements read back for the report;
- :mod:`.rubric_run`: the rubric evaluation run and its offline baseline.
"""
