"""Probes built for a problem's call shape (engine/execution/probe.py: ``probe_of``): what a function or a
``class Solution`` method returns and what a stdin program prints, raises or fails to finish, in words."""

from __future__ import annotations

from coderank_evalplus.engine.execution.probe import call_of, in_words, probe_all, probe_of
from coderank_evalplus.io.problems import problem_of_record
from tests.conftest import lookalike_data


def test_the_call_of_an_assert_is_found_for_every_callee():
    assert call_of("assert Solution().small(9) is True", "Solution().small") == "Solution().small(9)"
    assert call_of("assert run_stdin('9\\n') == 'True\\n'", "run_stdin") == "run_stdin('9\\n')"
    assert call_of("assert not (small(9) and small(8))", "small") == "small(9)"  # beyond parse_assert's forms
    assert call_of("assert 1 + Solution().small(9)", "Solution().small") == "Solution().small(9)"


def test_a_probe_says_what_a_candidate_did_on_every_shape():
    """The same look-alike on 9 as a function, a method and a stdin program; then a stdin program that prints two
    lines, nothing, raises, and never ends."""
    records, pools = lookalike_data()
    problems = {tid: problem_of_record(rec, tid) for tid, rec in records.items()}
    asks = [probe_of(problems[tid], pools[tid][k], f"assert {call}", 1.0)
            for tid, call in (("look/function", "small(9)"), ("look/method", "Solution().small(9)"),
                              ("look/stdin", "run_stdin('9\\n')")) for k in (0, 7)]
    stdin = problems["look/stdin"]
    asks += [probe_of(stdin, prog, "assert run_stdin('9\\n')", 1.0)
             for prog in ("print(1)\nprint(2)\n", "n = int(input())\n", "print(1 // (int(input()) - 9))\n",
                          "while True:\n    pass\n")]
    said = [in_words(p) for p in probe_all(asks, workers=2)]
    assert said == ["returns True", "returns False", "returns True", "returns False", "prints True", "prints False",
                    "prints '1\\n2'", "prints nothing", "raises ZeroDivisionError: integer division or modulo by zero",
                    "does not finish in the time limit"]


def test_a_program_that_does_not_compile_is_told_at_its_own_line_on_every_shape():
    """Python's "(<candidate>, line N)" counts the lines the tool put first (the prompt before a completion, the
    method's imports, the stdin harness); the words count the candidate's own, as a user reads them."""
    function = problem_of_record({"task_id": "f", "entry_point": "inc", "prompt": "def inc(x):\n    \"\"\"One more."
                                  "\n    >>> inc(1)\n    2\n    \"\"\"\n", "test": "assert inc(1) == 2\n"}, "f")
    method = problem_of_record({"task_id": "m", "entry_point": "inc", "prompt": "class Solution:\n    def inc(self, "
                                "x: int) -> int:\n        \"\"\"One more.\"\"\"\n",
                                "test": "assert Solution().inc(1) == 2\n"}, "m")
    stdin = problem_of_record({"task_id": "s", "prompt": "Print n plus one.\n",
                               "public_tests": [{"input": "1\n", "output": "2\n"}]}, "s")
    prose = "Here is my solution, it adds one."
    asks = [(function, function.prompt + prose), (method, method.prompt + prose), (stdin, prose),
            (function, "def inc(x):\n    y = x\n    return y +\n"),
            (method, "class Solution:\n    def inc(self, x):\n        if x:\n        return x + 1\n"),
            (stdin, "n = int(input())\nif n:\nprint(n + 1)\n"),
            (stdin, "")]
    said = [in_words(p, None) for p in probe_all([probe_of(pr, prog, "assert True", 1.0) for pr, prog in asks],
                                                 workers=2)]
    assert said[:6] == ["does not run: SyntaxError at line 1 after the prompt: invalid syntax",
                        "does not run: SyntaxError at line 1 after the prompt: invalid syntax",
                        "does not run: SyntaxError at line 1: invalid syntax",
                        "does not run: SyntaxError at line 3: invalid syntax",
                        "does not run: IndentationError at line 4: expected an indented block after 'if' statement "
                        "on line 3",
                        "does not run: IndentationError at line 3: expected an indented block after 'if' statement "
                        "on line 2"]
    # an empty stdin program is rewritten by the harness into a function without a body: no line of its own
    assert said[6].startswith("does not run: IndentationError: ") and "line" not in said[6]
