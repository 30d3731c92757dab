"""Train a Brag or Put agent by self-play with MaskablePPO: ``python train.py --help``.

The training script itself, readable top to bottom, is ``brag_env/training/cli.py`` (installed as
the ``brag-train`` command); this file runs it from a clone of the repository.
"""

import sys

from brag_env.training.cli import DEFAULT_CONFIG, main, parse_args

__all__ = ["DEFAULT_CONFIG", "main", "parse_args"]

if __name__ == "__main__":
    sys.exit(main())
