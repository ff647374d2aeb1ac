"""Real robots: scripts that regenerate ``problems/data/real/*.json`` from the robots' own sources (they need the
optional extras, ``gaussqp[models]``); the shipped files are loaded by tests that need none."""
