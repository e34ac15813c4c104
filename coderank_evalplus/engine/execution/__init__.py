"""Running candidates on tests: ``execute`` (candidates × tests → pass/output matrices: dedup → cache lookup →
sandboxed workers), the execution cache (``cache``), the worker interpreters (``workers``), where their jobs run
(``executors``: the local pool; ``ray_executor``: a Ray cluster; ``executor_factory``: one by name), and what one
program returned on one input, in words (``probe``). Imports the sandbox, never the judging package."""
