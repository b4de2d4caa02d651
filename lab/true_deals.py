"""What could search gain from reading the other seats? ``python -m lab.true_deals``.

An upper bound, not an agent: ``trained+search`` whose every sampled deal is the true
deal (it is shown the whole game, as a cheat), against three heuristic players on the
validation deals, beside the same search on uniform deals (docs/search.md).

Found (2026-11-25, docs/search.md, "What it assumes"): dealt the true hands, the search
won 0.603 [0.556, 0.649] against three heuristic players where uniform deals won 0.345
[0.302, 0.388] (100 validation deals of seed 12345): the search's limit is what it does
not know, not its rollouts. Deals drawn to agree with the other seats' moves (commit
8d637e1) came nowhere near the bound (0.361 and 0.345 against the uniform 0.349) and were
removed again.
"""

from __future__ import annotations

from big2.evaluation import evaluate
from big2.evaluation.stats import interval_text
from big2.game import Game, View
from big2.players import load_agent
from big2.players.search import SearchAgent
from training.cli import command


class TrueDeals(SearchAgent):
    """Search whose deals are all the game's true deal (it sees every hand)."""

    sees_every_hand = True

    def show(self, game: Game) -> None:
        self.game = game

    def sample(self, view: View, n: int) -> list[tuple[int, ...]]:
        deal = tuple(self.game.hand(s) | view.played[s] for s in range(4))
        return [deal] * n


def main() -> None:
    parser = command("python -m lab.true_deals", __doc__)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    base = load_agent("trained+search", rollouts="heuristic")  # as measured in docs/search.md
    assert isinstance(base, SearchAgent)
    agents = {
        "uniform deals": base,
        "true deals (cheat)": TrueDeals(base.prior, rollouts=base.rollouts, seed=0, name="true"),
    }
    for label, agent in agents.items():
        result = evaluate([agent, "heuristic", "heuristic", "heuristic"], args.deals, args.seed)
        seat = result.agents[0]
        interval = interval_text(seat.win_share_ci, args.deals)
        print(
            f"{label}: win share {seat.win_share:.3f} {interval} against three "
            f"heuristic players, {args.deals} deals of seed {args.seed}",
            flush=True,
        )


if __name__ == "__main__":
    main()
