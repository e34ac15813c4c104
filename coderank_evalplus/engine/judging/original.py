"""The original tests (plain HumanEval's ``check(candidate)``, sanitized MBPP's asserts) as probes and asserts.

Today's benchmarks ran their test code beside the candidate, in its process, which wrote the verdict. Here the
test code is *unrolled* where the tests are held (``plan_original``, in a confined child of the judge's driver
that runs no candidate code): every statement that does not need the candidate (imports, ``rng`` loops, helper
values such as ``lst = list(range(-99, 100, 2))``) runs there; a ``for`` loop over test values is unrolled; a local
bound to a candidate call (``solution = candidate(...)``) is inlined where it is used, and so is a test function's
argument that is an expression (``check(Solution().twoSum)``: a class's method); test values in an assert
become literals; and each assert is split (``sandbox/split.py``) into *probes* -- ``poly([1, 2], find_zero([1, 2]))``
-- and a remainder over their values -- ``math.fabs(__probe(0)) < 0.0001``. The judge's check child evaluates the
probes in the order the test would call them, under the test's one CPU budget, and *reports* their values
(``sandbox/report.py``, ``judge._original_observe``); the referee, which alone reads the remainders, decides
(``referee_original``): a fast
form (``probe == literal``, ``is``, truth) there, the rest in one confined child that runs no candidate code.

What the candidate sees of the test stays as it was: the test's top-level imports and literals run in its
namespace after it (``prelude``), and each test function it could call (``check``) is a stub that raises.
"""

from __future__ import annotations

import ast
import builtins
import copy
import os
import pickle
import sys
import types
from dataclasses import dataclass, field
from typing import Any, Optional

from coderank_evalplus.engine.sandbox.split import PROBE, TRUSTED_MODULES, _free_names, split_expression

_BUILTIN_NAMES = frozenset(dir(builtins))
MAX_PROBES = 20_000  # an unrolled test with more probes than this is not split (it fails, with a reason)


class Unsupported(Exception):
    """A test statement the planner cannot unroll (a loop or branch over the candidate's values, say)."""


@dataclass
class OriginalPlan:
    """prelude: test statements run in the candidate's namespace after it. probes: expressions the check child
    evaluates, in order; want[i]: probe i's value is needed (else only that it returned). asserts: per assert, the
    indices of its probes, its fast form (``split.Split.fast``, or ("runs",): passes when its probe returned) and
    its remainder text (slow form only). fails: why every candidate fails (a test-only assert that does not hold,
    or a test this planner cannot split), or None."""

    prelude: str = ""
    probes: list[str] = field(default_factory=list)
    want: list[bool] = field(default_factory=list)
    asserts: list[tuple[tuple[int, ...], Optional[tuple], Optional[str]]] = field(default_factory=list)
    fails: Optional[str] = None

    def secret(self) -> dict:
        """What only the referee reads: each assert's probes, fast form and remainder."""
        return {"asserts": self.asserts, "n_probes": len(self.probes)}


def _literal_ast(value: Any, depth: int = 0) -> ast.expr:
    """An expression that evaluates to an equal value of the same types (exact builtins only), or ValueError."""
    t = type(value)
    if depth > 50:
        raise ValueError("too deep")
    if value is None or t in (bool, int, float, complex, str, bytes):
        return ast.Constant(value)
    if t in (list, tuple):
        elts = [_literal_ast(v, depth + 1) for v in value]
        return ast.List(elts, ast.Load()) if t is list else ast.Tuple(elts, ast.Load())
    if t is set:
        if not value:
            return ast.Call(ast.Name("set", ast.Load()), [], [])
        return ast.Set([_literal_ast(v, depth + 1) for v in value])
    if t is dict:
        return ast.Dict([_literal_ast(k, depth + 1) for k in value], [_literal_ast(v, depth + 1)
                                                                        for v in value.values()])
    raise ValueError(f"not a literal: {t.__name__}")


