"""The replay and results pages of the web app: history files and evaluate.py --json reports."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout

import pytest
from starlette.testclient import TestClient

from brag_env.evaluation.cli import main as evaluate_main
from brag_env.web.app import Settings, create_app


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(Settings(bot_delay=0))) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A Brag history and report, and a Put round-robin report, from evaluate.py."""
    folder = tmp_path_factory.mktemp("evaluate")
    made = {
        "history": folder / "brag.jsonl",
        "report": folder / "brag.json",
        "round_robin": folder / "rr.json",
    }
    brag = ["--game", "brag", "--agents", "brag:tight", "random", "--hands", "2", "--seed", "0"]
    put = ["--game", "put", "--round-robin", "put:caller", "random", "--matches", "2"]
    with redirect_stdout(io.StringIO()):
        code = evaluate_main(
            [*brag, "--history", str(made["history"]), "--json", str(made["report"])]
        )
        assert code == 0
        assert evaluate_main([*put, "--seed", "0", "--json", str(made["round_robin"])]) == 0
    return made


def _upload(client, url, name, content):
    return client.post(url, files={"file": (name, content)}, follow_redirects=False)


def _open_replay(client, files):
    response = _upload(client, "/replay", "brag.jsonl", files["history"].read_bytes())
    assert response.status_code == 303
    return response.headers["location"]


def test_a_history_file_is_stepped_through(client, files):
    where = _open_replay(client, files)
    first = client.get(where)
    assert first.status_code == 200 and "decision 1 of" in first.text
    steps = int(re.search(r"decision 1 of (\d+)", first.text).group(1))
    end = client.get(f"{where}?hand=0&seat=all&step={steps}")
    assert "the end of the hand" in end.text and "Result" in end.text
    assert "Dealt hands (hidden at the table)" in end.text


def test_one_seat_sees_only_its_decisions_and_no_hidden_hand(client, files):
    where = _open_replay(client, files)
    seen = set()
    for step in range(3):
        page = re.sub(r"<[^>]+>", "", client.get(f"{where}?hand=0&seat=0&step={step}").text)
        seen.update(re.findall(r"Step \d+ · (seat \d)", page))
        if "the end of the hand" in page:
            break
    assert seen == {"seat 0"}  # seat 0 acts first in hand 0 (the dealer is seat 1)
    first = client.get(f"{where}?hand=0&seat=0&step=0").text
    steps = int(re.search(r"decision 1 of (\d+)", first).group(1))
    end = client.get(f"{where}?hand=0&seat=0&step={steps}").text
    assert "Result" in end and "hidden at the table" not in end


@pytest.mark.parametrize("query", ["hand=99", "seat=7", "step=-1", "hand=x"])
def test_a_bad_replay_query_is_refused(client, files, query):
    response = client.get(f"{_open_replay(client, files)}?{query}")
    assert response.status_code == 400 and "must be a number" in response.text


@pytest.mark.parametrize(
    ("url", "content", "message"),
    [
        ("/replay", b"\xff\xfe not text", "not a text file"),
        ("/replay", b"{not json}\n", "line 1"),
        ("/replay", b'{"game": "chess"}\n', "unknown game"),
        ("/replay", b"", "holds no hand histories"),
        ("/results", b"[1, 2]", "not a report that evaluate.py wrote"),
        ("/results", b"{broken", "bad.file is not JSON"),
        ("/results", b'{"agents": [{"payoff": {"mean": "x", "n": 3}}]}', "must be a number"),
        ("/results", b'{"matrix": [[null]], "labels": ["a", "b"]}', "one row and one column"),
    ],
)
def test_a_bad_upload_is_refused_with_its_reason(client, url, content, message):
    response = _upload(client, url, "bad.file", content)
    assert response.status_code == 400 and message in response.text.replace("&#39;", "'")


def test_an_unknown_replay_is_refused(client):
    response = client.get("/replay/not-an-id")
    assert response.status_code == 404 and "no such replay" in response.text


def test_a_tournament_report_is_drawn(client, files):
    report = json.loads(files["report"].read_text())
    response = _upload(client, "/results", "brag.json", files["report"].read_bytes())
    assert response.status_code == 200
    page = response.text
    for agent in report["agents"]:
        assert agent["label"] in page
        assert f"{agent['payoff']['mean']:+.3f} ± {agent['payoff']['half_width']:.3f}" in page
    assert 'id="seats"' in page and 'id="behaviour"' in page and "bluff" in page


def test_a_round_robin_report_is_drawn_as_a_heat_map(client, files):
    report = json.loads(files["round_robin"].read_text())
    page = _upload(client, "/results", "rr.json", files["round_robin"].read_bytes()).text
    assert 'id="matrix"' in page
    cell = report["matrix"][0][1]
    assert f"{cell['mean']:+.2f}" in page and "hsl(" in page
