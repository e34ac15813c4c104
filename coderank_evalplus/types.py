"""Core data types shared by every stage: problems, candidates, tests, executions, rankings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

# Outcome of one (program, test) execution, as stored in pass matrices.
PASS, FAIL, ERROR, TIMEOUT = 0, 1, 2, 3

# Kind of one call's result, as stored beside the output matrix.
RETURNED, RAISED, TIMED_OUT = 0, 1, 2


class CoderankError(ValueError):
    """Bad input or usage, found before or during a run: the message names the option, file, line or task and what
    is accepted there. Every error of the package's own making derives from it (the CLI prints it as one line and
    exits with status 2); ``except ValueError`` catches it too."""


class InputNotFound(CoderankError, FileNotFoundError):
    """A file, folder or dataset that was named does not exist (also a ``FileNotFoundError``)."""

# Call shapes: how a problem's tests call a candidate. A function (HumanEval, MBPP: ``f(*args)``), a method of a
# class (LeetCode: ``Solution().f(*args)``), or a whole program reading stdin and writing stdout (AtCoder,
# Codeforces, CodeContests, APPS), whose tests call ``run_stdin(input)`` -- a harness that runs the program on that
# input and returns what it printed (``engine/lcb.py``). ``engine/shapes.py`` turns a candidate into what runs.
FUNCTION, METHOD, STDIN = "function", "method", "stdin"
SHAPES = (FUNCTION, METHOD, STDIN)
STDIN_CALLEE = "run_stdin"
# what a test calls, by shape (any other: the entry point); kept here, beside the names, since ``Problem`` says it
_CALLEES = {METHOD: "{class_name}().{entry_point}", STDIN: STDIN_CALLEE}


@dataclass(frozen=True)
class IOTest:
    """One test of a benchmark that states its tests as text (LiveCodeBench): the input (stdin, or one JSON value per
    line: the arguments) and the expected output (stdout, or one JSON value)."""

    input: str
    output: str


@dataclass(frozen=True)
class Problem:
    """One benchmark task: prompt, reference solution, hidden inputs and trial tests."""

    task_id: str
    dataset: str  # "humaneval" or "mbpp" (the evalplus dataset family)
    prompt: str
    entry_point: str
    canonical_solution: str = ""
    base_input: list = field(default_factory=list, repr=False)
    plus_input: list = field(default_factory=list, repr=False)
    atol: float = 0.0
    trial_tests: tuple[str, ...] = ()  # asserts visible in the prompt (docstring examples / first MBPP assert)
    test_prompt_body: str = ""  # signature + docstring with the examples removed (for test generation)
    original_test: str = ""  # runnable test code of the original benchmark (check(...) or assert lines)
    dataset_hash: str = ""  # evalplus's hash of the dataset file (keys its expected-output cache)
    # other hashes evalplus gives the same dataset (the decompressed text of a .gz release: evalplus's cache of it)
    dataset_hash_aliases: frozenset[str] = field(default=frozenset(), repr=False)
    shape: str = FUNCTION  # FUNCTION, METHOD or STDIN (see above)
    class_name: str = ""  # METHOD: the class whose method ``entry_point`` is (LeetCode: "Solution")
    # the benchmark's tests as text (LiveCodeBench: public then private), judged with its grader's rules
    io_tests: tuple[IOTest, ...] = field(default=(), repr=False)
    public_tests: int = 0  # how many of io_tests are public (shown in the prompt; they are the trial tests)
    time_limit: float = 0.0  # seconds per test of the benchmark's grader (0: the judge's own default)
    metadata: dict = field(default_factory=dict, repr=False, hash=False, compare=False)  # platform, date, difficulty

    @property
    def has_evalplus_inputs(self) -> bool:
        """True when the problem carries evalplus inputs (HumanEval+ / MBPP+ style: judged by running the
        reference solution's outputs against the candidate's); False: judged by its original test code."""
        return bool(self.base_input)

    @property
    def has_plus_tests(self) -> bool:
        """True when the problem has plus inputs. The ``plus`` split of a problem without them is its base tests
        (evalplus's definition: plus = base + plus tests), so ``plus`` is defined for every problem."""
        return bool(self.plus_input)

    @property
    def callee(self) -> str:
        """What a test calls: ``f`` (function), ``Solution().f`` (method), ``run_stdin`` (stdin program)."""
        return _CALLEES.get(self.shape, "{entry_point}").format(entry_point=self.entry_point,
                                                                class_name=self.class_name or "Solution")


@dataclass
class TestSuite:
    """Generated tests for one problem.

    asserts: distinct assert statements (source text without the leading ``assert``), first-seen order.
    counts: multiplicity of each assert among all test samples.
    inputs: distinct call expressions (e.g. ``add(1, 2)``) parsed from the asserts.
    assert_input: for each assert, the index of its call input, or -1 when it does not parse.
    expected: for each assert, the expected-value expression, or None (truthiness check / unparsed).
    sample_asserts: for each raw test sample, the indices of the asserts it contributed.
    """

    asserts: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    assert_input: list[int] = field(default_factory=list)
    expected: list[Optional[str]] = field(default_factory=list)
    comparisons: list[str] = field(default_factory=list)  # "==", "truthy", "falsy", "is", "raw" per assert
    # for each raw test sample, the indices of the asserts it contributed (repeats kept; the counts are their
    # tally): what a budget curve over test samples needs. None when the suite was not built from samples.
    sample_asserts: Optional[list[list[int]]] = None

    def __len__(self) -> int:
        return len(self.asserts)


@dataclass
class Executions:
    """Results of running one problem's unique programs on its tests.

    program_of_candidate[c] is the row of candidate c in every matrix.
    pass_matrix[p, a] is an outcome code (PASS/FAIL/ERROR/TIMEOUT) of assert a on program p.
    output_matrix[p, i] is a 63-bit digest of the canonical form of the value call input i returned
    (or of the exception type it raised); output_kind[p, i] says which (RETURNED/RAISED/TIMED_OUT).
    trial_matrix[p, t] is the outcome of the problem's trial test t (may have zero columns).
    compiled[p] is False when the program fails before any test (syntax error, crash at import).
    """

    task_id: str
    program_of_candidate: np.ndarray
    pass_matrix: np.ndarray
    assert_counts: np.ndarray
    output_matrix: np.ndarray
    output_kind: np.ndarray
    trial_matrix: np.ndarray
    compiled: np.ndarray
    suite: TestSuite
    programs: list[str] = field(default_factory=list, repr=False)

    @property
    def n_candidates(self) -> int:
        return int(self.program_of_candidate.shape[0])

    def candidate_pass(self) -> np.ndarray:
        """Boolean matrix candidate × assert: True where the assert passed."""
        return self.pass_matrix[self.program_of_candidate] == PASS

    def candidate_outputs(self) -> np.ndarray:
        return self.output_matrix[self.program_of_candidate]

    def candidate_output_kind(self) -> np.ndarray:
        return self.output_kind[self.program_of_candidate]


@dataclass
class Group:
    """Candidates that a ranker cannot tell apart, with their common score."""

    candidates: list[int]
    score: float


@dataclass
class Ranking:
    """Groups of candidates, best first. Candidates in no group are unranked."""

    groups: list[Group] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)