def _free_loads(node: ast.AST) -> set[str]:
    """Names an expression or statement reads that it does not bind itself (comprehension variables, lambda
    arguments and its own assignments are bound)."""
    return _free_names(node)


def _import_of(module: types.ModuleType) -> ast.expr:
    """``__import__('name')``: a test module where the test's name for it is not bound (in a probe, a remainder)."""
    return ast.Call(ast.Name("__import__", ast.Load()), [ast.Constant(module.__name__)], [])


def _is_top_module(value: Any) -> bool:
    return (isinstance(value, types.ModuleType) and "." not in value.__name__
            and sys.modules.get(value.__name__) is value)


class _Planner:
    def __init__(self, entry_point: str) -> None:
        self.env: dict[str, Any] = {"__builtins__": builtins, "__name__": "__coderank_test__"}
        self.entry_point = entry_point
        # a test function's parameter -> the candidate's name it was called with, or the expression over the
        # candidate (``check(Solution().twoSum)``), inlined where the parameter is used
        self.aliases: dict[str, "str | ast.expr"] = {}
        self.sym: dict[str, ast.expr] = {}  # test locals bound to a candidate-dependent expression
        self.sym_used: dict[str, int] = {}
        self.candidate_names: set[str] = {entry_point}
        self.functions: dict[str, ast.FunctionDef] = {}
        self.plan = OriginalPlan()

    # --- names -------------------------------------------------------------------------------------------
    def is_candidates(self, name: str) -> bool:
        """Whether a free name of the test resolves in the candidate's namespace (not bound by the test)."""
        if name in self.aliases or name in self.sym:
            return True
        if name in self.env:
            return False
        return name not in _BUILTIN_NAMES or name in self.candidate_names

    def needs_candidate(self, node: ast.AST) -> bool:
        return any(self.is_candidates(n) for n in _free_loads(node))

    # --- expressions -------------------------------------------------------------------------------------
    def resolve(self, node: ast.expr) -> ast.expr:
        """The expression with aliases renamed, candidate-bound locals inlined and test values folded."""
        planner = self

        class Rename(ast.NodeTransformer):
            def visit_Name(self, n: ast.Name) -> ast.AST:
                if isinstance(n.ctx, ast.Load):
                    if n.id in planner.aliases:
                        alias = planner.aliases[n.id]
                        if not isinstance(alias, str):
                            return copy.deepcopy(alias)
                        return ast.copy_location(ast.Name(alias, ast.Load()), n)
                    if n.id in planner.sym:
                        planner.sym_used[n.id] = planner.sym_used.get(n.id, 0) + 1
                        return copy.deepcopy(planner.sym[n.id])
                return n

        renamed = Rename().visit(copy.deepcopy(node))
        return self.fold(renamed)

    def evaluate(self, node: ast.expr) -> Any:
        return eval(compile(ast.fix_missing_locations(ast.Expression(node)), "<test>", "eval"), self.env)

    def fold(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.fold(x) for x in node]
        if not isinstance(node, ast.AST) or not isinstance(node, (ast.expr, ast.keyword)):
            return node
        if isinstance(node, ast.expr) and not self.needs_candidate(node):
            if isinstance(node, ast.Constant):
                return node
            try:
                value = self.evaluate(node)
            except Exception as exc:  # noqa: BLE001 - evaluated as the test would, before the calls it holds
                raise Unsupported(f"test expression {ast.unparse(node)!r} raised {exc.__class__.__name__}") from exc
            try:
                return _literal_ast(value)
            except ValueError:
                pass
            if _is_top_module(value) and not (isinstance(node, ast.Name) and node.id in TRUSTED_MODULES):
                return _import_of(value)
            return node  # a trusted module, a function of the test's: stays a name (checked in add_assert)
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr)):
            return node  # bound names inside: split refuses it if it needs the candidate
        for name, value in ast.iter_fields(node):
            if isinstance(value, (ast.AST, list)) and name != "ctx":
                setattr(node, name, self.fold(value))
        return node

    # --- statements --------------------------------------------------------------------------------------
    def run_test_statement(self, stmt: ast.stmt) -> None:
        """A statement that needs no candidate runs here, as the test would run it."""
        try:
            exec(compile(ast.fix_missing_locations(ast.Module([stmt], [])), "<test>", "exec"), self.env)
        except AssertionError as exc:
            raise _AlwaysFails(f"the test's own assert {ast.unparse(stmt)[:200]!r} does not hold") from exc
        except Exception as exc:  # noqa: BLE001
            raise _AlwaysFails(f"the test raised {exc.__class__.__name__} in {ast.unparse(stmt)[:200]!r}") from exc
        for target in _bound_names(stmt):
            self.sym.pop(target, None)

    def add_assert(self, test: ast.expr, runs: bool = False) -> None:
        resolved = self.resolve(test)
        names = frozenset(n for n in _free_loads(resolved) if self.is_candidates(n))
        split = split_expression(resolved, self.entry_point, names)
        if split.remainder is None:
            raise Unsupported(f"assert {ast.unparse(test)[:200]!r} cannot be split")
        # the remainder runs where only builtins and the trusted modules are: the test's other names cannot go there
        odd = _free_loads(ast.parse(split.remainder, mode="eval")) - {PROBE} - _BUILTIN_NAMES - TRUSTED_MODULES
        if odd:
            raise Unsupported(f"the test's own {sorted(odd)} used on the candidate's values")
        start = len(self.plan.probes)
        self.plan.probes.extend(self.probe_text(p) for p in split.probes)
        self.plan.want.extend([not runs] * len(split.probes))
        indices = tuple(range(start, len(self.plan.probes)))
        if runs:
            self.plan.asserts.append((indices, ("runs",), None))
        else:
            self.plan.asserts.append((indices, split.fast, None if split.fast else split.remainder))
        if len(self.plan.probes) > MAX_PROBES:
            raise Unsupported(f"more than {MAX_PROBES} candidate calls")

    def probe_text(self, text: str) -> str:
        """A probe runs in the candidate's namespace: the test's module names in it are made explicit."""
        env = self.env

        class Explicit(ast.NodeTransformer):
            def visit_Name(self, n: ast.Name) -> ast.AST:
                if isinstance(n.ctx, ast.Load) and _is_top_module(env.get(n.id)):
                    return _import_of(env[n.id])
                return n

        tree = Explicit().visit(ast.parse(text, mode="eval"))
        odd = {n for n in _free_loads(tree) if n in env and n != "__builtins__"}
        if odd:
            raise Unsupported(f"the test's own {sorted(odd)} inside a candidate call")
        return ast.unparse(tree)

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if self.needs_candidate_stmt(stmt):
                raise Unsupported(f"a test function or class {stmt.name!r} that uses the candidate")
            self.run_test_statement(stmt)
            return
        if not self.needs_candidate_stmt(stmt):  # an import, a test value, a loop of its own, a test-only assert
            self.run_test_statement(stmt)
            return
        if isinstance(stmt, ast.Assert):
            self.add_assert(stmt.test)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            value = self.resolve(stmt.value)
            self.flush_unused(name)
            self.env.pop(name, None)
            self.sym[name] = value
            self.sym_used[name] = 0
        elif isinstance(stmt, ast.Expr):
            call = self.call_of_test_function(stmt.value)
            if call is not None:
                self.inline(*call)
            else:
                self.add_assert(stmt.value, runs=True)
        elif isinstance(stmt, ast.For) and not self.needs_candidate(stmt.iter) and not _has_jumps(stmt.body):
            items = list(self.evaluate(self.resolve(stmt.iter)))
            for item in items:
                self.env["__coderank_item__"] = item
                self.run_test_statement(ast.Assign([stmt.target], ast.Name("__coderank_item__", ast.Load())))
                self.block(stmt.body)
            self.block(stmt.orelse)
        elif isinstance(stmt, ast.If) and not self.needs_candidate(stmt.test):
            self.block(stmt.body if self.evaluate(self.resolve(stmt.test)) else stmt.orelse)
        else:
            raise Unsupported(f"statement {ast.unparse(stmt).splitlines()[0][:200]!r} depends on the candidate")

    def needs_candidate_stmt(self, stmt: ast.stmt) -> bool:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return False  # bodies run only when called; a call of one is checked where it is made
        return self.needs_candidate(stmt)

    def call_of_test_function(self, node: ast.expr) -> Optional[tuple[ast.FunctionDef, list[ast.expr]]]:
        """``check(candidate)``: a test function called with names of the candidate's namespace, or expressions
        over them (``check(Solution().twoSum)``: a class's method)."""
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.functions
                and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
            return self.functions[node.func.id], list(node.args)
        return None

    def inline(self, fn: ast.FunctionDef, args: list[ast.expr]) -> None:
        params = [a.arg for a in fn.args.args]
        if len(params) != len(args) or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs:
            raise Unsupported(f"call of the test's {fn.name!r} with other arguments")
        saved = (self.env, self.aliases, self.sym, self.sym_used)
        local = dict(self.env)  # the function's locals see the module's names; its own bindings stay its own
        for p in params:
            local.pop(p, None)
        aliases: dict[str, "str | ast.expr"] = {}
        for p, a in zip(params, args, strict=True):
            if isinstance(a, ast.Name):
                aliases[p] = self.aliases.get(a.id, a.id)
                if self.is_candidates(a.id) and isinstance(aliases[p], str):
                    self.candidate_names.add(str(aliases[p]))
            else:  # an expression (over the candidate, or a test value): inlined where the parameter is used
                aliases[p] = self.resolve(a)
        self.env, self.aliases, self.sym, self.sym_used = local, aliases, {}, {}
        try:
            self.block(fn.body)
            self.flush_unused()
        finally:
            self.env, self.aliases, self.sym, self.sym_used = saved

    def flush_unused(self, only: Optional[str] = None) -> None:
        """A local bound to a candidate call that the test never used: the call must still return."""
        for name in [only] if only else list(self.sym):
            if name in self.sym and not self.sym_used.get(name):
                expr = self.sym[name]
                self.sym_used[name] = 1
                self.add_assert(expr, runs=True)


