"""Where untrusted programs run: the sandbox, worker processes, executors (local pool or Ray), the execution
cache, and the two jobs built on them — ``execution`` (candidates × generated tests → pass/output matrices) and
``judge`` (evalplus's verdicts on the benchmark's hidden tests).

Modules here may import ``types``, ``storage``, ``testgen`` (parsing asserts) and ``io.problems``; never the
rankers, the pipeline, reports or integrations. ``outcomes`` and ``canonical`` import nothing of the package (the
confined children load them).
"""
