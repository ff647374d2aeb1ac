"""The contact problem: its data (problem), validation, system class, multiplier layout and data scales."""
