"""Differential fuzzing of the Versa compiler (issue 17, "Reliability").

Random programs (`generate`) and mutants of the test suite's programs (`mutate`) run through
every CPU pipeline in worker subprocesses (`worker`, `oracle`); results must agree with the
NumPy reference and with each other within `versa.tolerance`; a share of them are made dynamic
(`dynamic`: compiled once, called with several sizes, refused exactly where the reference
refuses). Each finding is shrunk (`reduce`) and saved as a regression case under
`test/Fuzz/regressions/` (`campaign`).
"""
