"""PPO on Big2VectorEnv in one file, CleanRL style: ``python examples/cleanrl_ppo.py``.

Reads top to bottom: arguments, env, agent, rollout, advantages, update, evaluation.
``--mode one-seat`` trains one seat per game against ``--opponents`` (random by
default); ``--mode all-seats`` plays every seat of every game with the same network
(self-play), the env rewarding each seat in its own entry. The network scores only the
legal actions the env lists in ``info["legal"]``: a state embedding dotted with an
embedding of each legal action id, so its cost grows with the legal count (about 10),
not with the 17,859 actions of the catalog codec. At the end the greedy policy plays
``--eval-deals`` duplicate deals against three random players in the arena.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, fields

import numpy as np
import torch
from torch import nn

from big2.evaluation import evaluate
from envs.decisions import PAD, pad_rows
from envs.policy_agent import PolicyAgent
from envs.vector import Big2VectorEnv


@dataclass
class Args:
    mode: str = "one-seat"  # one-seat (against --opponents) or all-seats (self-play)
    opponents: str = "random"  # comma-separated agent specs, for one-seat
    observer: str = "card_counting"  # what the network sees
    games: int = 32  # games stepped together
    rollout: int = 64  # env steps per rollout
    total_steps: int = 1_000_000  # learner decisions to train on
    lr: float = 3e-4  # Adam learning rate
    gamma: float = 0.99  # discount per decision of the seat
    gae_lambda: float = 0.95  # GAE's lambda
    epochs: int = 4  # passes over each rollout
    minibatches: int = 4  # minibatches per pass
    clip: float = 0.2  # PPO's ratio clip
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    seed: int = 1  # seeds the env, torch and the sampling
    eval_deals: int = 200  # duplicate deals against three random players
    eval_seed: int = 2026  # seed of those deals (never trained on)


def parse(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in fields(Args):
        parser.add_argument(
            f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default
        )
    return Args(**vars(parser.parse_args(argv)))


class Agent(nn.Module):
    """An MLP state embedding, scored against an embedding of each legal action id."""

    def __init__(self, obs_size: int, n_actions: int, hidden: int = 256, width: int = 64) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, width))
        self.actions = nn.Embedding(n_actions, width)
        self.value = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def logits(self, obs: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """(B, K) scores of the legal positions; padding at -1e9."""
        scores = (self.actions(legal.clamp(min=0)) * self.body(obs)[:, None]).sum(-1)
        return scores.masked_fill(legal == PAD, -1e9)


def main(argv: list[str] | None = None) -> float:
    args = parse(argv)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    all_seats = args.mode == "all-seats"
    opponents = None if all_seats else args.opponents.split(",")
    env = Big2VectorEnv(args.games * (4 if all_seats else 1), args.observer, "catalog",
                        opponents=opponents, reward="score_normalized", seed=args.seed)  # fmt: skip
    agent = Agent(env.observer.size, env.codec.n)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr)
    obs, info = env.reset(seed=args.seed)
    decisions, start, wins, ended = 0, time.time(), 0, 0
    while decisions < args.total_steps:
        # ---- rollout: every step, the acting rows decide; rewards land on every row
        steps = []
        for _ in range(args.rollout):
            acting = np.flatnonzero(info["acting"]) if all_seats else np.arange(env.num_envs)
            o = torch.as_tensor(obs["observation"][acting])
            legal = torch.as_tensor(info["legal"][acting].astype(np.int64))
            with torch.no_grad():
                dist = torch.distributions.Categorical(logits=agent.logits(o, legal))
                pos = dist.sample()
                value = agent.value(o).squeeze(-1)
            actions = np.zeros(env.num_envs, np.int64)
            actions[acting] = info["legal"][acting, pos.numpy()]
            obs, reward, terminated, _, info = env.step(actions)
            steps.append((acting, o, legal, pos, dist.log_prob(pos), value, reward, terminated))
            decisions += len(acting)
            if "final_info" in info:
                final, done = info["final_info"], info["_final_info"]
                wins += int((final["winner"][done] == final["seat"][done]).sum())
                ended += int(done.sum())
        # ---- advantages: GAE over each row's own decisions, rewards summed in between
        adv = [torch.zeros(len(s[0])) for s in steps]
        next_value, last_gae, pending = (np.zeros(env.num_envs) for _ in range(3))
        for t in reversed(range(len(steps))):
            acting, _, _, _, _, value, reward, done = steps[t]
            pending = np.where(done, reward, pending + reward)  # a new game starts after t
            next_value, last_gae = np.where(done, 0, next_value), np.where(done, 0, last_gae)
            delta = pending[acting] + args.gamma * next_value[acting] - value.numpy()
            gae = delta + args.gamma * args.gae_lambda * last_gae[acting]
            adv[t] = torch.as_tensor(gae, dtype=torch.float32)
            last_gae[acting], next_value[acting], pending[acting] = gae, value.numpy(), 0
        # (a row whose next decision lies past the rollout bootstraps from 0: a small bias)
        width = max(s[2].shape[1] for s in steps)
        b_obs = torch.cat([s[1] for s in steps])
        b_legal = torch.cat([torch.as_tensor(pad_rows(s[2].numpy(), width, PAD)) for s in steps])
        b_pos, b_logp = torch.cat([s[3] for s in steps]), torch.cat([s[4] for s in steps])
        b_adv = torch.cat(adv)
        b_ret = b_adv + torch.cat([s[5] for s in steps])
        # ---- update: clipped surrogate, value loss, entropy bonus
        order, size = np.arange(len(b_obs)), max(1, len(b_obs) // args.minibatches)
        for _ in range(args.epochs):
            rng.shuffle(order)
            for first in range(0, len(order), size):
                mb = torch.as_tensor(order[first : first + size])
                dist = torch.distributions.Categorical(logits=agent.logits(b_obs[mb], b_legal[mb]))
                ratio = (dist.log_prob(b_pos[mb]) - b_logp[mb]).exp()
                a = b_adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = ((agent.value(b_obs[mb]).squeeze(-1) - b_ret[mb]) ** 2).mean()
                loss = pg + args.vf_coef * v_loss - args.ent_coef * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        rate = decisions / (time.time() - start)
        print(f"decisions {decisions:>9,}  games {ended:>6,}  win rate {wins / max(ended, 1):.3f}"
              f"  loss {loss.item():+.3f}  {rate:,.0f} decisions/s", flush=True)  # fmt: skip
        wins = ended = 0
    return evaluate_against_random(agent, env, args)


def evaluate_against_random(agent: Agent, env: Big2VectorEnv, args: Args) -> float:
    """The greedy policy's win share against three random players on duplicate deals."""

    def logits(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        legal = np.flatnonzero(mask)
        with torch.no_grad():
            scores = agent.logits(torch.as_tensor(observation[None]), torch.as_tensor(legal[None]))
        out = np.full(mask.shape, -1e9, np.float32)
        out[legal] = scores[0].numpy()
        return out

    player = PolicyAgent(logits, env.observer, env.codec, env.rules, name="cleanrl-ppo")
    result = evaluate([player, "random", "random", "random"], args.eval_deals, args.eval_seed)
    share = result.agents[0].win_share
    print(f"win share vs three random players: {share:.3f} ({args.eval_deals} duplicate deals "
          f"of seed {args.eval_seed}; parity 0.25)")  # fmt: skip
    return share


if __name__ == "__main__":
    main()
