"""Real-robot problems: the scripts that regenerate ``problems/data/real/`` from the source libraries (they need the
``models`` extra; loading the shipped files does not)."""
