"""Reading and writing problems: the ``gaussqp/1`` JSON/NPZ format (importers of other formats join here)."""
