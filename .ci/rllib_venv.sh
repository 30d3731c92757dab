#!/usr/bin/env bash
# Create (or reuse) the virtual environment for the RLlib backend and print its path.
#
#   .ci/rllib_venv.sh [DIR]      # default: $RLLIB_VENV, else /tmp/brag-env-rllib-venv
#
# Ray 2.60's RLlib extra pins gymnasium==1.2.2, while the main install resolves to the newest
# gymnasium: the two cannot share a venv without downgrading the main one, so the RLlib tests
# run in their own. torch comes from constraints.txt (the CPU build on disk), never from Ray.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-${RLLIB_VENV:-/tmp/brag-env-rllib-venv}}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import ray.rllib, sb3_contrib" 2>/dev/null; then
  python3.11 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
  "$venv/bin/python" -m pip install --quiet -c "$root/constraints.txt" -e "$root[train,test,rllib]" >&2
fi
echo "$venv"
