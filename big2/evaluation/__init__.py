"""Evaluation: duplicate-deal arena results with confidence intervals."""

from big2.evaluation.arena import AgentResult, ArenaResult, evaluate, play_game

__all__ = ["AgentResult", "ArenaResult", "evaluate", "play_game"]
