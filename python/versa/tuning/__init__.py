"""Measured strategy choices: the tuning database (`db`), and the tuner that fills it (`tuner`).

`versa.tune(module_or_model, ...)` and `versa-tune` measure, for each distinct op signature of
a program, points of its codegen strategy's search space and record the fastest in the
database; `lower-to-llvm{tuning-db=PATH}`, `versa.compile(..., tuning_db=PATH)` and
`VERSA_TUNING_DB` read it, so a tuned compile is as deterministic as an untuned one.
"""
