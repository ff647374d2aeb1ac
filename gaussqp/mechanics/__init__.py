"""Mechanics: the matrices a contact problem defines, between the problem model (:mod:`gaussqp.model`) and the
formulations. The Delassus matrices and the one bilateral elimination (:mod:`.delassus`), the KKT system of an active
set (:mod:`.active_set`), the contact frame of a normal (:mod:`.frames`). Built on :mod:`gaussqp.linalg`, which is
pure linear algebra and knows nothing of a problem."""
