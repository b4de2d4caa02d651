"""Evaluation: duplicate-deal arena results with confidence intervals."""

from big2.evaluation.arena import (
    AgentResult,
    ArenaResult,
    DealResult,
    deal_results,
    display_names,
    duplicate_board,
    evaluate,
    play_game,
    summarise,
)

__all__ = [
    "AgentResult",
    "ArenaResult",
    "DealResult",
    "deal_results",
    "display_names",
    "duplicate_board",
    "evaluate",
    "play_game",
    "summarise",
]
