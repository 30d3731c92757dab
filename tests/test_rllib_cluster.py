"""backend: rllib on a real two-node Ray cluster (loopback), and the RLlib pieces one by one.

Needs the ``rllib`` extra, which lives in its own venv (``.ci/rllib_venv.sh``; .ci/run runs this
file there). In the main venv the whole file is skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import torch
from ray.rllib.core.columns import Columns

from agents import make_agent, table_info_from_env
from brag_env.selfplay import make_aec_env
from brag_env.training import rllib_module as rm
from brag_env.training.config import load_config
from brag_env.training.rllib_backend import export_model

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "put_rllib_smoke.yaml"
sys.path.insert(0, str(ROOT))

import evaluate  # noqa: E402


# --- the pieces --------------------------------------------------------------------------------
def _module(game: str, net_arch: list[int], activation: str = "tanh") -> rm.MaskedMLPModule:
    env = rm.SelfPlayEnv({"game": game, "env": {}})
    agent = env.possible_agents[0]
    return rm.MaskedMLPModule(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={"net_arch": net_arch, "activation": activation},
    )


@pytest.mark.parametrize(("game", "activation"), [("put", "tanh"), ("brag", "relu")])
def test_exported_model_plays_the_rllib_module_distribution(game, activation, tmp_path):
    """model.zip (agents/model.py format) gives the same masked action probabilities as the
    RLlib module it was exported from, on real observations of the game."""
    torch.manual_seed(1)
    module = _module(game, [16, 8], activation)
    cfg = load_config(
        None, [f"game={game}", "ppo.net_arch=[16, 8]", f"ppo.activation={activation}"]
    )
    weights = {k: v.detach().clone() for k, v in module.state_dict().items()}
    path = export_model(weights, cfg, tmp_path / "model.zip", num_timesteps=123)
    aec = make_aec_env(game, {})
    agent = make_agent(str(path), table_info_from_env(aec), seed=0)
    rng = np.random.default_rng(0)
    checked = 0
    for episode in range(3):
        aec.reset(seed=episode)
        while aec.agents and checked < 60:
            seat = aec.agent_selection
            if aec.terminations[seat] or aec.truncations[seat]:
                aec.step(None)
                continue
            obs = aec.observe(seat)
            batch = {
                Columns.OBS: {
                    "observation": torch.tensor(obs["observation"][None]),
                    "action_mask": torch.tensor(obs["action_mask"][None]),
                }
            }
            with torch.no_grad():
                logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
            expected = torch.softmax(logits.double(), -1).numpy()
            got = agent.action_probabilities(obs["observation"], obs["action_mask"])
            np.testing.assert_allclose(got, expected, atol=1e-6)
            assert got[obs["action_mask"] == 0].sum() == 0
            legal = np.flatnonzero(obs["action_mask"])
            aec.step(int(rng.choice(legal)))
            checked += 1
    assert checked > 20


def test_masked_module_never_samples_an_illegal_action():
    module = _module("put", [8])
    env = rm.SelfPlayEnv({"game": "put", "env": {}})
    obs, _ = env.reset(seed=3)
    (agent,) = obs
    mask = torch.tensor(obs[agent]["action_mask"][None]).repeat(2000, 1)
    observation = torch.tensor(obs[agent]["observation"][None]).repeat(2000, 1)
    batch = {Columns.OBS: {"observation": observation, "action_mask": mask}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    actions = torch.distributions.Categorical(logits=logits).sample()
    assert mask[torch.arange(2000), actions].all()


def test_selfplay_env_counts_and_refuses_an_illegal_action():
    env = rm.SelfPlayEnv({"game": "put", "env": {}, "reward_scale": 0.5})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    before = dict(rm.RUNTIME)
    with pytest.raises(ValueError, match=f"illegal action {illegal} for {agent}"):
        env.step({agent: illegal})
    assert rm.RUNTIME["illegal_actions"] == before["illegal_actions"] + 1
    assert rm.RUNTIME["actions_checked"] == before["actions_checked"] + 1


def test_selfplay_env_scales_rewards_and_pays_both_seats_at_the_end():
    """A whole Put match by random legal play: the final rewards of both seats are delivered
    (PettingZoo's dead steps), scaled by reward_scale: +0.5 and -0.5 for a win and a loss."""
    env = rm.SelfPlayEnv({"game": "put", "env": {}, "reward_scale": 0.5})
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(0)
    totals: dict[str, float] = {}
    while True:
        (agent,) = obs
        legal = np.flatnonzero(obs[agent]["action_mask"])
        obs, rewards, terminated, _, _ = env.step({agent: int(rng.choice(legal))})
        for k, v in rewards.items():
            totals[k] = totals.get(k, 0.0) + v
        if terminated["__all__"]:
            break
    assert sorted(totals.values()) == [-0.5, 0.5]


def test_mapping_rotates_the_learner_seat_and_draws_snapshots_once_there_are_some(monkeypatch):
    monkeypatch.setitem(rm.RUNTIME, "episodes", {})
    monkeypatch.setitem(rm.RUNTIME, "next_episode", 0)
    monkeypatch.setitem(rm.RUNTIME, "active_snapshots", 0)
    kw = {"num_players": 3, "num_baselines": 2, "snapshot_prob": 1.0, "seed": 0}
    seats = []
    for n in range(6):
        episode = SimpleNamespace(id_=f"ep{n}")
        modules = [rm.map_agent_to_module(f"player_{s}", episode, **kw) for s in range(3)]
        assert modules.count(rm.LEARNER) == 1
        seats.append(modules.index(rm.LEARNER))
        for s, m in enumerate(modules):
            if m != rm.LEARNER:
                assert m in (rm.baseline_id(0, s), rm.baseline_id(1, s))
    assert seats == [0, 1, 2, 0, 1, 2]
    # The same episode asks again (another seat's first step): the same answer.
    assert rm.map_agent_to_module("player_1", SimpleNamespace(id_="ep1"), **kw) == rm.LEARNER
    rm.set_active_snapshots(None, 2)
    episode = SimpleNamespace(id_="ep6")
    modules = {rm.map_agent_to_module(f"player_{s}", episode, **kw) for s in (1, 2)}
    assert modules <= {rm.snapshot_id(0), rm.snapshot_id(1)}


# --- the two-node cluster ----------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LoopbackCluster:
    """A head node and one worker node on 127.0.0.1, one CPU each, every port picked free, a
    temp dir of their own. ``ray start --block`` keeps each node's processes in a process group
    of its own, so stopping ends exactly them (never ``ray stop``, which ends every Ray process
    of the machine, other users' included)."""

    def __init__(self, temp_root: Path) -> None:
        self.temp_root = temp_root
        self.procs: list[subprocess.Popen] = []
        self.address = ""
        # Ray 2.60 turns token authentication on for a new cluster: every node and driver of
        # this one gets its own token (not the machine-wide ~/.ray/auth_token).
        self.env = {
            **os.environ,
            "RAY_USAGE_STATS_ENABLED": "0",
            "OMP_NUM_THREADS": "1",
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": secrets.token_hex(32),
        }
        self.env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
        )

    def _node(self, name: str, head: bool) -> subprocess.Popen:
        ray = Path(sys.executable).parent / "ray"
        temp = self.temp_root / name
        args = [
            str(ray), "start", "--block", "--disable-usage-stats",
            "--node-ip-address=127.0.0.1", "--num-cpus=1",
            f"--temp-dir={temp}",
            "--object-store-memory=80000000",
            f"--node-manager-port={_free_port()}",
            f"--object-manager-port={_free_port()}",
            f"--runtime-env-agent-port={_free_port()}",
            f"--dashboard-agent-grpc-port={_free_port()}",
            f"--dashboard-agent-listen-port={_free_port()}",
            f"--metrics-export-port={_free_port()}",
        ]  # fmt: skip
        if head:
            port = _free_port()
            self.address = f"127.0.0.1:{port}"
            args += [
                "--head", f"--port={port}", "--include-dashboard=false",
                f"--ray-client-server-port={_free_port()}",
            ]  # fmt: skip
        else:
            args += [f"--address={self.address}"]
        log = (self.temp_root / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            args, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        self.temp_root.mkdir(parents=True, exist_ok=True)
        self._node("head", head=True)
        self._wait_for_nodes(1)
        self._node("worker", head=False)
        self._wait_for_nodes(2)

    def _wait_for_nodes(self, count: int, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        probe = (
            "import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
            "print(sum(n['Alive'] for n in ray.nodes()))"
        )
        while time.monotonic() < deadline:
            for proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError(f"a ray node exited ({proc.args}); see {self.temp_root}")
            out = subprocess.run(
                [sys.executable, "-c", probe, self.address],
                capture_output=True, text=True, timeout=60, env=self.env,
            )  # fmt: skip
            if out.returncode == 0 and out.stdout.strip().splitlines()[-1:] == [str(count)]:
                return
            time.sleep(1.0)
        raise RuntimeError(f"the cluster did not reach {count} node(s) in {timeout:.0f} s")

    def stop(self) -> None:
        for proc in self.procs:  # ray start --block ends its node's processes on SIGTERM
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=45)  # a node drains for up to 30 s
            except subprocess.TimeoutExpired:
                proc.kill()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # anything of the group still there
        for pid in self.leftovers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def leftovers(self) -> list[int]:
        """Processes whose command line names this cluster's temp dir."""
        marker = str(self.temp_root).encode()
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if marker in (entry / "cmdline").read_bytes():
                        pids.append(int(entry.name))
        return pids


@pytest.fixture
def cluster():
    # A short root: Ray's unix socket paths live under it (at most ~107 bytes).
    root = Path(f"/tmp/brag-ray-{os.getpid()}")
    c = LoopbackCluster(root)
    try:
        c.start()
        yield c
    finally:
        c.stop()
        time.sleep(1.0)
        left = c.leftovers()
        if not left:
            shutil.rmtree(root, ignore_errors=True)  # logs kept when something went wrong
        assert left == [], f"Ray processes of the test cluster outlived it: {left}"


def _train(cluster: LoopbackCluster, out: Path, *extra: str) -> subprocess.Popen:
    env = {**cluster.env, "RAY_ADDRESS": cluster.address}
    return subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--config", str(SMOKE), "--out", str(out),
         "--progress", "off", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )  # fmt: skip


