"""Evaluation: duplicate-deal arena results with confidence intervals."""

from big2.evaluation.arena import AgentResult, ArenaResult, deal_results, evaluate, play_game

__all__ = ["AgentResult", "ArenaResult", "deal_results", "evaluate", "play_game"]
