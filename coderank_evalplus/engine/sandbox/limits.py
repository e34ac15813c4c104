"""Time limits of one execution, and the memory cap evalplus uses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

# Part of every cache key: bumped whenever the same program and test can get a different result from the engine
# (2: candidates compiled as plain modules, no longer inheriting this package's ``from __future__`` flags;
# 3: verdicts decided outside the candidate's child from its probes' values, ``sandbox/verdicts.py``).
SEMANTICS = "sem=3"


@dataclass(frozen=True)
class Limits:
    """Time limits of one execution, in seconds. ``cpu`` is per test; ``wall`` only catches sleepers."""

    cpu: float = 0.1
    import_cpu: float = 1.0
    wall_factor: float = 10.0
    wall_min: float = 1.0

    @property
    def wall(self) -> float:
        return max(self.wall_min, self.wall_factor * self.cpu)

    @property
    def import_wall(self) -> float:
        return max(self.wall_min, self.wall_factor * self.import_cpu)

    def key(self) -> str:
        return f"cpu={self.cpu:g},import={self.import_cpu:g},wall={self.wall:g},{SEMANTICS}"


def max_memory_bytes() -> Optional[int]:
    """The memory cap evalplus uses (``EVALPLUS_MAX_MEMORY_BYTES``, default 4 GiB)."""
    from evalplus.eval import query_maximum_memory_bytes

    return query_maximum_memory_bytes()
