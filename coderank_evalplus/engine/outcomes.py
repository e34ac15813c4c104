"""Outcome codes, in a module without dependencies (the sandbox's worker processes import only this)."""

# Outcome of one (program, test) execution, as stored in pass matrices.
PASS, FAIL, ERROR, TIMEOUT = 0, 1, 2, 3

# Kind of one call's result, as stored beside the output matrix.
RETURNED, RAISED, TIMED_OUT = 0, 1, 2
