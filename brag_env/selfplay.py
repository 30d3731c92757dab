"""Self-play as a single-agent gymnasium env: the learner holds one seat, the env the others.

```python
import gymnasium, brag_env
env = gymnasium.make("brag_env/BragVsPool-v0", env_config={"num_players": 4},
                     opponents=["brag:tight", "random"], reward_scale=0.5, seed=0)
obs, info = env.reset()
obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())
```

| | |
|-------------|------------------------------------------------------------------------------|
| ids         | `brag_env/BragVsPool-v0`, `brag_env/PutVsPool-v0`, `brag_env/Brag7VsPool-v0` |
| observation | the learner's `"observation"` vector of the PettingZoo env (brag_v1, put_v1); |
|             | with `dict_obs=True` a Dict `{"observation", "action_mask"}` as in PettingZoo |
| action      | `Discrete(n)`, the PettingZoo env's actions; `action_masks()`: legal ones    |
| reward      | the learner's OWN rewards since its last decision, times `reward_scale`      |
| episode     | one PettingZoo episode (Brag: a session, default one hand; Put: a match);    |
|             | Put with `episode="hand"`: one hand (the match goes on at the next reset)    |
| illegal     | `illegal_action="raise"` (default): `ValueError`; `"penalty"`: the episode   |
|             | ends at once, paid `illegal_penalty` (times `reward_scale`), `info["illegal"]`|

Why this shape ("safe" self-play): the learning algorithm only ever sees the learner's decisions,
so nothing else has to know about other seats. Opponents are drawn for every episode from a pool of
spec strings: rule-based baselines ("random", "brag:tight", ...) and frozen snapshots of the
learner (model files written by ``train.py``, added with :meth:`VsPoolEnv.add_snapshot`). Opponents
are built by ``agents.make_agent``; a snapshot is its ``ModelAgent``: a numpy copy of the actor
that samples from the masked action distribution, on the CPU, loaded once per env and shared by the
seats.

Rewards: after EVERY step of the underlying env, learner's or opponent's, the learner's entry of
``env.rewards`` is added to what the learner will be paid, so a hand that an opponent ends (the
last fold, a see) still pays the learner its result. An episode that ends before the learner made
any decision (in Brag everybody else folds before its first turn) is played out and skipped: the
learner could not influence it; ``info["skipped_episodes"]`` counts them. In a longer episode (a
Brag session), hands that end before the learner's first decision are paid with its first step.

Illegal actions: a learner that uses the mask never makes one, so by default one raises (a bug
in the caller). Generic tools that act without a mask (``gymnasium.utils.env_checker.check_env``,
SB3's ``check_env``, a plain PPO) need the other convention of PettingZoo's ``env()``: with
``illegal_action="penalty"`` an illegal action ends the episode, the learner is paid
``illegal_penalty`` (by default the penalty of the game's ``env()``: Brag ``-starting_chips``, Put
-1) plus its rewards still due, and the other seats play no further. ``dict_obs=True`` puts the
mask into the observation, so such tools can see it; both options together pass both checkers.

Hand episodes (``episode="hand"``, Put only): the learner's episode ends with each hand, though
the match goes on: the step that pays a hand's points returns ``terminated=True`` and the next
``reset()`` (unseeded, as vector envs call it) hands back the learner's first decision of the
next hand, same opponent, same match. With per-hand rewards (``reward="points"``) a hand's
points then reach only that hand's decisions: with match episodes, a decision's discounted
return also carries the points of every later hand, which it cannot change (more noise in each
advantage, no more signal). A seeded reset still starts a new match.

Seats rotate: episode k puts the learner in seat ``(seat_offset + k) % num_players`` (pass
``learner_seat`` to pin it), so parallel envs with different offsets cover every seat.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

import gymnasium
import numpy as np

from brag_env.games import GAMES as GAME_SPECS

GAMES = tuple(GAME_SPECS)
# Episodes in a row without a learner decision before reset() gives up: such a table is a
# configuration error (e.g. the learner's seat never gets to act), not something to wait out.
MAX_SKIPPED_EPISODES = 1000
ILLEGAL_ACTIONS = ("raise", "penalty")
EPISODES = ("match", "hand")  # what one learner episode is (Put); module docstring
SNAPSHOT_SAMPLING = ("uniform", "latest")


class Agent(Protocol):
    """What an opponent must offer (``agents.Agent`` does)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def reset(self) -> None: ...


OpponentFactory = Callable[[str, int], Agent]
"""Builds an opponent from a spec string and a seed."""


