"""Where untrusted programs run, in three packages, each importing only the packages below it:

* ``sandbox/``   — one untrusted program in a confined, forked child: the kernel rules and evalplus's guards, the
  probes a test needs (``split``), the digests of returned values (``canonical``), the verdicts decided outside
  the child;
* ``execution/`` — candidates × generated tests → pass/output matrices (``execute``: dedup → cache lookup →
  workers), the execution cache, the worker interpreters and the executors that feed them (local pool or Ray), and
  a program's answers in words (``probe``);
* ``judging/``   — the benchmark's verdicts on its hidden tests (``judge.Judge``: evalplus's rules, the original
  tests, LiveCodeBench's), decided by a referee that alone holds the expected outputs.

Beside them, the rules every package reads: ``shapes`` (a problem's call shape and what runs for it) and ``lcb``
(LiveCodeBench's grading rules). judging → execution → sandbox. Modules here may import ``types``, ``storage``,
``testgen`` (parsing asserts) and ``io.problems``; never the rankers, the pipeline, reports or integrations.
``sandbox.canonical`` imports nothing of the package; the outcome codes are ``types``'.
"""
