"""The pieces RLlib runs on its env runners: the self-play env, the RLModules, the seat mapping.

Everything here is imported by Ray workers (on any node of a cluster), so the module imports
only what they need: ray, torch, numpy and this project.

- :class:`SelfPlayEnv` is RLlib's own PettingZoo wrapper (``PettingZooEnv``, the AEC one) around
  the raw env of ``brag_env.selfplay.make_aec_env``. It adds what the project needs: every action
  is checked against the acting seat's mask (counted in :data:`RUNTIME`; an illegal one stops the
  run with a one-line error instead of the engine's), and rewards are scaled by ``reward_scale``.
- :class:`MaskedMLPModule` is the learner (and, frozen, its snapshots): a policy MLP and a separate
  value MLP of the config's ``ppo.net_arch``, laid out exactly as SB3's MaskablePPO MLP policy so
  that ``export_weights`` can copy them into a model.zip. Illegal actions get a logit of
  ``FLOAT_MIN`` in every forward pass, training included, so the sampled actions and the log
  probabilities PPO trains on come from the same masked distribution.
- :class:`BaselineModule` plays a rule-based agent spec (``agents`` registry) as an RLModule:
  it returns actions itself, RLlib samples nothing for it, and nothing of it is trained.
- :func:`map_agent_to_module` is the policy mapping: the learner's seat rotates from one episode
  to the next, every other seat gets a frozen snapshot (with ``snapshot_prob``, once there is one)
  or a baseline.
"""

from __future__ import annotations

import itertools
import zlib
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from brag_env.selfplay import make_aec_env

LEARNER = "learner"
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}

#: Per-process state of an env runner: how many snapshot modules hold weights (set by the driver
#: through ``foreach_env_runner``), the seat rotation, and the action checks of its envs.
RUNTIME: dict[str, Any] = {
    "active_snapshots": 0,
    "episodes": {},
    "next_episode": 0,
    "actions_checked": 0,
    "illegal_actions": 0,
}
_EPISODES_KEPT = 256  # episode ids remembered for the seat rotation (one runner runs one env)


def snapshot_id(slot: int) -> str:
    return f"snapshot_{slot}"


def baseline_id(index: int, seat: int) -> str:
    # One module per baseline AND seat: a baseline's per-hand memory (agents.brag counts its own
    # bets) must not mix two seats of one table.
    return f"baseline_{index}_seat{seat}"


