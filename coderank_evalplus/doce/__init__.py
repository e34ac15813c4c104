"""DOCE's self-debug: feedback probes run in the sandbox on the trial tests (``feedback``) and the rounds that ask
the model to repair its candidates before reranking (``selfdebug``).

May import the pipeline, the engine, generation, testgen, io and the core types; only the CLI imports it.
"""
