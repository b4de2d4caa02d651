"""Observer ablation studies: ``python -m training.ablation`` (see :mod:`training.ablation.cli`).

- :mod:`~training.ablation.study`: settings (observers x ``--grid`` values), seeds, cells.
- :mod:`~training.ablation.cell`: one cell, trained and evaluated in its own process; an
  unfinished one continues its run by :func:`training.train.resume_or_start`.
- :mod:`~training.ablation.runner`: cells in parallel, each a child process
  (:mod:`training.processes`); resume, failure isolation.
- :mod:`~training.ablation.stats`: per cell, per setting and paired statistics.
- :mod:`~training.ablation.report`: ``results.csv``, ``summary.md``, ``curves.png``,
  ``final.png``.
"""
