"""Run one untrusted program on many tests in a confined, forked child process.

The child is guarded with EvalPlus's primitives (``reliability_guard``, ``swallow_io``, the memory cap from
``EVALPLUS_MAX_MEMORY_BYTES``) and confined with kernel features evalplus does not use. One job per module:

* ``limits``   — ``Limits`` (per-test CPU time, wall-clock watchdog) and evalplus's memory cap;
* ``confine``  — every kernel rule a child gets: seccomp filter, Landlock ruleset, closed descriptors,
  death with its worker, CPU rlimit;
* ``guard``    — evalplus's Python-level ``reliability_guard``, applied once to a worker, and the candidates'
  private ``builtins``;
* ``child``    — the forked child: import the program, evaluate each probe under its CPU limit, record what it
  returned in shared memory (so a crash loses one probe); it decides no verdict;
* ``verdicts`` — the worker's side: the probes each test needs (``split``) and each verdict, decided from the
  probes' reported values outside the child;
* ``split``    — a test assert split into what needs the candidate (probes) and a remainder decided outside;
* ``canonical`` — hashable digests of returned values (the child's record of what a probe returned);
* ``report``   — the strict format those values travel in, and a referee's reading of it;
* ``runner``   — the parent side: fork, watch, restart after a crash or hang, collect results
  (``run_probes``), and ``run_function_in_child`` for the judge;
* ``worker``   — the jobs a ``coderank_evalplus.engine.execution.workers`` interpreter runs (``worker_run``) and
  the state a worker keeps between them.
"""

from coderank_evalplus.engine.sandbox.child import compile_program
from coderank_evalplus.engine.sandbox.limits import Limits, max_memory_bytes
from coderank_evalplus.engine.sandbox.runner import run_function_in_child
from coderank_evalplus.engine.sandbox.verdicts import plan_items, run_program
from coderank_evalplus.engine.sandbox.worker import freeze_heap, worker_run

__all__ = ["Limits", "max_memory_bytes", "compile_program", "plan_items", "run_program", "run_function_in_child",
           "worker_run", "freeze_heap"]
