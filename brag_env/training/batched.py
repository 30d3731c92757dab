"""Self-play on N tables stepped as arrays: one SB3 ``VecEnv`` over a batched engine.

``BatchedSelfPlayVecEnv`` is ``DummyVecEnv`` of ``VsPoolEnv`` (``brag_env.selfplay``) done with
arrays: env i is table i of a batched engine (``brag_env.put.batched``: heads-up Put;
``brag_env.brag.batched``: Brag sessions of any length at 2-8 seats); the learner holds one
seat per table, the opponents the others. Opponents are asked for the moves of all the tables
where it is their turn in one ``act_batch`` call per opponent spec (``agents.batch``): the Put
baselines vectorised, a snapshot as one forward pass for all its tables.

The same as ``VsPoolEnv``:

- seats rotate: table i's k-th episode puts the learner in seat ``(i + k) % num_players``;
- opponents are drawn per seat and episode from the same ``OpponentPool``;
- the learner is paid every reward of its seat, whoever's move caused it, at its next step;
  an episode that ends before its first decision is skipped;
- one difference: at a Brag table of three or more, a learner that folded has its result
  (``BatchedBrag.settled``: no cover, no B20 bonus to pay, and the session's last hand; or
  it takes no further part in the session, B16), so its episode ends at once, with the same
  reward, instead of after the opponents play the session out; the table starts a new
  session. The learner's episodes are unchanged; only the opponents' moves it would never
  see are skipped (they made 4-player rollouts wait for the longest hand of every table);
- in a Brag session of several hands the learner is paid each hand's chip change when that
  hand ends (as ``brag_v1``), and its episode is the session;
- ``episode="hand"`` (Put, as ``VsPoolEnv``): the learner's episode ends at the step after
  which its next decision is in a new hand (``hands_played`` moved on), so an episode's return
  is that hand's points; the match goes on, and the next episode starts at that decision
  (which is also the ended episode's ``terminal_observation``). Seats and opponents are drawn
  per match, as with ``"match"``;
- the same seed gives the same run (one generator for the pool draws and the agents' seeds,
  one for the deals). The random streams differ from ``DummyVecEnv``'s: same distribution,
  other deals.

Masks reach MaskablePPO through ``env_method("action_masks")``; ``add_snapshot`` (the one
pool call ``train.py`` makes) through ``env_method`` too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from brag_env.games import GAMES
from brag_env.selfplay import (
    EPISODES,
    MAX_SKIPPED_EPISODES,
    OpponentPool,
    is_model_spec,
    make_aec_env,
)
from brag_env.training.config import BATCHED_GAMES


def make_engine(game: str, env_config: Mapping[str, Any], num_tables: int, seed: int) -> Any:
    """The batched engine of a game (its spec's ``batched_engine``); an option it does not
    cover is a one-line ValueError."""
    spec = GAMES.get(game)
    if spec is None or spec.batched_engine is None:
        raise ValueError(
            f"vec_env: batched supports game {', '.join(BATCHED_GAMES)}, not {game!r}; "
            "use vec_env: dummy"
        )
    return spec.load("batched_engine")(env_config, num_tables, seed)


def _compiled_engine(unavailable: Callable[[], str | None], build: Callable[[], Any]) -> Any:
    """``build()``, once ``unavailable()`` says the engine's compiled kernels load here (asked
    first, so that no Numba import fails on the way); else a one-line ValueError."""
    reason = unavailable()
    if reason is not None:
        raise ValueError(f"vec_env: batched: {reason}; or use vec_env: dummy")
    return build()


def make_put_engine(env_config: Mapping[str, Any], num_tables: int, seed: int) -> Any:
    """``BatchedPut`` over ``num_tables`` matches of the table options ``env_config``, its
    kernels loaded (``warm_up``), as ``BatchedBrag``'s constructor loads its own."""
    from brag_env.put.batched_options import batched_put_unavailable
    from brag_env.put.rules import PutConfig

    def build() -> Any:
        from brag_env.put.batched import BatchedPut

        engine = BatchedPut(num_tables, PutConfig.from_dict(dict(env_config)), seed=seed)
        warm_up(engine)
        return engine

    return _compiled_engine(batched_put_unavailable, build)