def test_two_node_cluster_trains_resumes_and_exports_a_model_evaluate_loads(cluster, tmp_path):
    out = tmp_path / "run"
    # Session 1: interrupted (Ctrl-C) once two iterations are checkpointed.
    proc = _train(cluster, out)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if sum(x.startswith("checkpoint saved") for x in lines) == 2:
                proc.send_signal(signal.SIGINT)
                break
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = "".join(lines)
    assert proc.returncode == 130, text + err
    assert "continue with the same command plus --resume" in err
    assert "[iter 2]" in text
    # Env runners sampled on both nodes of the cluster.
    assert "2 node(s) sampling" in text
    state = json.loads((out / "rllib_checkpoint" / "brag_env_training.json").read_text())
    assert state["iterations"] == 2
    first = state["num_timesteps"]
    assert 0 < first < 512
    assert not (out / "model.zip").exists()

    # Session 2: --resume continues from the RLlib checkpoint to the end.
    proc = _train(cluster, out, "--resume")
    text, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, text + err
    assert f"resuming at step {first:,}" in text
    state = json.loads((out / "rllib_checkpoint" / "brag_env_training.json").read_text())
    assert state["num_timesteps"] >= 512
    assert state["iterations"] > 2
    assert "2 node(s) sampling" in text
    runners = json.loads((out / "rllib_runners.json").read_text())
    assert len({r["node_id"] for r in runners}) == 2
    assert sum(r["illegal_actions"] for r in runners) == 0
    assert sum(r["actions_checked"] for r in runners) > 0
    assert "0 illegal actions of" in text
    assert "final evaluation" in text
    for opponent in ("random", "put:greedy"):
        assert opponent in text.split("final evaluation", 1)[1]
    snapshots = sorted((out / "snapshots").glob("step_*.zip"))
    assert len(snapshots) >= 2

    # The exported learner is an agent spec for evaluate.py, snapshots too.
    model = str(out / "model.zip")
    assert evaluate.main(["--game", "put", "--agents", model, "random", "--matches", "4"]) == 0
    assert (
        evaluate.main(["--game", "put", "--agents", model, str(snapshots[-1]), "--matches", "4"])
        == 0
    )


def test_brag_four_players_on_a_local_ray_trains_and_exports(tmp_path):
    """No cluster address: train.py starts (and stops) a Ray of its own. Four Brag seats: the
    learner, snapshots and both baselines share tables; the model plays in evaluate.py."""
    out = tmp_path / "brag"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    config = ROOT / "configs" / "brag_rllib_smoke.yaml"
    args = [sys.executable, str(ROOT / "train.py"), "--config", str(config), "--out", str(out)]
    done = subprocess.run(
        [*args, "--progress", "off"], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 players" in done.stdout
    assert "0 illegal actions of" in done.stdout
    assert "final evaluation" in done.stdout
    state = json.loads((out / "rllib_checkpoint" / "brag_env_training.json").read_text())
    assert state["num_timesteps"] >= 256
    argv = ["--game", "brag", "--agents", str(out / "model.zip"), "random", "random", "random"]
    assert evaluate.main([*argv, "--hands", "10"]) == 0
    # A second start over the finished run is refused; --resume says there is nothing to do.
    again = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 2
    assert "already holds a run" in again.stderr
