"""Hostile candidates given to ``pick`` (issue 48): they decide nothing and take nothing down.

One ``Picker`` gets every forger of ``forgers.py`` and every hostile program of ``programs.py`` (those that need a
network listener aside) beside one right candidate, for a prompt whose examples are the only tests. The right one
is the pick, alone in its group; no hostile candidate passes an example; nothing outside the sandbox changed; no
process of theirs outlives the pick; and the same ``Picker`` picks the next problem as if nothing had happened.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path

import psutil
import pytest

from coderank_evalplus.api import Picker
from tests.hostile.forgers import ENGINE_FORGERS, GOOD
from tests.hostile.programs import PROGRAMS

PROMPT = ('def add(a, b):\n    """Add.\n    >>> add(1, 2)\n    3\n    >>> add(2, 2)\n    4\n    >>> add(-1, 1)\n'
          '    0\n    """\n')


def _tree(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}


@pytest.mark.slow
def test_hostile_candidates_decide_nothing_and_take_nothing_down(tmp_path, monkeypatch):
    canary = tmp_path / "canary"
    (canary / "inner").mkdir(parents=True)
    (canary / "keep.txt").write_text("do not touch\n")
    before = _tree(canary)
    tmp_target = Path("/tmp") / f"coderank_pick_hostile_{uuid.uuid4().hex}"
    subst = {"@CANARY_DIR@": str(canary), "@CANARY_FILE@": str(canary / "keep.txt"), "@TMP_TARGET@": str(tmp_target)}
    hostile = []
    for h in PROGRAMS:
        src = h.source
        for k, v in subst.items():
            src = src.replace(k, v)
        if "@" not in src.replace("@property", ""):  # the network programs need listeners: test_hostile.py has them
            hostile.append((h.name, src))
    hostile += [(name, src) for name, src in sorted(ENGINE_FORGERS.items()) if name != "always_equal"]
    candidates = [src for _, src in hostile] + [GOOD]
    marker = uuid.uuid4().hex
    monkeypatch.setenv("EVALPLUS_MAX_MEMORY_BYTES", str(512 * 1024 * 1024))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("CODERANK_HOSTILE_MARKER", marker)
    with Picker(workers=2) as picker:
        choice = picker.pick(PROMPT, candidates)
        good = len(candidates) - 1
        assert choice.index == good and choice.group == [good], [hostile[c][0] for c in choice.group if c < good]
        examples = [e for e in choice.evidence if e.kind == "example"]
        assert len(examples) == 3 and all(e.pick_passes and e.agree == 1 for e in examples)
        # the same workers (or their replacements) go on: the next problem is picked as usual
        after = picker.pick(PROMPT.replace("add", "plus"), ["    return a - b\n", "    return a + b\n"])
        assert after.index == 1 and after.group == [1]
    assert _tree(canary) == before and not tmp_target.exists()
    strays = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.pid != os.getpid() and proc.environ().get("CODERANK_HOSTILE_MARKER") == marker \
                    and proc.status() != psutil.STATUS_ZOMBIE:
                strays.append((proc.pid, proc.name()))
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    assert not strays