def is_model_spec(spec: str) -> bool:
    """Model files (snapshots) are named by their ``.zip`` path; other specs name baselines."""
    return ".zip" in spec.lower()


class OpponentPool:
    """The specs opponents are drawn from: fixed baselines plus the newest frozen snapshots.

    Each opponent seat independently gets a snapshot with probability ``snapshot_prob`` (once
    there is one), and otherwise a baseline chosen uniformly (repeat a spec in ``baselines`` to
    weight it). ``sampling`` picks the snapshot: ``"uniform"`` among the ``max_snapshots`` newest
    (with a large ``max_snapshots``, every past learner alike: fictitious-play style), or
    ``"latest"``, always the newest (plain self-play against the current learner).
    """

    def __init__(
        self,
        baselines: Sequence[str],
        snapshots: Sequence[str] = (),
        snapshot_prob: float = 0.5,
        max_snapshots: int = 5,
        sampling: str = "uniform",
    ) -> None:
        if isinstance(baselines, str):
            raise ValueError("opponents must be a list of agent specs, not one string")
        if not baselines:
            raise ValueError("opponents must name at least one baseline agent spec")
        if not 0.0 <= snapshot_prob <= 1.0:
            raise ValueError(f"snapshot_prob must be between 0 and 1, got {snapshot_prob}")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be >= 1, got {max_snapshots}")
        if sampling not in SNAPSHOT_SAMPLING:
            choices = ", ".join(SNAPSHOT_SAMPLING)
            raise ValueError(f"snapshot_sampling must be one of {choices}, got {sampling!r}")
        self.sampling = sampling
        self.baselines = list(baselines)
        self.snapshot_prob = float(snapshot_prob)
        self.max_snapshots = int(max_snapshots)
        self.snapshots: list[str] = []
        for path in snapshots:
            self.add_snapshot(path)

    def add_snapshot(self, path: str) -> None:
        self.snapshots.append(str(path))
        del self.snapshots[: -self.max_snapshots]

    def draw(self, rng: np.random.Generator) -> str:
        if self.snapshots and rng.random() < self.snapshot_prob:
            if self.sampling == "latest":
                return self.snapshots[-1]
            return self.snapshots[int(rng.integers(len(self.snapshots)))]
        return self.baselines[int(rng.integers(len(self.baselines)))]


def make_aec_env(game: str, env_config: Mapping[str, Any] | None = None) -> Any:
    """The raw PettingZoo env of a game (an illegal action raises instead of ending the game)."""
    spec = GAME_SPECS.get(game)
    if spec is None:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, got {game!r}")
    return importlib.import_module(spec.env_module).raw_env(**dict(env_config or {}))


def default_opponent_factory(aec_env: Any) -> OpponentFactory:
    """Opponents from ``agents`` spec strings (baselines and model files), bound to this table."""
    from agents import make_agent, table_info_from_env  # deferred: agents imports the envs

    table = table_info_from_env(aec_env)
    return lambda spec, seed: make_agent(spec, table, seed)


