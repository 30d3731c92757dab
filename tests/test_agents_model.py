"""Trained-model agents: load a MaskablePPO .zip safely, check it fits the table, play legally."""

import base64
import json
import os
import pickle
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch

from agents import make_agent, parse_spec, table_info
from agents.model import ModelAgent, load_policy
from brag_env import brag_v1


class _TableShapedEnv(gym.Env):
    """A dummy single-agent env with the spaces of a 2-player Brag table and the env's masks."""

    def __init__(self) -> None:
        self.inner = brag_v1.raw_env(num_players=2)
        space = self.inner.observation_space("player_0")["observation"]
        self.observation_space = gym.spaces.Box(0.0, space.high, space.shape, np.float32)
        self.action_space = gym.spaces.Discrete(self.inner.action_space("player_0").n)
        self._rng = np.random.default_rng(0)

    def _obs(self) -> np.ndarray:
        obs = self.inner.observe(self.inner.agent_selection)
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"]

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.inner.reset(seed=int(self._rng.integers(1 << 30)))
        return self._obs(), {}

    def step(self, action):
        self.inner.step(int(action))
        done = not self.inner.agents or all(self.inner.terminations.values())
        reward = float(self.inner.rewards["player_0"])
        return (
            np.zeros(self.observation_space.shape, np.float32) if done else self._obs(),
            reward,
            done,
            False,
            {},
        )

    def action_masks(self) -> np.ndarray:
        return self._mask


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> Path:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    torch.manual_seed(0)
    model = MaskablePPO(
        "MlpPolicy",
        _TableShapedEnv(),
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        policy_kwargs={"net_arch": [16], "activation_fn": torch.nn.ReLU},
        seed=0,
        device="cpu",
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3 would make a /tmp/SB3-* folder
    model.learn(64)
    path = tmp_path_factory.mktemp("model") / "model.zip"
    model.save(path)
    (path.parent / "config.yaml").write_text("game: brag\nenv:\n  num_players: 2\n")
    return path


def _rewrite_data(src: Path, dst: Path, change) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            payload = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(payload)
                change(data)
                payload = json.dumps(data).encode()
            zout.writestr(item, payload)


class _Evil:
    """A pickle that creates a directory when unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_model_agent_loads_and_plays_legal_actions(model_path):
    table = table_info("brag", num_players=2)
    agent = make_agent(str(model_path), table, seed=0)
    assert isinstance(agent, ModelAgent)
    assert agent.info.observation_shape == table.observation_shape
    assert agent.info.num_actions == 8
    env = brag_v1.raw_env(num_players=2)
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    for _ in range(50):
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1


def test_numpy_forward_matches_torch_policy(model_path):
    agent = ModelAgent(model_path, seed=0)
    assert agent._layers is not None  # the fast path is in use for an MLP
    env = brag_v1.raw_env(num_players=2)
    for seed in range(5):
        env.reset(seed=seed)
        obs = env.observe(env.agent_selection)
        ours = agent.action_probabilities(obs["observation"], obs["action_mask"])
        mask = obs["action_mask"].astype(bool)[None]
        with torch.no_grad():
            dist = agent.policy.get_distribution(
                torch.as_tensor(obs["observation"][None]), action_masks=mask
            )
        np.testing.assert_allclose(ours, dist.distribution.probs[0].numpy(), atol=1e-5)
        assert ours[~mask[0]].sum() == 0.0


def test_deterministic_flag_plays_the_most_probable_action(model_path):
    agent = make_agent(f"{model_path}:deterministic=true", table_info("brag", num_players=2))
    env = brag_v1.raw_env(num_players=2)
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    probs = agent.action_probabilities(obs["observation"], obs["action_mask"])
    assert agent.act(obs["observation"], obs["action_mask"]) == int(np.argmax(probs))


def test_sampling_repeats_with_the_seed(model_path):
    env = brag_v1.raw_env(num_players=2)
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    one, two = ModelAgent(model_path, seed=4), ModelAgent(model_path, seed=4)
    picks = [one.act(obs["observation"], obs["action_mask"]) for _ in range(40)]
    assert picks == [two.act(obs["observation"], obs["action_mask"]) for _ in range(40)]


def test_wrong_game_or_table_is_a_clear_error(model_path, tmp_path):
    with pytest.raises(ValueError, match=r"was trained for brag .*not put"):
        make_agent(str(model_path), table_info("put"), seed=0)
    with pytest.raises(ValueError, match="num_players=2 in training, 4 here"):
        make_agent(str(model_path), table_info("brag", num_players=4), seed=0)
    # Without a record of the options, the sizes are still checked.
    bare = tmp_path / "model.zip"
    bare.write_bytes(model_path.read_bytes())
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="expects observations of"):
        make_agent(str(bare), table_info("put"), seed=0)
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="wrong game or different"):
        make_agent(str(bare), table_info("brag", num_players=4), seed=0)


def test_missing_and_corrupt_files_are_clear_errors(tmp_path, model_path):
    with pytest.raises(ValueError, match="no such file"):
        load_policy(tmp_path / "absent.zip")
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="not a zip archive"):
        load_policy(junk)
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(ValueError, match="not an SB3 model"):
        load_policy(empty)
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(model_path) as zin, zipfile.ZipFile(broken, "w") as zout:
        for item in zin.infolist():
            payload = zin.read(item.filename)
            zout.writestr(
                item, payload[: len(payload) // 2] if item.filename == "policy.pth" else payload
            )
    with pytest.raises(ValueError, match="cannot load model"):
        load_policy(broken)
    with pytest.raises(ValueError, match="cannot load model") as info:
        parse_spec(str(tmp_path / "absent.zip"), "brag")
        make_agent(str(tmp_path / "absent.zip"), table_info("brag"))
    assert "\n" not in str(info.value)


def test_loading_never_unpickles_the_data_entries(tmp_path, model_path):
    """Pickled entries are replaced, never loaded: a booby-trapped file stays inert."""
    marker = tmp_path / "unpickled"
    evil = base64.b64encode(pickle.dumps(_Evil(marker))).decode()

    def plant(data):
        for key in ("observation_space", "policy_class", "lr_schedule", "ep_info_buffer"):
            data[key][":serialized:"] = evil

    trapped = tmp_path / "trapped.zip"
    _rewrite_data(model_path, trapped, plant)
    policy, info = load_policy(trapped)
    assert not marker.exists()
    assert info.num_actions == 8 and policy is not None

    # The trap is live: SB3's default loading would have run it.
    from sb3_contrib import MaskablePPO

    with pytest.raises(Exception):  # noqa: B017 - whatever SB3 makes of the unpickled object
        MaskablePPO.load(trapped, device="cpu")
    assert marker.exists()


def test_unsupported_policy_kwargs_are_refused(tmp_path, model_path):
    def swap(data):
        data["policy_kwargs"]["activation_fn"] = "<class 'os.system'>"

    odd = tmp_path / "odd.zip"
    _rewrite_data(model_path, odd, swap)
    with pytest.raises(ValueError, match="unsupported activation_fn"):
        load_policy(odd)


def test_a_model_spec_plays_in_an_evaluation(model_path):
    from brag_env.evaluation import evaluate

    result = evaluate(
        "brag", [str(model_path), "brag:tight"], 20, seed=0, options={"num_players": 2}
    )
    assert result.agents[0].payoff.n == 20
    assert result.agents[0].label == f"{model_path.parent.name}/model.zip"
    again = evaluate(
        "brag", [str(model_path), "brag:tight"], 20, seed=0, options={"num_players": 2}
    )
    assert again.agents[0].payoff.mean == result.agents[0].payoff.mean


def _run_dir(tmp_path: Path, model_path: Path, config: str | None) -> Path:
    """A copy of the model in a run directory like train.py's, with its config.yaml."""
    run = tmp_path / "run"
    (run / "snapshots").mkdir(parents=True)
    for target in (run / "model.zip", run / "snapshots" / "step_1.zip"):
        target.write_bytes(model_path.read_bytes())
    if config is not None:
        (run / "config.yaml").write_text(config)
    return run


TRAIN_CONFIG = "name: x\ngame: brag\nseed: 0\nenv:\n  num_players: 2\n  max_stake: 32\n"


@pytest.mark.parametrize(
    ("option", "value"),
    [("max_stake", 64), ("min_stake", 4), ("starting_chips", 100), ("hands_per_session", 5)],
)
def test_a_table_whose_observation_means_otherwise_is_refused(tmp_path, model_path, option, value):
    """Same shapes, other scaling: the run's config.yaml shows the model would misread it."""
    run = _run_dir(tmp_path, model_path, TRAIN_CONFIG)
    table = table_info("brag", num_players=2, **{option: value})
    for spec in (run / "model.zip", run / "snapshots" / "step_1.zip"):
        with pytest.raises(ValueError, match=rf"trained with other table options .*{option}="):
            make_agent(str(spec), table)


def test_a_put_model_is_refused_at_another_deck(tmp_path):
    """A Put model trained on a short deck (``deck_ranks``) is refused at a full one and back,
    in one line, as the other options that change what it reads are."""
    from agents.model import SavedModelInfo, TrainedEnv, check_table

    def info(deck_ranks: int) -> SavedModelInfo:
        trained = TrainedEnv("put", {"deck_ranks": deck_ranks}, "config.yaml")
        return SavedModelInfo("m.zip", (10,), 29, 0, trained)

    check_table(info(4), table_info("put", deck_ranks=4))
    for trained, here in ((4, 13), (13, 4)):
        with pytest.raises(ValueError) as err:
            check_table(info(trained), table_info("put", deck_ranks=here))
        assert str(err.value) == (
            "model 'm.zip' was trained with other table options (per config.yaml): "
            f"deck_ranks={trained} in training, {here} here: its observations would mean "
            "something else; evaluate it with the training options"
        )


@pytest.mark.parametrize("game", ["brag", "brag7"])
def test_a_brag_model_is_refused_at_another_deck_and_an_old_record_is_the_full_pack(game):
    """B1: Brag's observation ranks hands within the deck it deals (``deck_ranks``), as
    Seven-card Brag's does; a model trained on one deck is refused at another in one line, and
    a record written before ``deck_ranks`` was recorded reads as the full pack (13 ranks)."""
    from agents.model import SavedModelInfo, TrainedEnv, check_table
    from brag_env.games import game_spec

    actions = game_spec(game).config_class(num_players=2).num_actions  # Brag's: with cover

    def info(options: dict) -> SavedModelInfo:
        trained = TrainedEnv(game, {"num_players": 2, **options}, "config.yaml")
        return SavedModelInfo("m.zip", (10,), actions, 0, trained)

    check_table(info({"deck_ranks": 5}), table_info(game, num_players=2, deck_ranks=5))
    check_table(info({}), table_info(game, num_players=2))  # an old record: 13 ranks
    for trained, here in (({"deck_ranks": 5}, 13), ({}, 5)):
        with pytest.raises(ValueError) as err:
            check_table(info(trained), table_info(game, num_players=2, deck_ranks=here))
        assert str(err.value) == (
            "model 'm.zip' was trained with other table options (per config.yaml): "
            f"deck_ranks={trained.get('deck_ranks', 13)} in training, {here} here: its "
            "observations would mean something else; evaluate it with the training options"
        )


def test_matching_options_load_quietly_and_other_rules_warn(tmp_path, model_path):
    import warnings

    run = _run_dir(tmp_path, model_path, TRAIN_CONFIG)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent = make_agent(str(run / "model.zip"), table_info("brag", num_players=2))
    assert agent.info.trained_env.source == str(run / "config.yaml")
    with pytest.warns(UserWarning, match="trained under other rules: ante=1 in training, 3 here"):
        make_agent(str(run / "model.zip"), table_info("brag", num_players=2, ante=3))
    put = _run_dir(tmp_path / "p", model_path, TRAIN_CONFIG.replace("game: brag", "game: put"))
    with pytest.raises(ValueError, match=r"was trained for put .*not brag"):
        make_agent(str(put / "model.zip"), table_info("brag", num_players=2))


def test_the_options_entry_in_the_zip_comes_first_and_none_warns(tmp_path, model_path):
    from agents.model import MODEL_ENTRY

    run = _run_dir(tmp_path, model_path, TRAIN_CONFIG)
    entry = {"game": "brag", "env_config": {"num_players": 2, "starting_chips": 500}}
    with zipfile.ZipFile(run / "model.zip", "a") as archive:
        archive.writestr(MODEL_ENTRY, json.dumps(entry))
    with pytest.raises(ValueError, match=f"per its {MODEL_ENTRY} entry.*starting_chips=500"):
        make_agent(str(run / "model.zip"), table_info("brag", num_players=2))
    bare = tmp_path / "bare" / "model.zip"
    bare.parent.mkdir()
    bare.write_bytes(model_path.read_bytes())
    with pytest.warns(UserWarning, match="does not record the table options"):
        make_agent(str(bare), table_info("brag", num_players=2))


def test_plain_json_policy_kwargs_pass_the_same_whitelist(tmp_path, model_path):
    """A policy_kwargs entry stored as plain JSON (no pickle) is checked like a pickled one."""

    def plain(kwargs):
        def change(data):
            data["policy_kwargs"] = kwargs

        return change

    cases = {
        "extractor": {"net_arch": [16], "features_extractor_class": "os.system"},
        "net_text": {"net_arch": "[16]", "activation_fn": "<class 'torch.nn.ReLU'>"},
        "bad_activation": {"net_arch": [16], "activation_fn": "<class 'os.system'>"},
    }
    messages = ["unsupported policy_kwargs entry", "is not plain JSON", "unsupported activation"]
    for (name, kwargs), message in zip(cases.items(), messages, strict=True):
        odd = tmp_path / f"{name}.zip"
        _rewrite_data(model_path, odd, plain(kwargs))
        with pytest.raises(ValueError, match=message):
            load_policy(odd)
    fine = tmp_path / "fine.zip"
    kwargs = {"net_arch": {"pi": [16], "vf": [16]}, "activation_fn": "<class 'torch.nn.ReLU'>"}
    _rewrite_data(model_path, fine, plain(kwargs))
    policy, info = load_policy(fine)
    assert info.num_actions == 8 and type(policy.mlp_extractor.policy_net[1]).__name__ == "ReLU"


def test_loading_a_model_leaves_torch_s_global_stream_alone(model_path, tmp_path):
    """A training run samples its actions from torch's global stream; an evaluation or a
    snapshot loading a model mid-run must not move it (or eval.every would change the run)."""
    copy = tmp_path / "fresh.zip"  # a path never loaded, so the network is really built
    copy.write_bytes(Path(model_path).read_bytes())
    torch.manual_seed(7)
    before = torch.random.get_rng_state()
    load_policy(copy)
    assert torch.equal(torch.random.get_rng_state(), before)