# The results folder's format name and version (``io.results_folder``; written into rerank_results.json too).
LAYOUT: dict[str, Any] = {"name": "coderank-results", "version": 1}


@dataclass(frozen=True)
class Verdict:
    """Pass/fail of one candidate: ``plus`` means base and plus tests both pass (None when not judged)."""

    base: bool
    plus: Optional[bool] = None


@dataclass
class ProblemOutcome:
    """Per-problem record (``selection.path``): rankings per method, the steps' answers, the confidence of each
    method's pick, and the verdicts of the judged candidates."""

    task_id: str
    n_candidates: int
    suite: TestSuite
    rankings: dict[str, Ranking] = field(default_factory=dict)
    verdicts: dict[int, Verdict] = field(default_factory=dict)
    executions: Optional[Executions] = None  # the candidates' matrices (stored in the results folder)
    canonical: Optional[Executions] = None  # the reference solution on the same tests (test-quality analysis)
    hidden: Optional[tuple[np.ndarray, np.ndarray]] = None  # outputs on the benchmark's inputs (mbr_exec_hidden)
    features: dict[str, np.ndarray] = field(default_factory=dict)  # per-candidate likelihood features
    generated: Optional[dict] = None  # inputs the examples+mutate source added (testgen.mutate.GeneratedInputs)
    confidence: dict[str, dict[str, float]] = field(default_factory=dict)  # method → split → P(pick passes)
    steps: dict[str, list[Any]] = field(default_factory=dict)  # method → its steps' answers (selection.base)


@dataclass
class RerankResult:
    dataset: str
    n_problems: int
    methods: dict[str, dict[str, Any]]  # method → base / plus pass@k tables and uses_prompt_examples
    outcomes: dict[str, ProblemOutcome]
    config: dict
    stats: dict
    problems: dict[str, Problem] = field(default_factory=dict, repr=False)
    extra: dict = field(default_factory=dict)  # more top-level keys for rerank_results.json (e.g. a suite entry)
    timing: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"layout": LAYOUT, "dataset": self.dataset, "n_problems": self.n_problems, "methods": self.methods,
                "config": self.config, "execution": self.stats, "timing": self.timing,
                "task_ids": list(self.outcomes), **self.extra}
