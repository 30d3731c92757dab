"""brag-env: PettingZoo environments for Three-Card Brag and Put."""

__version__ = "0.1.0"
