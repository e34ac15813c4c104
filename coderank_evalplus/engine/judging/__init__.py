"""The benchmark's verdicts on its hidden tests: ``judge`` (``Judge``: evalplus's base / plus tests, a problem's
original tests, LiveCodeBench's; lazily, cached), the ``referee`` (the one process that holds the expected outputs
and decides), evalplus's comparison of one value (``oracle``), the original tests unrolled into probes
(``original``), LiveCodeBench's judge (``lcb_judge``) and what every check child shares (``check_child``)."""