class SelfPlayEnv(PettingZooEnv):
    """RLlib's AEC PettingZoo wrapper with the action check and the reward scale.

    ``config``: ``game``, ``env`` (table options), ``reward_scale``.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = dict(config or {})
        self.reward_scale = float(config.get("reward_scale", 1.0))
        super().__init__(make_aec_env(config.get("game", "brag"), config.get("env", {})))

    def step(self, action: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.env.agent_selection
        mask = np.asarray(self.env.observe(agent)["action_mask"]).astype(bool)
        chosen = int(action[agent])
        RUNTIME["actions_checked"] += 1
        if not (0 <= chosen < mask.size and mask[chosen]):
            RUNTIME["illegal_actions"] += 1
            raise ValueError(
                f"illegal action {chosen} for {agent} (legal: {np.flatnonzero(mask).tolist()}): "
                "the masking module let it through"
            )
        obs, rewards, terminated, truncated, infos = super().step(action)
        if self.reward_scale != 1.0:
            rewards = {k: v * self.reward_scale for k, v in rewards.items()}
        return obs, rewards, terminated, truncated, infos


def _mlp(sizes: list[int], activation: type[nn.Module]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        layers += [nn.Linear(fan_in, fan_out), activation()]
    return nn.Sequential(*layers)


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """Actor and critic MLPs on the ``"observation"`` entry; logits masked by ``"action_mask"``.

    ``model_config``: ``net_arch`` (hidden layer sizes) and ``activation`` (``tanh``/``relu``).
    """

    def setup(self) -> None:
        space = self.observation_space
        if not isinstance(space, gym.spaces.Dict) or set(space.spaces) != {
            "observation",
            "action_mask",
        }:
            raise ValueError(
                f"expected the env's Dict(observation, action_mask) space, got {space}"
            )
        arch = [int(n) for n in self.model_config.get("net_arch", [128, 128])]
        activation = ACTIVATIONS[self.model_config.get("activation", "tanh")]
        sizes = [int(np.prod(space["observation"].shape)), *arch]
        self.pi_body = _mlp(sizes, activation)
        self.pi_head = nn.Linear(arch[-1], int(self.action_space.n))
        self.vf_body = _mlp(sizes, activation)
        self.vf_head = nn.Linear(arch[-1], 1)

    def _logits(self, batch: dict[str, Any]) -> torch.Tensor:
        obs = batch[Columns.OBS]
        logits = self.pi_head(self.pi_body(obs["observation"].float()))
        return logits.masked_fill(obs["action_mask"] == 0, FLOAT_MIN)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        obs = batch[Columns.OBS]["observation"].float()
        return self.vf_head(self.vf_body(obs)).squeeze(-1)


class BaselineModule(RLModule):
    """A rule-based agent (``model_config``: ``spec``, ``game``, ``env``, ``seed``) as an RLModule.

    One agent per module, built for the table; it acts on each row of the batch in order (one
    env per env runner: rows are decisions of this module's one seat).
    """

    def setup(self) -> None:
        from agents import make_agent, table_info_from_env  # deferred: agents imports the envs

        cfg = self.model_config
        table = table_info_from_env(make_aec_env(cfg["game"], cfg.get("env", {})))
        self.agent = make_agent(cfg["spec"], table, int(cfg.get("seed", 0)))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        observations = _numpy(obs["observation"])
        masks = _numpy(obs["action_mask"])
        actions = [self.agent.act(o, m) for o, m in zip(observations, masks, strict=True)]
        return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("baseline modules are not trained")

    def get_state(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {}

    def set_state(self, state: dict[str, Any]) -> None:
        pass


def _numpy(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def map_agent_to_module(
    agent_id: str,
    episode: Any,
    *,
    num_players: int,
    num_baselines: int,
    snapshot_prob: float,
    seed: int,
    **kwargs: Any,
) -> str:
    """The module that plays seat ``agent_id`` (``player_<seat>``) in ``episode``.

    The n-th episode of an env runner seats the learner at ``n % num_players``; the other seats
    draw, from a generator seeded by the run's seed, the episode id and the seat, a snapshot
    (probability ``snapshot_prob``, once the driver has filled one) or a baseline.
    """
    episodes = RUNTIME["episodes"]
    if episode.id_ not in episodes:
        episodes[episode.id_] = RUNTIME["next_episode"]
        RUNTIME["next_episode"] += 1
        while len(episodes) > _EPISODES_KEPT:
            del episodes[next(iter(episodes))]
    number = episodes[episode.id_]
    seat = int(str(agent_id).rsplit("_", 1)[1])
    if seat == number % num_players:
        return LEARNER
    rng = np.random.default_rng([seed, zlib.crc32(str(episode.id_).encode()), seat])
    active = int(RUNTIME["active_snapshots"])
    if active and rng.random() < snapshot_prob:
        return snapshot_id(int(rng.integers(active)))
    return baseline_id(int(rng.integers(num_baselines)), seat)


def set_active_snapshots(runner: Any, count: int) -> None:
    """Run on every env runner by the driver (``foreach_env_runner``) after a snapshot."""
    RUNTIME["active_snapshots"] = int(count)


def runner_report(runner: Any) -> dict[str, Any]:
    """Where an env runner runs and what its envs checked (``foreach_env_runner``)."""
    import ray

    return {
        "node_id": ray.get_runtime_context().get_node_id(),
        "actions_checked": RUNTIME["actions_checked"],
        "illegal_actions": RUNTIME["illegal_actions"],
    }