class _AlwaysFails(Exception):
    pass


def _bound_names(stmt: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _has_jumps(body: list[ast.stmt]) -> bool:
    return any(isinstance(n, (ast.Break, ast.Continue, ast.Return)) for s in body for n in ast.walk(s))


def _prelude(tree: ast.Module) -> str:
    """The test's top-level statements that the candidate's namespace got from it: imports and literal
    assignments as they are, and each function or class it defines as a stub that raises (the real one holds
    the expected values)."""
    out = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out.append(ast.unparse(stmt))
        elif isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            try:
                ast.literal_eval(stmt.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            out.append(ast.unparse(stmt))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(f"def {stmt.name}(*args, **kwargs):\n    raise TypeError('the test\\'s {stmt.name} is not "
                       "the candidate\\'s to call')")
    return "\n".join(out) + ("\n" if out else "")


def plan_original(test_code: str, entry_point: str) -> OriginalPlan:
    """Unroll and split the original test code of one task (runs the test's own statements: call it where test
    code may run, ``plan_in_child``)."""
    planner = _Planner(entry_point)
    try:
        tree = ast.parse(test_code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        planner.plan.fails = f"the test does not compile: {exc.__class__.__name__}"
        return planner.plan
    planner.plan.prelude = _prelude(tree)
    try:
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef):
                planner.functions[stmt.name] = stmt
                planner.env[stmt.name] = None  # the test's name, not the candidate's (its body is inlined)
                continue
            planner.statement(stmt)
        planner.flush_unused()
    except (Unsupported, _AlwaysFails) as exc:
        planner.plan.fails = str(exc)
    except Exception as exc:  # noqa: BLE001 - the test itself is broken: every candidate fails, as before
        planner.plan.fails = f"the test raised {exc.__class__.__name__}: {exc}"
    return planner.plan


def plan_in_child(test_code: str, entry_point: str) -> OriginalPlan:
    """``plan_original`` in a confined child (the test's own code runs there, never in this process)."""
    from coderank_evalplus.engine.sandbox.runner import run_function_in_child

    def target() -> bytes:  # pragma: no cover - child
        plan = plan_original(test_code, entry_point)
        return pickle.dumps(plan, protocol=pickle.HIGHEST_PROTOCOL)

    # only plain data comes back (str, bool, tuples of literals): loaded with a restricted unpickler
    got = run_function_in_child(target, wall_timeout=120, cpu_budget=60)
    if got is None:
        return OriginalPlan(fails="the test's planner did not finish (time or memory)")
    return _PlanUnpickler(got).load()


class _PlanUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in {(__name__, "OriginalPlan"), ("builtins", "set"), ("builtins", "frozenset"),
                              ("builtins", "complex")}:
            return globals()["OriginalPlan"] if name == "OriginalPlan" else getattr(builtins, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a plan")

    def __init__(self, data: bytes) -> None:
        import io

        super().__init__(io.BytesIO(data))


def write_secret(plan: OriginalPlan, path: str) -> None:
    with open(path, "wb") as fh:
        pickle.dump(plan.secret(), fh, protocol=pickle.HIGHEST_PROTOCOL)



# --- the referee's side ----------------------------------------------------------------------------------

_SECRETS: dict[str, tuple[dict, list[int], list]] = {}


def _secret(path: str) -> tuple[dict, list[int], list]:
    """A task's asserts (read by the referee only), which assert each probe belongs to, and the compiled
    remainders."""
    if path not in _SECRETS:
        if len(_SECRETS) >= 8:
            _SECRETS.pop(next(iter(_SECRETS)))
        with open(path, "rb") as fh:
            secret = pickle.load(fh)
        owner = [0] * secret["n_probes"]
        codes = []
        for k, (indices, _, remainder) in enumerate(secret["asserts"]):
            for p in indices:
                owner[p] = k
            codes.append(compile(remainder, "<test>", "eval") if remainder is not None else None)
        _SECRETS[path] = (secret, owner, codes)
    return _SECRETS[path]


_Verdict = tuple[bool, Optional[str]]  # (passed, why suspicious or None): what the referee answers for a check


class _OriginalReferee:
    """One check child's reports against a task's asserts, in the order the test calls its probes: the probes'
    values, a probe's request to compare with the candidate's own ``==`` (an object only the candidate knows), and
    the child's answer. An assert is decided once all its probes reported: a fast form at once, the others kept
    for one confined child at the end."""

    def __init__(self, secret: dict, owner: list[int], codes: list, wfd: int) -> None:
        self.asserts = secret["asserts"]
        self.n = secret["n_probes"]
        self.owner = owner
        self.codes = codes
        self.wfd = wfd
        self.values: dict[int, bytes] = {}
        self.compared: set[int] = set()  # asserts decided by the candidate's own == (or truth) in the child
        self.nxt = 0  # the probe whose report comes next (n: the end frame)
        self.decided = 0  # asserts decided so far, in order
        self.pending: Optional[tuple[int, str]] = None  # a probe waiting for the child's own comparison
        self.odd: list[str] = []
        self.slow: list[tuple] = []

    @property
    def ended(self) -> bool:
        return self.nxt > self.n

    def take(self, kind: bytes, index: int, payload: bytes) -> Optional[_Verdict]:
        """One report frame; the verdict when it ends the check (a failure, a protocol error), else None."""
        from coderank_evalplus.engine.sandbox.report import COMPARED, NEED, VALUE

        if index != self.nxt or self.nxt > self.n:
            return False, "report out of order"
        if index == self.n:  # the end frame
            if kind != VALUE or self.pending is not None:
                return False, "report out of protocol"
            self.nxt += 1
            return None
        k = self.owner[index]
        fast = self.asserts[k][1]
        if kind == VALUE and self.pending is None:
            self.values[index] = payload
            self.nxt += 1
        elif kind == NEED and self.pending is None:
            if fast is None or fast[0] not in ("==", "truthy", "falsy"):
                return False, None  # the test's own code would meet an object only the candidate knows
            self.ask_to_compare(index, fast, payload)
        elif kind == COMPARED and self.pending is not None and self.pending[0] == index:
            if not self.compared_as_asserted(k, fast, payload, self.pending[1]):
                return False, None
        else:
            return False, "report out of protocol"
        return self.decide_reported()

    def ask_to_compare(self, index: int, fast: tuple, payload: bytes) -> None:
        """Probe ``index`` returned an object only the candidate knows: the child compares it with the assert's
        literal by its own ``==`` (or takes its truth)."""
        self.pending = (index, payload.decode("utf-8", "replace")[:200])
        msg = pickle.dumps(("==", fast[2]) if fast[0] == "==" else ("truth", None), protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(self.wfd, len(msg).to_bytes(4, "little") + msg)

    def compared_as_asserted(self, k: int, fast: tuple, payload: bytes, what: str) -> bool:
        """The child's comparison for assert ``k``, whose probe returned a value the child could not send (``what``:
        why, in the child's words): whether it holds (then the assert is decided by it)."""
        if (payload == b"\x01") != (fast[0] != "falsy"):
            return False
        self.compared.add(k)
        if len(self.odd) < 3:
            self.odd.append(f"assert {k} got a {what}; its own "
                            f"{'==' if fast[0] == '==' else 'truth'} decided")
        self.pending = None
        self.nxt += 1
        return True

    def decide_reported(self) -> Optional[_Verdict]:
        """Decide, in order, the asserts whose probes have all reported: a fast form now (a failure ends the
        check), the others kept for the end."""
        from coderank_evalplus.engine.sandbox.verdicts import _fast_verdict
        from coderank_evalplus.types import PASS, RETURNED

        while self.decided < len(self.asserts):
            indices, form, _ = self.asserts[self.decided]
            if indices and indices[-1] >= self.nxt:
                break  # a probe of it has not reported yet
            if self.decided not in self.compared and form is not None and form[0] != "runs":
                p = indices[form[1]]
                if _fast_verdict(form, (RETURNED, 0), self.values.get(p), False) != PASS:
                    return False, None
            elif form is None:
                self.slow.append((self.decided, self.codes[self.decided], indices, False,
                                  {p: (RETURNED, 0) for p in indices}, {p: self.values.get(p) for p in indices}))
            self.decided += 1
        return None

    def verdict(self) -> _Verdict:
        """After the end frame: every assert decided, the slow ones in one confined child."""
        from coderank_evalplus.engine.sandbox.verdicts import slow_verdicts
        from coderank_evalplus.types import PASS

        if self.decided < len(self.asserts):
            return False, "report ended early"
        if self.slow and any(v[0] != PASS for v in slow_verdicts(self.slow, 3.0, 5.0).values()):
            return False, None
        return True, ("; ".join(self.odd) if self.odd else None)


def referee_original(request: dict, rfd: int, wfd: int) -> _Verdict:
    """Read one check child's reports (``observe``) and decide its asserts: fast forms as their probes arrive
    (the first failure ends the check), the others at the end in one confined child (``verdicts.slow_verdicts``).
    Returns (passed, why suspicious or None)."""
    from coderank_evalplus.engine.sandbox.report import FrameReader, ReportError

    referee = _OriginalReferee(*_secret(request["plan"]), wfd)
    reader = FrameReader()
    while not referee.ended:
        chunk = os.read(rfd, 1 << 16)
        if not chunk:
            return False, None  # the child stopped (exception, exit, time limit) before the end
        try:
            for kind, index, payload in reader.feed(chunk):
                answer = referee.take(kind, index, payload)
                if answer is not None:
                    return answer
                if referee.ended:
                    break
        except ReportError as exc:
            return False, str(exc)
    return referee.verdict()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
