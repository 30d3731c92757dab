"""The docs site (``mkdocs.yml``, the ``docs`` extra) builds with ``--strict``: every page of
docs/, the README as its home page, the env and API reference pages rendered from the
docstrings, and no link, anchor or page left dangling (``docs/site_hooks.py``)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("site_hooks", ROOT / "docs" / "site_hooks.py")
site_hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site_hooks)


@pytest.mark.slow  # builds the whole site: seconds
def test_the_docs_site_builds_strictly(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    # No -q: it raises the log level above WARNING, so strict mode would count no warning at
    # all and pass a build with dangling links.
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert not warnings, "\n".join(warnings)
    for page in (ROOT / "docs").glob("*.md"):
        assert (tmp_path / page.stem / "index.html").is_file(), page.name
    home = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'href="envs/"' in home and 'href="rulebook/brag/"' in home  # README links rewritten
    brag = (tmp_path / "reference" / "brag_v1" / "index.html").read_text(encoding="utf-8")
    assert "Action Space" in brag and "raw_env" in brag  # the module docstring and its API


@pytest.mark.parametrize(
    ("target", "repo_page", "site_page", "link"),
    [
        ("docs/envs.md", "README.md", "index.md", "envs.md"),
        ("seeds/rules/brag.md#b16", "README.md", "index.md", "rulebook/brag.md#b16"),
        ("../README.md#install", "docs/development.md", "development.md", "index.md#install"),
        ("../models/README.md", "docs/play.md", "play.md", "models.md"),
        ("../docs/solver.md", "models/README.md", "models.md", "solver.md"),
        ("rules.md#put", "docs/envs.md", "envs.md", "rules.md#put"),
        ("../configs/put_ppo.yaml", "docs/training.md", "training.md", "../configs/put_ppo.yaml"),
    ],
)
def test_repository_links_become_site_links(target, repo_page, site_page, link):
    assert site_hooks.site_link(target, repo_page, site_page) == link
