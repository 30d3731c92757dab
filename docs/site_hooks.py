"""MkDocs hooks of the docs site (``mkdocs.yml``): the repository's own Markdown outside docs/.

The README is the site's home page and the models' and rules' READMEs are pages too, so that a
page of docs/ and the README keep the relative links that work on GitHub and in a clone
(``../README.md#install``, ``docs/envs.md``, ``../seeds/rules/brag.md``). Each link is resolved
against the repository folder of the file it is in and rewritten to the page that file is on
the site; ``mkdocs build --strict`` then fails on any link that leads nowhere.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
#: repository file -> its page on the site (every other page is a file of docs/)
OUTSIDE = {
    "README.md": "index.md",
    "models/README.md": "models.md",
    "seeds/rules/brag.md": "rulebook/brag.md",
    "seeds/rules/put.md": "rulebook/put.md",
}
_SITE_TO_REPO = {site: repo for repo, site in OUTSIDE.items()}
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:|^#|^/")  # https:, mailto:, #anchor, /absolute


def on_files(files: Files, config: Any) -> Files:
    for repo_path, site_path in OUTSIDE.items():
        files.append(File.generated(config, site_path, abs_src_path=str(ROOT / repo_path)))
    return files


def site_link(target: str, repo_page: str, site_page: str) -> str:
    """``target``, a link in the repository file ``repo_page``, as a link from ``site_page``."""
    path, hash_, anchor = target.partition("#")
    repo_target = posixpath.normpath(posixpath.join(posixpath.dirname(repo_page), path))
    if repo_target in OUTSIDE:
        site_target = OUTSIDE[repo_target]
    elif repo_target.startswith("docs/"):
        site_target = repo_target.removeprefix("docs/")
    else:
        return target  # not a page of the site: left for the strict build to report
    relative = posixpath.relpath(site_target, posixpath.dirname(site_page) or ".")
    return relative + hash_ + anchor


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    site_page = page.file.src_uri
    repo_page = _SITE_TO_REPO.get(site_page, f"docs/{site_page}")

    def rewrite(match: re.Match[str]) -> str:
        target = match.group(1)
        if _EXTERNAL.match(target):
            return match.group(0)
        return f"]({site_link(target, repo_page, site_page)})"

    return _LINK.sub(rewrite, markdown)
