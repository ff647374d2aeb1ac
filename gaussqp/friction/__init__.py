"""Coulomb friction shared by formulations and certificates: cones and polygons, the multiplier set Λ(a),
the sliding reduction and its LCP (with the P-matrix test), the exact piece enumeration, and the sticking verdict's
mathematics (margin, μ_min, the verdict at one acceleration). What a verdict proves about an answer is stated under
:mod:`gaussqp.certificates`."""