def warm_up(engine: Any) -> None:
    """Load an engine's compiled masks, step and observation once, on no table: no draw, no
    state changed. ``BatchedBrag``'s constructor already calls its kernels; ``BatchedPut``'s
    first kernel call would otherwise come at the first ``reset()``, inside ``learn()``, and pay
    Numba's one-time start in the process there (about 0.3-0.4 s: its registries import
    ``scipy.linalg``), besides loading each kernel from the cache."""
    none = np.zeros(0, np.int64)
    engine.legal_mask(none)
    engine.step(none, none)
    engine.observe(none, none)


def make_brag_engine(env_config: Mapping[str, Any], num_tables: int, seed: int) -> Any:
    """``BatchedBrag`` over ``num_tables`` sessions of the table options ``env_config``."""
    from brag_env.brag.batched_options import batched_brag_unavailable
    from brag_env.brag.rules import BragConfig

    def build() -> Any:
        from brag_env.brag.batched import BatchedBrag

        return BatchedBrag(num_tables, BragConfig.from_dict(dict(env_config)), seed=seed)

    return _compiled_engine(batched_brag_unavailable, build)


class BatchedSelfPlayVecEnv(VecEnv):
    """N self-play tables of one game on a batched engine (see the module docstring)."""

    def __init__(
        self,
        game: str,
        env_config: Mapping[str, Any] | None,
        num_envs: int,
        opponents: Sequence[str] = ("random",),
        snapshots: Sequence[str] = (),
        snapshot_prob: float = 0.5,
        max_snapshots: int = 5,
        reward_scale: float = 1.0,
        seed: int | None = None,
        episode: str = "match",
    ) -> None:
        if not np.isfinite(reward_scale) or reward_scale <= 0:
            raise ValueError(f"reward_scale must be a positive number, got {reward_scale}")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {', '.join(EPISODES)}, got {episode!r}")
        spec = GAMES.get(game)
        if episode == "hand" and not (spec is not None and spec.hand_episodes):
            raise ValueError(f"episode='hand' is built for Put (its hand count), not {game!r}")
        self.episode = episode
        self.game = game
        self.env_config = dict(env_config or {})
        aec = make_aec_env(game, self.env_config)  # the spaces and the agents' table info
        from agents import table_info_from_env

        self.table = table_info_from_env(aec)
        seat0 = aec.possible_agents[0]
        space = aec.observation_space(seat0)
        obs_space = space["observation"] if isinstance(space, gymnasium.spaces.Dict) else space
        self.render_mode = None
        super().__init__(num_envs, obs_space, aec.action_space(seat0))
        self.num_players = len(aec.possible_agents)
        self.pool = OpponentPool(opponents, snapshots, snapshot_prob, max_snapshots)
        self.reward_scale = float(reward_scale)
        self._seed = seed
        self._start(seed)

    def _start(self, seed: int | None) -> None:
        self._rng = np.random.default_rng(seed)
        self.engine = make_engine(
            self.game, self.env_config, self.num_envs, int(self._rng.integers(2**31))
        )
        n = self.num_envs
        self._agents: dict[str, Any] = {}
        self._episodes = np.zeros(n, np.int64)
        self._seat = np.zeros(n, np.int64)
        self._specs = np.zeros((n, self.num_players), np.int64)  # index into self._spec_names
        self._spec_names: list[str] = []
        self._spec_ids: dict[str, int] = {}  # spec -> its index in _spec_names
        self._pending = np.zeros(n)
        self._hand = np.zeros(n, np.int64)  # hands_played at the learner's decision ("hand")
        self._skipped = 0
        self._actions = np.zeros(n, np.int64)
        # Two observation buffers, in turns: what reset/step_wait return is written in place
        # of the one returned the call before last (see ``_observe``).
        shape = (n, *self.observation_space.shape)
        self._obs_buffers = [np.zeros(shape, np.float32), np.zeros(shape, np.float32)]

    # --- pool ------------------------------------------------------------------------------------
    def add_snapshot(self, path: str) -> None:
        """Add a snapshot to the pool. A snapshot the pool drops goes from the cache, unless a
        table's match still plays it: that one is loaded now, while its file exists (train.py
        deletes dropped snapshot files at its next checkpoint; as VsPoolEnv keeps an
        opponent until its episode ends)."""
        self.pool.add_snapshot(str(path))
        live = set(self.pool.baselines) | set(self.pool.snapshots)
        drawn = self._specs[self._episodes > 0]  # the tables that have a match
        drawn = drawn[drawn >= 0]
        playing = {self._spec_names[sid] for sid in np.unique(drawn).tolist()}
        for spec in [s for s in self._agents if s not in live and s not in playing]:
            del self._agents[spec]
        for spec in sorted(playing - live - set(self._agents)):
            self._agent(self._spec_names.index(spec))

    def _spec_id(self, spec: str) -> int:
        sid = self._spec_ids.get(spec)
        if sid is None:
            sid = self._spec_ids[spec] = len(self._spec_names)
            self._spec_names.append(spec)
        return sid

    def _agent(self, spec_id: int) -> Any:
        spec = self._spec_names[spec_id]
        agent = self._agents.get(spec)
        if agent is None:
            from agents.batch import batch_agent

            agent = batch_agent(spec, self.table, int(self._rng.integers(2**31)))
            self._agents[spec] = agent
        return agent

    def _number_specs(self, entries: list[str], drawn: np.ndarray) -> None:
        """Spec ids for the pool ``entries`` in ``drawn`` (draw order; -1: a learner's seat),
        given in the order they first appear, as drawing them one by one gave them."""
        drawn = drawn[drawn >= 0]
        found, first = np.unique(drawn, return_index=True)
        for entry in found[np.argsort(first)].tolist():
            self._spec_id(entries[entry])

    # --- episodes --------------------------------------------------------------------------------
    def _start_episodes(self, tables: np.ndarray) -> None:
        """New matches on ``tables``: the learner's seat rotates, opponents are drawn."""
        p = self.num_players
        self._seat[tables] = (tables + self._episodes[tables]) % p
        self._episodes[tables] += 1
        # Table after table, seat after seat (the run's stream of draws), compiled, as pool
        # entries; it stops at a spec drawn for the first time: its agent is built there, its
        # seed the next draw in the stream.
        from brag_env.training.pool_draws import draw_opponents

        pool = self.pool
        entries = [*pool.baselines, *pool.snapshots]
        b = len(pool.baselines)
        ready = np.array([s in self._agents or is_model_spec(s) for s in entries], dtype=bool)
        drawn = np.full((tables.size, p), -1, np.int64)
        learners, latest = self._seat[tables], pool.sampling == "latest"
        at = 0
        while at >= 0:
            at = draw_opponents(
                learners, p, np.arange(b), np.arange(b, len(entries)), pool.snapshot_prob,
                latest, ready, self._rng, drawn, at,
            )  # fmt: skip
            if at >= 0:
                self._number_specs(entries, drawn.ravel()[: at + 1])
                spec = entries[int(drawn.flat[at])]
                self._agent(self._spec_ids[spec])
                ready[[e == spec for e in entries]] = True
                at += 1
        self._number_specs(entries, drawn.ravel())
        ids = np.array([self._spec_ids.get(s, -1) for s in entries], np.int64)
        self._specs[tables] = drawn = np.where(drawn >= 0, ids[drawn], -1)
        # Each baseline forgets its new tables' state in one call (seat rows t * p + seat).
        for sid in np.unique(drawn[drawn >= 0]).tolist():
            if not is_model_spec(self._spec_names[sid]):
                k, seat = np.nonzero(drawn == sid)
                self._agent(sid).reset_rows(tables[k] * p + seat)
        self._pending[tables] = 0.0
        self.engine.new_session(tables)

    def _advance(self, tables: np.ndarray) -> np.ndarray:
        """Play the opponents on ``tables`` until the learner is to act or the match is over;
        returns the tables whose match ended (their rewards are in ``_pending``)."""
        engine, p = self.engine, self.num_players
        settled = getattr(engine, "settled", None)
        ended: list[np.ndarray] = []
        live = tables
        while live.size:
            current = engine.current_player[live]
            over = current < 0
            if settled is not None:  # the learner's result is final: its episode ends here
                cut = settled(live, self._seat[live])
                if cut.any():
                    t, s = live[cut], self._seat[live[cut]]
                    self._pending[t] += engine.chips[t, s] - engine.chips_before[t, s]
                    over |= cut
            if over.any():
                ended.append(live[over])
            waiting = ~over & (current != self._seat[live])
            live = live[waiting]
            if not live.size:
                break
            seats = current[waiting]  # nothing has moved since it was read
            specs = self._specs[live, seats]
            actions = np.empty(live.size, np.int64)
            obs = engine.observe(live, seats)  # once for all the opponents to act
            masks = engine.legal_mask(live).view(bool)  # 0/1 int8: read as bool, no copy
            state_rows = live * p + seats  # an agent's per-table state: one per seat
            for sid in np.unique(specs).tolist():
                k = np.flatnonzero(specs == sid)
                actions[k] = self._agent(sid).act_batch(obs[k], masks[k], state_rows[k])
            rewards, _ = engine.step(live, actions)
            self._pending[live] += rewards[np.arange(live.size), self._seat[live]]
        return np.concatenate(ended) if ended else np.zeros(0, np.int64)

    def _begin(self, tables: np.ndarray) -> None:
        """Start episodes on ``tables`` and play up to the learner's first decision; episodes
        without one are skipped (as ``VsPoolEnv.reset``)."""
        skipped = 0
        while tables.size:
            self._start_episodes(tables)
            tables = self._advance(tables)
            skipped += tables.size
            if skipped >= MAX_SKIPPED_EPISODES * self.num_envs:
                raise RuntimeError(
                    f"the learner got no decision in {skipped} episodes: check the pool and seats"
                )
        self._skipped += skipped

    # --- VecEnv API ------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        if self._seeds[0] is not None:  # VecEnv.seed(s): start the run over from s
            self._seed = self._seeds[0]
            self._start(self._seed)
        self._reset_seeds()
        self._reset_options()
        tables = np.arange(self.num_envs)
        self._begin(tables)
        self.reset_infos = [{"learner_seat": int(s)} for s in self._seat]
        self._hand[:] = self.engine.hands_played
        return self._observe(tables)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self):
        engine = self.engine
        tables = np.arange(self.num_envs)
        # MaskablePPO only picks legal actions; engine.step refuses others (one-line error)
        rewards, _ = engine.step(tables, self._actions)
        self._pending += rewards[tables, self._seat]
        done = np.zeros(self.num_envs, bool)
        done[self._advance(tables)] = True
        # episode "hand": the learner's next decision is in a new hand of the same match
        new_hand = ~done & (engine.hands_played != self._hand) if self.episode == "hand" else done
        reward = (self._pending * self.reward_scale).astype(np.float32)
        self._pending[:] = 0.0
        infos: list[dict[str, Any]] = [{"learner_seat": s} for s in self._seat.tolist()]
        ended = np.flatnonzero(done | new_hand)
        if ended.size:
            final = engine.observe(ended, self._seat[ended])
            for j, t in enumerate(ended.tolist()):
                infos[t]["terminal_observation"] = final[j]
            self._begin(np.flatnonzero(done))  # only a finished match starts a new one
        self._hand[:] = engine.hands_played
        return self._observe(tables), reward, (done | new_hand), infos

    def _observe(self, tables: np.ndarray) -> np.ndarray:
        """The learner's observation on every table, in the buffer not returned last time, not
        copied: SB3 copies the previous step's array into its rollout buffer (after the next
        ``step``) before it is written again, one call later. A caller that keeps these
        arrays longer copies them itself."""
        out = self._obs_buffers.pop(0)
        self._obs_buffers.append(out)
        return self.engine.observe(tables, self._seat, out)

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) legal actions of the learner on every table."""
        return self.engine.legal_mask().view(bool)  # a new 0/1 int8 array: read as bool

    def close(self) -> None:
        self._agents.clear()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"BatchedSelfPlayVecEnv has no per-env attribute {attr_name!r}")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        index = self._get_indices(indices)
        if method_name == "action_masks":  # every rollout step: rows of one array, no copy
            masks = self.action_masks()
            return list(masks if indices is None else masks[list(index)])
        if method_name == "add_snapshot":  # one pool for all tables
            self.add_snapshot(*method_args, **method_kwargs)
            return [None] * len(index)
        if method_name == "pool_snapshots":
            return [list(self.pool.snapshots)] * len(index)
        raise AttributeError(f"BatchedSelfPlayVecEnv has no env method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))
