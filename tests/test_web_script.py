"""The table page's script (``static/table.js``) under node, with a fake page and server.

A bot move the server keeps refusing is asked again later and later (1 s, 2 s, ... up to a
minute), not at once in a loop; a move that succeeds brings the delay back to the page's own.
Skipped without ``node`` (the script is plain JavaScript with no build step).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "brag_env/web/static/table.js"

# A page whose table is always at a bot's turn, and a server that refuses `fails` bot moves
# and then accepts them; setTimeout records each delay and runs the callbacks in order.
HARNESS = r"""
const fails = Number(process.argv[2]);
let refused = 0;
const delays = [];
const queue = [];
const phase = { dataset: { phase: "bot_turn", turn: "3" } };
const root = {
  dataset: { gameId: "g", delay: "0.5" },
  set innerHTML(_) {},
  querySelector: () => phase,
  querySelectorAll: () => [],
  addEventListener: () => {},
};
const errorBox = { textContent: "", hidden: true };
globalThis.document = { getElementById: (name) => (name === "table" ? root : errorBox) };
globalThis.setTimeout = (fn, ms) => { delays.push(ms); queue.push(fn); };
globalThis.fetch = async (url) => {
  if (url.startsWith("/play/")) return { ok: true, text: async () => "<div></div>" };
  if (refused < fails) {
    refused += 1;
    return { ok: false, statusText: "Conflict", json: async () => ({ error: "stale turn" }) };
  }
  return { ok: true, json: async () => ({}) };
};
(async () => {
  eval(require("fs").readFileSync(process.argv[1], "utf8"));
  for (let k = 0; k < fails + 3; k += 1) {
    while (!queue.length) await new Promise((done) => setImmediate(done));
    await queue.shift()();
  }
  while (delays.length < fails + 4) await new Promise((done) => setImmediate(done));
  console.log(JSON.stringify(delays));
})();
"""


def _delays(fails: int) -> list[int]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not found: the script's test needs it")
    done = subprocess.run(
        [node, "-e", HARNESS, str(SCRIPT), str(fails)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.slow  # node starts in about 0.5 s
def test_failing_bot_moves_back_off_and_a_success_resets():
    delays = _delays(fails=9)
    # the page's delay first; then 1 s doubling to the 60 s cap; after the success, 0.5 s again
    assert delays == [500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 500, 500, 500]
