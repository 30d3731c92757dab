"""``import brag_env`` alone registers every env (checked in a fresh interpreter)."""

import subprocess
import sys

SCRIPT = """
import brag_env, gymnasium, pettingzoo
for name, n in (("brag_v0", 3), ("brag_v1", 3), ("put_v0", 2)):
    env = pettingzoo.make("aec", f"brag_env/{name}", num_players=n)
    env.reset(seed=0)
    assert env.metadata["name"] == name and len(env.agents) == n, name
for gym_id in ("brag_env/BragVsPool-v0", "brag_env/PutVsPool-v0"):
    assert gym_id in gymnasium.registry, gym_id
import sys
assert "torch" not in sys.modules, "import brag_env must stay cheap"
print("ok")
"""


def test_import_brag_env_registers_everything():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
