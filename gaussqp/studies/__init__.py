"""Cross-validation studies (issue #14): every route on every problem of a set, the results table, its
metrics (:mod:`gaussqp.studies.metrics`) and report (:mod:`gaussqp.studies.report`)."""
