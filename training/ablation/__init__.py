"""Observer ablation studies: ``python -m training.ablation`` (see :mod:`training.ablation.cli`).

- :mod:`~training.ablation.study`: settings (observers x ``--grid`` values), seeds, cells.
- :mod:`~training.ablation.cell`: one cell, trained and evaluated in its own process.
- :mod:`~training.ablation.runner`: cells in parallel; resume, failure isolation.
- :mod:`~training.ablation.stats`: per cell, per setting and paired statistics.
- :mod:`~training.ablation.report`: ``results.csv``, ``summary.md``, ``curves.png``,
  ``final.png``.
"""