class VsPoolEnv(gymnasium.Env):
    """The learner's seat of a multi-player PettingZoo game; the other seats play from a pool."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        game: str = "brag",
        env_config: Mapping[str, Any] | None = None,
        opponents: Sequence[str] = ("random",),
        snapshots: Sequence[str] = (),
        snapshot_prob: float = 0.5,
        max_snapshots: int = 5,
        snapshot_sampling: str = "uniform",
        reward_scale: float = 1.0,
        learner_seat: int | None = None,
        seat_offset: int = 0,
        seed: int | None = None,
        opponent_factory: OpponentFactory | None = None,
        aec_env_fn: Callable[[], Any] | None = None,
        dict_obs: bool = False,
        illegal_action: str = "raise",
        illegal_penalty: float | None = None,
        episode: str = "match",
    ) -> None:
        if game not in GAMES and aec_env_fn is None:
            raise ValueError(f"game must be one of {', '.join(GAMES)}, got {game!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            choices = ", ".join(ILLEGAL_ACTIONS)
            raise ValueError(f"illegal_action must be one of {choices}, got {illegal_action!r}")
        if illegal_penalty is not None and not np.isfinite(illegal_penalty):
            raise ValueError(f"illegal_penalty must be a finite number, got {illegal_penalty}")
        if not np.isfinite(reward_scale) or reward_scale <= 0:
            raise ValueError(f"reward_scale must be a positive number, got {reward_scale}")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {', '.join(EPISODES)}, got {episode!r}")
        if episode == "hand" and not (game in GAME_SPECS and GAME_SPECS[game].hand_episodes):
            raise ValueError(f"episode='hand' is built for Put (its hand count), not {game!r}")
        self.episode = episode
        self.game = game
        self.env_config = dict(env_config or {})
        self.aec = aec_env_fn() if aec_env_fn is not None else make_aec_env(game, self.env_config)
        self.seats: list[str] = list(self.aec.possible_agents)
        self._seat_of = {agent: seat for seat, agent in enumerate(self.seats)}
        self.num_players = len(self.seats)
        if learner_seat is not None and not 0 <= learner_seat < self.num_players:
            raise ValueError(
                f"learner_seat must be between 0 and {self.num_players - 1}, got {learner_seat}"
            )
        self.pool = OpponentPool(
            opponents, snapshots, snapshot_prob, max_snapshots, snapshot_sampling
        )
        self.reward_scale = float(reward_scale)
        self.learner_seat = learner_seat
        self.seat_offset = int(seat_offset)
        self.make_opponent = opponent_factory or default_opponent_factory(self.aec)

        space = self.aec.observation_space(self.seats[0])
        vector_space = space["observation"] if isinstance(space, gymnasium.spaces.Dict) else space
        self.action_space = self.aec.action_space(self.seats[0])
        self.dict_obs = bool(dict_obs)
        mask_space = gymnasium.spaces.Box(0, 1, (self.action_space.n,), np.int8)
        self.observation_space = (
            gymnasium.spaces.Dict({"observation": vector_space, "action_mask": mask_space})
            if self.dict_obs
            else vector_space
        )
        self.illegal_action = illegal_action
        self.illegal_penalty = (
            float(illegal_penalty) if illegal_penalty is not None else self._env_penalty()
        )
        self._rng = np.random.default_rng(seed)
        self._opponent_cache: dict[tuple[int, str], Agent] = {}
        self._episodes = 0
        # brag_v0/put_v0 keep their generator across unseeded resets, so they are seeded once
        # from _rng (a new Generator per episode cost 15% of a heads-up Brag step); an env from
        # aec_env_fn may not, so it is reseeded every episode.
        self._keep_stream = aec_env_fn is None
        self._aec_seeded = False
        self._skipped = 0
        self._seat = 0
        self._learner = self.seats[0]
        self._opponents: list[Agent | None] = [None] * self.num_players
        self._opponent_specs: list[str] = [""] * self.num_players
        self._mask = np.zeros(self.action_space.n, dtype=bool)
        self._obs = np.zeros(vector_space.shape, dtype=vector_space.dtype)
        self._pending = 0.0
        self._hand = 0  # the hand of the learner's last decision (episode="hand")
        self._next_hand_ready = False  # a hand episode ended; the match goes on at reset()

    # --- pool management (called through VecEnv.env_method in training) --------------------------
    def add_snapshot(self, path: str) -> None:
        """Add a frozen snapshot (a model file) to the pool; the oldest beyond the limit go."""
        self.pool.add_snapshot(str(path))

    def pool_snapshots(self) -> list[str]:
        return list(self.pool.snapshots)

    # --- gymnasium API ---------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            # A seeded reset starts the env over: seat rotation from its start, and opponents
            # rebuilt from the new stream (cached ones would carry their RNGs' state along).
            self._rng = np.random.default_rng(seed)
            self._episodes = 0
            self._opponent_cache.clear()
            self._aec_seeded = False
        if self._next_hand_ready and seed is None:  # episode="hand": the same match goes on
            self._next_hand_ready = False
            return self._observation(), self._info(skipped_episodes=0)
        self._next_hand_ready = False
        skipped = 0
        while True:
            self._start_episode(options)
            if self._advance():
                break
            skipped += 1  # no learner decision in that episode: nothing to learn from it
            if skipped == MAX_SKIPPED_EPISODES:
                raise RuntimeError(
                    f"the learner got no decision in {skipped} episodes in a row "
                    f"(seat {self._seat}, opponents {self._opponent_specs}): "
                    "check the pool and the seat"
                )
        self._skipped += skipped
        return self._observation(), self._info(skipped_episodes=skipped)

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        action = int(action)
        if not (0 <= action < self._mask.size and self._mask[action]):
            legal = np.flatnonzero(self._mask).tolist()
            if self.illegal_action == "raise":
                raise ValueError(
                    f"action {action} is not legal for the learner now; legal: {legal}"
                )
            # The episode ends here; the next reset() deals a new one.
            reward = (self._pending + self.illegal_penalty) * self.reward_scale
            self._pending = 0.0
            self._mask[:] = False
            return self._observation(), reward, True, False, self._info(illegal=True)
        # _pending may already hold rewards of hands finished before the learner's first decision
        # of the episode (a session's first hands): they are paid with this step.
        self.aec.step(action)
        self._pending += self.aec.rewards.get(self._learner, 0.0)
        hand = self._hand
        alive = self._advance()
        reward = self._pending * self.reward_scale
        self._pending = 0.0
        if not alive:
            self._obs = self._observe_learner_final()
            self._mask[:] = False
        elif self.episode == "hand" and self._hand != hand:
            # The learner's next decision is in a new hand: end this episode there (its
            # observation is the terminal one SB3 keeps; with terminated=True it is not used).
            self._next_hand_ready = True
            return self._observation(), reward, True, False, self._info()
        return self._observation(), reward, not alive, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (sb3-contrib's MaskablePPO calls this)."""
        return self._mask.copy()

    # --- internals -------------------------------------------------------------------------------
    def _observation(self) -> Any:
        if self.dict_obs:
            return {"observation": self._obs.copy(), "action_mask": self._mask.astype(np.int8)}
        return self._obs.copy()

    def _env_penalty(self) -> float:
        """The illegal-action reward of the game's PettingZoo ``env()``."""
        spec = GAME_SPECS.get(self.game)
        if spec is None:
            return -1.0
        if spec.illegal_reward is not None:
            return float(spec.load("illegal_reward"))
        if hasattr(self.aec, "config"):  # minus the stack a seat can lose
            return -float(self.aec.config.starting_chips)
        return -1.0

    def _start_episode(self, options: dict[str, Any] | None) -> None:
        if self.learner_seat is None:
            self._seat = (self.seat_offset + self._episodes) % self.num_players
        else:
            self._seat = self.learner_seat
        self._episodes += 1
        self._learner = self.seats[self._seat]
        for seat in range(self.num_players):
            if seat == self._seat:
                self._opponents[seat] = None
                self._opponent_specs[seat] = ""
                continue
            spec = self.pool.draw(self._rng)
            # Baselines may keep per-episode state: one per seat. Snapshots are stateless: one
            # per env, shared by the seats.
            key = (-1 if is_model_spec(spec) else seat, spec)
            if key not in self._opponent_cache:
                self._opponent_cache[key] = self.make_opponent(spec, int(self._rng.integers(2**31)))
            self._opponents[seat] = self._opponent_cache[key]
            self._opponent_specs[seat] = spec
            self._opponent_cache[key].reset()
        self._forget_dropped_snapshots()
        if self._aec_seeded and self._keep_stream:
            self.aec.reset(options=options)  # the env's generator runs on: no new one per episode
        else:
            self.aec.reset(seed=int(self._rng.integers(2**31)), options=options)
            self._aec_seeded = True
        self._pending = 0.0

    def _forget_dropped_snapshots(self) -> None:
        live = set(self.pool.baselines) | set(self.pool.snapshots)
        for key in [k for k in self._opponent_cache if k[1] not in live]:
            del self._opponent_cache[key]

    def _advance(self) -> bool:
        """Play opponents until the learner must act (True) or its episode is over (False)."""
        aec = self.aec
        learner = self._learner
        while aec.agents:
            if aec.terminations[learner] or aec.truncations[learner]:
                return False
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                aec.step(None)  # PettingZoo's "dead step" for a seat that is out: no reward
                continue
            if agent == learner:
                if self.episode == "hand":
                    self._hand = aec.unwrapped.game.hand_number
                observed = aec.observe(learner)
                np.copyto(self._obs, observed["observation"])
                np.copyto(self._mask, observed["action_mask"].astype(bool))
                return True
            observed = aec.observe(agent)
            opponent = self._opponents[self._seat_of[agent]]
            aec.step(opponent.act(observed["observation"], observed["action_mask"]))
            self._pending += aec.rewards.get(learner, 0.0)
        return False

    def _observe_learner_final(self) -> np.ndarray:
        try:
            return np.asarray(self.aec.observe(self._learner)["observation"]).copy()
        except (KeyError, IndexError, ValueError):
            return self._obs.copy()

    def _info(self, **extra: Any) -> dict[str, Any]:
        return {"learner_seat": self._seat, **extra}


class BragVsPoolEnv(VsPoolEnv):
    """:class:`VsPoolEnv` for Three-Card Brag (``brag_v1``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(game="brag", **kwargs)


class Brag7VsPoolEnv(VsPoolEnv):
    """:class:`VsPoolEnv` for Seven-card Brag (``brag7_v0``, B24)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(game="brag7", **kwargs)


class PutVsPoolEnv(VsPoolEnv):
    """:class:`VsPoolEnv` for Put (``put_v1``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(game="put", **kwargs)
