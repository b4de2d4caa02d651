"""``Big2VectorEnv``: many games of Big Two stepped in one call, for high-throughput training.

| | |
|---|---|
| Import | `from envs.vector import Big2VectorEnv`, or `gymnasium.make_vec("envs:big2/Big2-v0")` |
| Conventions | gymnasium `VectorEnv`: batched `reset`, `step`, `close`; autoreset `SAME_STEP` |
| Actions | `(num_envs,)` integers of the codec (`catalog`: 17,859 under STANDARD; `hand`: 1,695) |
| Observations | `{"observation": (num_envs, D) float32[, "critic": (num_envs, C) float32]}` |
| Legal actions | `info["legal"]` `(num_envs, K)` int32, or `action_masks()` `(num_envs, n)` int8 |

``Big2VectorEnv(num_envs, observer="simple", actions="catalog", rules="standard",
opponents=None, reward="score", seed=None, critic_observer=None, move_features=None,
autoreset_mode="SameStep", opponent_draw="seat", copy=True)``.
The games run in a compiled engine (:mod:`envs.engine`) that the tests check move by
move against :mod:`big2.game`. A game seats ``rules.players`` (2, 3 or 4; ``P`` below):
four under most presets, three under ``three-player``, two under ``two-player``.

**Buffers.** Everything ``reset`` and ``step`` return lives in arrays made once, with
the env (:mod:`envs.outputs`), and each step writes only the rows
that held or hold a decision. With ``copy=True`` (the default, as gymnasium's
``SyncVectorEnv``) the caller gets copies, which are its own to keep and change. With
``copy=False`` it gets the buffers themselves, which the next ``step`` or ``reset``
overwrites: for a loop that reads each step before the next (a trainer that copies what
it stores, a benchmark); ``python -m bench.vector`` shows what the copies cost.

**Who acts: one seat per game.** With ``opponents`` (a list of agent specs such as
``"random"``, ``"greedy"``, ``"heuristic"``, :class:`BatchPolicy` objects, or pools:
lists of them, or a :class:`Pool`, whose draw weights the trainer may change between
steps (:mod:`envs.pools`); a pool seats one member drawn for each opponent seat of each
game, ``random`` while empty), each of the ``num_envs`` games has one learner seat,
rotating over the games of a slot (game j of a slot: seat j mod P), and P - 1 opponents
drawn from the list for every game: each seat on its own (``opponent_draw="seat"``), or
one draw for all of them (``"game"``: all of a kind, as the arena's tables). Each entry
is drawn alike, so an entry listed twice is drawn twice as often. The opponents move
inside ``step`` until it is the learner's turn again or the game ends, and the learner
receives every reward that lands meanwhile.
``info["seat"]`` is the learner's seat in the game now in the slot.

**Who acts: every seat.** With ``opponents=None`` the caller plays all P seats, one
agent per seat: ``num_envs`` (a multiple of P) counts *agents*, agent ``k`` is seat
``k % P`` of game ``k // P``, and every agent is a sub-environment with its own
observation, reward and episode (its game, from its seat).
Each ``step`` advances every game by one decision of the seat whose turn it is:
``info["acting"]`` marks those agents, only their entries of the action array are read
(the others' are ignored), and only their rows are filled: the other agents, who have
nothing to decide, get zero observations and empty legal rows (encoding every seat's view
of every game would halve the env's speed for rows nobody reads; a seat's view at the end
of its game is in ``final_obs``). Every seat's reward
lands in its own entry, so each game's rewards of a zero-sum ``reward`` sum to zero and
an agent's return is its own final reward; gymnasium's ``RecordEpisodeStatistics``
reports each seat's outcome.

**Who acts: a table drawn for each game.** With :data:`SELF_ALL` (``"self-all"``) in
``opponents`` and ``opponent_draw="game"``, self-play and opponent tables mix in one
env: agents are laid out as when every seat plays (``num_envs`` a multiple of P, agent
``k`` seat ``k % P`` of game ``k // P``, ``info["acting"]``), and each new game draws its
table from the list, every entry alike (``[SELF_ALL, SELF_ALL, "heuristic"]``: two
thirds self-play). :data:`SELF_ALL` seats the caller at every seat, each credited
with its own final reward as above; any other entry seats the caller at one seat (game
j of a slot: seat j mod P, counting every game the slot has played) and that entry at
the others, who move inside ``step``; a pool seats one member drawn for the
table, copies of it at every other seat. The rows of seats the caller does not play in a game are
never acting: empty legal rows, zero observations and rewards, and no ``final_obs`` or
``final_info`` at its end, while their ``terminated`` follows the game's as every row's
does; a trainer keeps a row's transitions where it was acting and counts its episodes
where ``info["_final_info"]`` is set, and ignores the rest. ``info["table"]`` is the
index in ``opponents`` of the game's draw and ``info["member"]`` the pool member drawn
for it (-1: none), on each of the game's rows; ``final_info`` holds both for a
finished game's credited rows, so a trainer can credit a result to the snapshot that
sat at the table (and set the pool's weights from it). With every opponent ``random``,
``greedy`` or ``heuristic`` the opponents' rounds stay compiled.

>>> import numpy as np
>>> from envs.vector import SELF_ALL, Big2VectorEnv
>>> env = Big2VectorEnv(16, opponents=[SELF_ALL, "heuristic"], opponent_draw="game", seed=0)
>>> _, info = env.reset()
>>> info["table"][::4].tolist()  # each game's draw: 0 self-play, 1 three heuristics
[0, 1, 1, 0]
>>> np.flatnonzero(info["acting"]).tolist()  # the caller's seat to act, in each game
[0, 4, 8, 15]

**Observations and legal actions.** ``"observation"`` is the observer's vector of the
agent's view (seat-relative); ``"critic"`` (with ``critic_observer``, e.g. ``"oracle"``,
which sees every hand) is that observer's vector of the same seat, for centralised
critics, never for the actor. Both have fixed widths and
``observation_space`` declares them (it is built on first use: its bounds take memory
in proportion to ``num_envs``).
The legal actions are in ``info["legal"]`` (``num_envs``, K): each agent's legal action
ids first, in the order of :meth:`big2.game.Game.legal_moves`, padded with -1; K is the
largest legal count in the batch, so it varies from step to step and no legal move is
ever dropped (a fixed width would be 2,380 wide to hold every position). With
``move_features`` (:mod:`observers.moves`: ``PLAN``, ``REPLIES``, or one's own
``MoveFeatures``), ``info["features"]`` (``num_envs``, K, F) holds
``move_features(view, legal_moves)``, one row per legal action, aligned with
``info["legal"]``: computed for every game in one compiled call for those of
:mod:`observers.moves`, picked by type as the observers' kernels are
(:mod:`envs.batch_moves`), and one view at a time for any other. :meth:`action_masks`
gives the full-width int8 masks and :meth:`sample_legal` one legal action per agent.
Every info array has its boolean ``_key`` mask, as gymnasium lays them out.

**Rewards and the end of a game.** An agent's reward is zero until its game ends (under
``"shaped"``, each of its plays also earns its size / 5 at once), then its final reward
(``"score"``, ``"score_normalized"``, ``"win"`` or ``"shaped"``, as in the AEC env).
Autoreset is ``SAME_STEP`` by default: the returned observation of a finished game is
already the first decision of its next game, and the finished game is in
``info["final_obs"]`` (an object array: each ended agent's final observation dict, None
elsewhere) and ``info["final_info"]`` (``"winner"``: the winning seat, ``"seat"``: the
agent's seat in that game, ``"final_rewards"``: every seat's final reward by absolute
seat; with tables drawn, ``"table"`` and ``"member"``), with the masks
``info["_final_obs"]`` and ``info["_final_info"]``. So
``final_info["winner"] == final_info["seat"]`` says whether the agent won, while
``info["seat"]`` already describes the next game.

``autoreset_mode="NextStep"`` (gymnasium's ``AutoresetMode.NEXT_STEP``) keeps a finished
game in its slot for one step instead: the terminating step returns the agents' final
observations, empty legal rows, and ``info["winner"]`` and ``info["final_rewards"]``
(masked to the ended agents) beside ``info["seat"]`` (and ``info["table"]``,
``info["member"]``), which still describe that game;
the next step deals the new game there, ignores those agents' actions and rewards them
nothing. Why ``SAME_STEP`` is the default: a finished game has nothing left to decide, so
``NEXT_STEP`` spends one step per game on an ignored action over an empty legal list.
Why ``NEXT_STEP`` is offered: gymnasium's vector observation wrappers
(``FlattenObservation``, ``FilterObservation``, ``NormalizeObservation``,
``TransformObservation``, ...) accept only ``NEXT_STEP`` (their base class refuses
``SAME_STEP`` in gymnasium 1.4), so an env meant for them is made with it. Reward and
statistics wrappers (``RecordEpisodeStatistics``, ``NormalizeReward``) accept both.

**Seeding.** ``reset(seed=s)`` deals game i exactly as ``raw_env(...).reset(seed=s + i)``
does; each game keeps its own ``random.Random(s + i)``, so its later deals are those of
that raw env's later ``reset()`` calls. The generators' states live in arrays and deal
in the compiled engine (:mod:`envs.kernels.deals`: CPython's Mersenne Twister and
``shuffle``, bit for bit), so a finished game costs no Python. Any integer seeds,
numpy's and negative ones included, as in ``raw_env`` (Python's ``random`` seeds ``-s``
as ``s``). Opponent draws and :meth:`sample_legal` use generators spawned from one
``numpy.random.SeedSequence`` of ``(s, num_envs)``. ``reset()`` without a seed continues them all.

**Bad input.** Stepping before ``reset`` or after ``close`` raises ``RuntimeError`` saying
so. An action array of the wrong shape or dtype, or an out-of-range or illegal action of
an acting agent, raises :class:`ValueError` naming the agent, the action and its legal
count, and no game advances. An ``opponents`` value that is not a list of agent specs,
batch policies, pools and :data:`SELF_ALL` (a bare string, ``None`` in the list), or
:data:`SELF_ALL` with ``opponent_draw="seat"`` (it draws seats, not tables) is refused at
construction, and a :class:`Pool`'s weights that are not one finite, non-negative number
per member, not all zero, are refused and the pool keeps the weights it had.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import observers
from big2.board import seed_int
from big2.rules import Rules
from big2.rules import get as get_rules
from envs import codecs
from envs.decisions import BatchPolicy as BatchPolicy  # its home; the env's name for it too
from envs.decisions import DecisionMaker, Legal
from envs.engine import Games, Tables
from envs.kernels.deals import Generators
from envs.kernels.turns import find_actions
from envs.opponents import SELF_ALL as SELF_ALL  # the env's name for it too
from envs.opponents import Entry, Opponents, check_draw, check_mix, is_self_all
from envs.outputs import Outputs
from envs.pools import Pool as Pool  # the env's name for it too
from envs.renamed import renamed
from envs.rewards import REWARDS, final_reward_rows
from observers.base import Observer
from observers.moves import MoveFeatures


class Big2VectorEnv(gym.vector.VectorEnv):
    """Many games of Big Two in one call; see the module docstring."""

    @renamed(legal_features="move_features")
    def __init__(
        self,
        num_envs: int,
        observer: Observer | str = "simple",
        actions: codecs.CatalogCodec | codecs.HandCodec | str = "catalog",
        rules: Rules | str = "standard",
        opponents: Sequence[Entry] | None = None,
        reward: str = "score",
        seed: int | None = None,
        critic_observer: Observer | str | None = None,
        move_features: MoveFeatures | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        opponent_draw: str = "seat",
        copy: bool = True,
    ) -> None:
        mode = AutoresetMode(autoreset_mode) if isinstance(autoreset_mode, str) else autoreset_mode
        if mode not in AUTORESET_MODES:
            raise ValueError(f"autoreset_mode must be one of {AUTORESET_MODES}, got {mode!r}")
        self.metadata = {"autoreset_mode": mode}
        self.same_step = mode == AutoresetMode.SAME_STEP
        if opponents is not None:
            check_mix(opponents)
        self.tables = opponents is not None and any(is_self_all(m) for m in opponents)
        self.all_seats = opponents is None or self.tables  # every seat is an agent
        self.rules = get_rules(rules)
        self.players = self.rules.players
        self.seats_per_game = self.players if self.all_seats else 1
        _check_size(num_envs, self.seats_per_game)
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; expected one of {REWARDS}")
        check_draw(opponent_draw)
        self.num_envs, self.reward_mode = num_envs, reward
        self.num_games = num_envs // self.seats_per_game
        self.observer = self._observer(observer)
        self.codec = codecs.for_rules(actions, self.rules)
        critic = None if critic_observer is None else self._observer(critic_observer)
        self.games = Games(self.num_games, Tables.of(self.rules))
        self.maker = DecisionMaker(self.games, self.observer, self.codec, critic, move_features)
        self._declare_spaces()
        self._seed(seed)
        self.opponents = None
        if opponents is not None:
            self.opponents = Opponents(self.maker, opponents, self._opponent_rng, opponent_draw)
        self.copy = bool(copy)
        self.out = Outputs(num_envs, self.observer.size, self._critic_width, self.players)
        self._games = np.arange(self.num_games)
        if self.all_seats:
            self.out.seat[:] = np.tile(np.arange(self.players), self.num_games)
        self._legal: Legal | None = None  # the acting seats' legal lists; None before reset
        self._waiting = np.zeros(self.num_games, np.bool_)  # NEXT_STEP: over, reset next step
        self._masks: np.ndarray | None = None  # action_masks' buffer (copy=False)
        self._masked: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64),) * 2  # its ones
        self.closed = False

    def _observer(self, observer: Observer | str) -> Observer:
        return observers.for_rules(observer, self.rules)

    def _declare_spaces(self) -> None:
        self.single_action_space = gym.spaces.Discrete(self.codec.n)
        self.action_space = gym.spaces.MultiDiscrete(np.full(self.num_envs, self.codec.n))
        spaces: dict[str, gym.Space[Any]] = {"observation": self.observer.space}
        self._critic_width: int | None = None
        if self.maker.critic_observer is not None:
            self._critic_width = self.maker.critic_observer.size
            spaces["critic"] = gym.spaces.Box(0.0, 1.0, (self._critic_width,), np.float32)
        self.single_observation_space = gym.spaces.Dict(spaces)
        self._batched_space: gym.spaces.Dict | None = None

    @property
    def observation_space(self) -> gym.spaces.Dict:  # type: ignore[override]
        """The batched space, built on first use (see the module docstring)."""
        if self._batched_space is None:
            space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
            assert isinstance(space, gym.spaces.Dict)
            self._batched_space = space
        return self._batched_space

    def _seed(self, seed: Any) -> None:
        base = random.randrange(2**32) if seed is None else seed_int(seed)
        self._dealers = Generators.seeded([base + i for i in range(self.num_games)])
        root = np.random.SeedSequence([abs(base), self.num_envs, int(base < 0)])
        opponent_seq, sample_seq = root.spawn(2)
        self._opponent_rng: np.random.Generator
        if hasattr(self, "_opponent_rng"):  # reseed in place: the opponents hold it
            self._opponent_rng.bit_generator.state = np.random.PCG64(opponent_seq).state
        else:
            self._opponent_rng = np.random.default_rng(opponent_seq)
        self._sample_rng = np.random.default_rng(sample_seq)
        self._games_played = np.zeros(self.num_games, np.int64)

    # ------------------------------------------------------------------ API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal a new game in every slot (see Seeding in the module docstring)."""
        self._check_open()
        if seed is not None:
            self._seed(seed)  # also restarts each game's learner rotation at seat 0
        self._restart(np.ones(self.num_games, np.bool_))
        self._waiting[:] = False
        self.out.finals.clear()
        return self._returned(*self._observe({}, self._waiting))

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play the acting agents' actions; see the module docstring."""
        waiting = self._waiting  # NEXT_STEP: games that ended last step restart now
        slots = np.flatnonzero(~waiting) if waiting.any() else self._games
        moves = self._moves_of(actions, slots)  # raises before anything changes
        games, out = self.games, self.out
        rewards = out.rewards
        rewards[:] = 0
        if self.reward_mode == "shaped":
            sizes = np.where(moves >= 0, games.tables.size[np.maximum(moves, 0)] / 5, 0)
            rewards[self._agent(slots, games.turn[slots])] += sizes
        games.apply(slots, moves)
        if self.opponents is not None:
            self.opponents.advance()
        ended = (games.winner >= 0) & ~waiting
        out.finals.clear()
        extra = self._finish(np.flatnonzero(ended), rewards) if ended.any() else {}
        self._games_played += ended
        self._restart(ended if self.same_step else waiting)
        self._waiting = np.zeros_like(ended) if self.same_step else ended
        out.terminated.reshape(self.num_games, self.seats_per_game)[:] = ended[:, None]
        obs, info = self._returned(*self._observe(extra, self._waiting))
        if self.copy:
            return obs, rewards.copy(), out.terminated.copy(), out.truncated.copy(), info
        return obs, rewards, out.terminated, out.truncated, info

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` int8: the legal actions of each agent (all zero for an
        agent that is not to act). With ``copy=False`` the same array is rewritten by each
        call."""
        legal = self._current_legal()
        if self.copy or self._masks is None:
            out = np.zeros((self.num_envs, self.codec.n), np.int8)
            if not self.copy:
                self._masks = out
        else:
            out = self._masks
            out[self._masked] = 0
        rows, cols = np.nonzero(legal >= 0)
        cols = legal[rows, cols]
        out[rows, cols] = 1
        self._masked = (rows, cols)
        return out

    def sample_legal(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """``(num_envs,)``: a uniformly random legal action of each agent (the pass action
        for an agent that is not to act, whose entry ``step`` ignores)."""
        legal, rng = self._require_legal(), rng or self._sample_rng
        live = np.flatnonzero(legal.counts) if self._waiting.any() else self._games
        picks = rng.integers(legal.counts[live])
        out = np.full(self.num_envs, self.codec.pass_action, np.int64)
        out[self._agent(live, self.games.turn[live])] = legal.actions[live, picks]
        return out

    def close(self, **kwargs: Any) -> None:
        """Nothing to release (no processes or files); the env refuses to step afterwards."""
        self.closed = True

    # ------------------------------------------------------------------ internals

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("this Big2VectorEnv is closed; make a new one")

    def _current_legal(self) -> np.ndarray:
        self._require_legal()
        return self.out.legal_view()

    def _require_legal(self) -> Legal:
        self._check_open()
        if self._legal is None:
            raise RuntimeError("call reset() before stepping or asking for legal actions")
        return self._legal

    def _agent(self, slots: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The agent index of ``seats`` in games ``slots``."""
        if self.all_seats:
            return np.asarray(slots * self.players + seats, np.int64)
        return np.asarray(slots, np.int64)

    def _moves_of(self, actions: Any, slots: np.ndarray) -> np.ndarray:
        """The catalog move of the acting agent of each game of ``slots``, after checking all."""
        legal = self._require_legal()
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), got "
                f"{arr.dtype} {arr.shape}"
            )
        acting = self._agent(slots, self.games.turn[slots])
        chosen = arr[acting].astype(np.int64)
        positions = np.empty(len(slots), np.int64)
        every = slots is self._games
        actions_of = legal.actions if every else legal.actions[slots]
        counts = legal.counts if every else legal.counts[slots]
        bad = find_actions(chosen, actions_of, counts, positions)
        if bad >= 0:
            n, action = int(counts[bad]), int(chosen[bad])
            why = "out of range" if not 0 <= action < self.codec.n else "not legal"
            raise ValueError(
                f"agent {acting[bad]}: action {action} is {why} (actions 0..{self.codec.n - 1}); "
                f"{n} legal actions there: {actions_of[bad, : min(n, 20)].tolist()}; "
                f"no game was advanced"
            )
        moves: np.ndarray = legal.moves[slots, positions].astype(np.int64)
        return moves

    def _finish(self, ended: np.ndarray, rewards: np.ndarray) -> dict[str, Any]:
        """Credit the final rewards of the games in ``ended``; their final records."""
        winner = self.games.winner[ended]
        scores = self.games.final_scores(ended)
        final = final_reward_rows(scores, winner, self.rules, self.reward_mode).astype(np.float32)
        game, seats = self._seated(ended)  # each agent's game (index in ended) and seat
        slots = ended[game]
        agents = self._agent(slots, seats)
        rewards[agents] += final[game, seats]
        finals = self.out.finals
        finals.put(agents, winner[game], seats, final[game])
        mask = finals.mask
        results = {
            "winner": finals.winner,
            "final_rewards": finals.rewards,
            "_winner": mask,
            "_final_rewards": mask,
        }
        if not self.same_step:  # the finished game stays in its slot until the next step
            return results
        self.maker.encode_into(slots, seats, agents, finals.observation, finals.critic)
        finals.with_observations()
        final_info = results | {"seat": finals.seat, "_seat": mask}
        if self.opponents is not None and self.tables:  # what sat at the finished tables
            table, member = self.opponents.table[slots], self.opponents.table_member(slots)
            finals.put_table(agents, table, member)
            final_info |= {"table": finals.table, "member": finals.member}
            final_info |= {"_table": mask, "_member": mask}
        return {
            "final_obs": finals.obs,
            "_final_obs": mask,
            "final_info": final_info,
            "_final_info": mask,
        }

    def _seated(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(game, seat) of every agent the caller plays in ``slots`` (game: an index in
        ``slots``): each seat, each game's learner, or the seats of kind -1 (tables)."""
        if self.opponents is None:
            players = self.players
            games = np.repeat(np.arange(len(slots)), players)
            return games, np.tile(np.arange(players), len(slots))
        if not self.tables:
            return np.arange(len(slots)), self.opponents.learner[slots]
        game, seats = np.nonzero(self.opponents.kind[slots] < 0)
        return game, seats

    def _restart(self, ended: np.ndarray) -> None:
        """Deal the next game in the slots of ``ended`` (one compiled call, each slot's own
        generator); opponents move up to the learner."""
        slots = np.flatnonzero(ended)
        if not len(slots):
            return
        self.games.deal_next(slots, self._dealers)
        if self.opponents is not None:
            self.opponents.start(slots, self._games_played[slots] % self.players)
            self.opponents.advance()

    def _observe(
        self, extra: dict[str, Any], over: np.ndarray
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Write every agent's observation and info into the buffers (``extra``: the final
        records; ``over``: games that ended and wait for the next step, NEXT_STEP only)."""
        out, games, maker = self.out, self.games, self.maker
        out.clear()
        self._legal = legal = maker.legal(self._games)  # a game that is over has none
        ongoing = over.any()
        live = np.flatnonzero(~over) if ongoing else self._games
        seats = games.turn[live]
        rows = self._agent(live, seats)
        maker.encode_into(live, seats, rows, out.observation, out.critic)
        live_legal = legal.take(live) if ongoing else legal
        out.put_legal(rows, live_legal.actions)
        if maker.move_features is not None:
            out.put_features(rows, maker.features(live, live_legal))
        if ongoing:  # their agents see the end of their game
            ended = np.flatnonzero(over)
            game, seated = self._seated(ended)
            slots = ended[game]
            agents = self._agent(slots, seated)
            maker.encode_into(slots, seated, agents, out.observation, out.critic)
            out.written(agents)
        obs = {"observation": out.observation}
        if out.critic is not None:
            obs["critic"] = out.critic
        if self.opponents is not None and not self.all_seats:
            out.seat[:] = self.opponents.learner
        info: dict[str, Any] = {"legal": out.legal_view(), "seat": out.seat}
        if maker.move_features is not None:
            info["features"] = out.features_view()
        if self.all_seats:
            out.acting[rows] = True
            info["acting"] = out.acting
        if self.opponents is not None and self.tables:
            out.put_tables(self.opponents.table, self.opponents.table_member(self._games))
            info |= {"table": out.table, "member": out.member}
        info |= {f"_{k}": out.everyone for k in list(info)}
        return obs, info | extra

    def _returned(
        self, obs: dict[str, np.ndarray], info: dict[str, Any]
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """What the caller is given: the buffers themselves (``copy=False``) or copies."""
        if not self.copy:
            return obs, info
        return _copied(obs), _copied(info)


AUTORESET_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)


def _copied(value: Any) -> Any:
    """A copy of the env's output ``value`` (dicts and arrays, object arrays of dicts
    included) that the next step cannot change."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, np.ndarray) and value.dtype == object:
        out = np.full(value.shape, None, dtype=object)
        for i in np.flatnonzero(value != None).tolist():  # noqa: E711 (element-wise)
            out[i] = _copied(value[i])
        return out
    return value.copy() if isinstance(value, np.ndarray) else value


def _check_size(num_envs: Any, seats: int) -> None:
    if not isinstance(num_envs, int | np.integer) or isinstance(num_envs, bool) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
    if num_envs % seats:
        raise ValueError(
            f"num_envs counts agents when every seat plays (opponents=None, or {SELF_ALL!r} "
            f"among them): a multiple of {seats} (games x seats), got {num_envs}"
        )
