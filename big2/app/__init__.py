"""The people-facing side: the ``big2`` command line and the terminal game."""
