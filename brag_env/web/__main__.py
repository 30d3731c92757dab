"""``python -m brag_env.web``: the same as ``brag-web``."""

import sys

from brag_env.web.cli import main

if __name__ == "__main__":
    sys.exit(main())
