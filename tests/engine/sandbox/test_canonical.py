"""Digests of returned values: stable across versions (the cache and results folders hold them)."""

import random
from hashlib import blake2b

import pytest

from coderank_evalplus.engine.sandbox import canonical
from coderank_evalplus.engine.sandbox.canonical import digest_value

# written by the engine before digests were hashed in one call (commit 5a55363)
PINNED = [("0", 5725984527538835409), ("-7", 8293991043650855280), ("2**70", 8364219109836357859),
          ("True", 8019877591644720897), ("None", 8469165195741662953), ("'abc'", 9108638804307068539),
          ("2.0", 592067906908243375), ("2.5", 5453199383833840987),
          ("[1, (2, 'x'), {3: None}]", 5629595877369915984), ("{1, 2}", 7119549320830953438)]


@pytest.mark.parametrize("text,digest", PINNED)
def test_digests_are_the_ones_stored_before(text, digest):
    assert digest_value(eval(text)) == digest  # noqa: S307 - the test's own literals


def _piecewise(value) -> int:
    h = blake2b(digest_size=8)
    canonical._feed(h.update, value, set(), 0)
    return int.from_bytes(h.digest(), "little") >> 1


def _value(rnd: random.Random, depth: int = 0):
    k = rnd.randrange(9 if depth < 3 else 5)
    if k == 0:
        return rnd.randrange(-10**12, 10**12)
    if k == 1:
        return rnd.choice([rnd.random(), 3.0, float("inf"), -0.0])
    if k == 2:
        return "".join(rnd.choice("ab€\n") for _ in range(rnd.randrange(5)))
    if k == 3:
        return rnd.choice([True, False, b"x"])
    if k == 4:
        return None
    if k == 5:
        return [_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    if k == 6:
        return tuple(_value(rnd, depth + 1) for _ in range(rnd.randrange(4)))
    if k == 7:
        return {rnd.randrange(5): _value(rnd, depth + 1) for _ in range(rnd.randrange(3))}
    return {rnd.randrange(9) for _ in range(rnd.randrange(4))}


def test_one_call_hash_equals_the_piece_by_piece_canonical_text():
    rnd = random.Random(0)
    cyclic: list = [1]
    cyclic.append(cyclic)
    values = [_value(rnd) for _ in range(2000)] + [2**50000, 1 + 2j, cyclic, float("nan"), "\ud800"]
    assert all(digest_value(v) == _piecewise(v) for v in values)
