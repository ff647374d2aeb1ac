"""Coulomb friction shared by formulations and certificates: cones and polygons, the multiplier set Λ(a),
the sliding reduction and its LCP, the exact piece enumeration, and the sticking and sliding verdicts."""
