"""Linear algebra: ranks and null spaces, the mass factorization, polyhedral-cone decisions, Lemke, the
Delassus matrices (one bilateral elimination) and the active-set KKT system."""
