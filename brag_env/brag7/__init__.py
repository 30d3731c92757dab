"""Seven-card Brag (rule B24): the pure engine. ``rules`` holds the config and the 140
arrangement ids, ``game`` the session of deals, ``observation`` the env's observation vector."""
