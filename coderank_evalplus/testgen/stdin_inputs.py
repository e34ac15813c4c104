"""Inputs grown for a stdin program from its public inputs: the tokens mutated where the format holds.

An input is read as lines of whitespace-separated tokens. A new input is a seed (a public input, or an input grown
so far) with 1..3 of its tokens changed:

* an integer becomes a nearby value, 0 or 1, twice it, a copy of another integer of its line (equal values: a common
  edge case), or a value drawn between the smallest and largest integers of the seeds (negative only where the seeds
  have a negative integer);
* a decimal number is scaled or shifted;
* a word (anything else) gets a character replaced by one the seeds' words use, two characters swapped, or one
  repeated / dropped -- its length is kept where a number of the input equals it (``N`` then a string of length
  ``N``, a grid's width).

Integers that hold the format are never changed: one equal to the number of tokens of a later line, to the number of
lines after it (``N`` then ``N`` values or ``N`` rows) or to the length of a later word (a grid's width). Lines are
never added or removed. Nothing here knows the problem's constraints: the validity rule of
``mutate.keep_valid_inputs`` (most candidates run without an error on the input) decides which grown inputs are
kept. Written by hand: evalplus's type-aware operators mutate Python values, not the text of an input.

``edges`` derives inputs at the boundaries instead (0, 1, negatives, large values, equal values, sorted lines, one
character words) with the same layout, deterministically: the stdin form of ``testgen/edges.py``.
"""

from __future__ import annotations

import random
import re
import string
from typing import Callable, Hashable, Optional, Sequence, TypeVar

T = TypeVar("T")

MAX_STEPS = 3
MAX_CHARS = 20000  # a grown input longer than this is not kept
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)$")


def _lines(text: str) -> list[list[str]]:
    return [line.split() for line in text.split("\n")]


def _protected(rows: list[list[str]]) -> set[tuple[int, int]]:
    """(line, token) positions of integers that hold the format: counts of a later line's tokens or of the lines
    after them, lengths of a later word."""
    out = set()
    lengths = [len(r) for r in rows]
    for i, row in enumerate(rows):
        later = [n for n in lengths[i + 1:] if n]
        rest = sum(1 for r in rows[i + 1:] if r)
        words = {len(t) for r in rows[i + 1:] for t in r if not (_INT.match(t) or _FLOAT.match(t))}
        for j, tok in enumerate(row):
            if _INT.match(tok):
                v = int(tok)
                if v == rest or v in later or v == sum(later) or v in words:
                    out.add((i, j))
    return out


def _length_bound(rows: list[list[str]]) -> set[int]:
    """Lengths of words that an integer of the input states (a string of length N, a grid's width)."""
    return {int(t) for row in rows for t in row if _INT.match(t) and 0 < int(t) <= 10 ** 6}


def _mutate_int(tok: str, rng: random.Random, lo: int, hi: int, negative: bool) -> str:
    v = int(tok)
    choice = rng.randrange(5)
    if choice == 0:
        v += rng.choice((-2, -1, 1, 2))
    elif choice == 1:
        v = rng.choice((0, 1))
    elif choice == 2:
        v *= 2
    elif choice == 3:
        v = rng.randint(min(lo, v), max(hi, v))
    else:
        v = rng.randint(lo, hi) if hi > lo else v + 1
    if not negative:
        v = abs(v)
    return str(v)


def _mutate_float(tok: str, rng: random.Random) -> str:
    v = float(tok)
    v = rng.choice((v * 2, v / 2, v + 1, v - 1, 0.0))
    return repr(round(v, 6))


def _mutate_word(tok: str, rng: random.Random, alphabet: str, keep_length: bool) -> str:
    chars = list(tok)
    choice = rng.randrange(2 if keep_length or len(chars) < 2 else 4)
    i = rng.randrange(len(chars))
    if choice == 0:
        chars[i] = rng.choice(alphabet)
    elif choice == 1 and len(chars) > 1:
        k = rng.randrange(len(chars))
        chars[i], chars[k] = chars[k], chars[i]
    elif choice == 2:
        chars.insert(i, chars[i])
    elif len(chars) > 1:
        del chars[i]
    return "".join(chars)


def _alphabet(seeds: list[str]) -> str:
    letters = sorted({c for s in seeds for row in _lines(s) for t in row
                      if not (_INT.match(t) or _FLOAT.match(t)) for c in t})
    return "".join(letters) or string.ascii_lowercase


def grow(seeds: list[str], n: int, rng: random.Random) -> list[str]:
    """Up to ``n`` new distinct inputs grown from the ``seeds`` (their texts; none when there are none)."""
    if n <= 0 or not seeds:
        return []
    ints = [int(t) for s in seeds for row in _lines(s) for t in row if _INT.match(t)]
    lo, hi = (min(ints), max(ints)) if ints else (0, 10)
    negative = lo < 0
    alphabet = _alphabet(seeds)
    pool = list(seeds)
    seen = set(seeds)
    out: list[str] = []
    for _ in range(50 * n + 100):
        if len(out) >= n:
            break
        base = rng.choice(pool)
        rows = _lines(base)
        fixed = _protected(rows)
        bound = _length_bound(rows)
        spots = [(i, j) for i, row in enumerate(rows) for j in range(len(row)) if (i, j) not in fixed]
        if not spots:
            continue
        for _ in range(rng.randint(1, MAX_STEPS)):
            i, j = rng.choice(spots)
            tok = rows[i][j]
            if _INT.match(tok):
                others = [t for k, t in enumerate(rows[i]) if k != j and (i, k) not in fixed and _INT.match(t)]
                if others and rng.random() < 0.25:
                    rows[i][j] = rng.choice(others)
                else:
                    rows[i][j] = _mutate_int(tok, rng, lo, hi, negative)
            elif _FLOAT.match(tok):
                rows[i][j] = _mutate_float(tok, rng)
            else:
                rows[i][j] = _mutate_word(tok, rng, alphabet, len(tok) in bound)
        text = "\n".join(" ".join(row) for row in rows)
        if text in seen or len(text) > MAX_CHARS:
            continue
        seen.add(text)
        pool.append(text)
        out.append(text)
    return out


def _edge_rows(rows: list[list[str]], fixed: set[tuple[int, int]], hi: int) -> list[list[list[str]]]:
    """One input's edges, most common first: its free integers (those that do not hold the format) all 0, all 1,
    negated, all large, all equal to the first, each line's sorted and reversed; its free words cut to one
    character, or one character repeated where a number states their length."""
    ints = [(i, j) for i, row in enumerate(rows) for j, t in enumerate(row) if (i, j) not in fixed and _INT.match(t)]
    words = [(i, j) for i, row in enumerate(rows) for j, t in enumerate(row)
             if not (_INT.match(t) or _FLOAT.match(t))]
    bound = _length_bound(rows)

    def with_ints(value) -> list[list[str]]:
        out = [list(r) for r in rows]
        for k, (i, j) in enumerate(ints):
            out[i][j] = str(value(k, int(rows[i][j])))
        return out

    def per_line(reverse: bool) -> list[list[str]]:
        out = [list(r) for r in rows]
        for i in {i for i, _ in ints}:
            cols = [j for ii, j in ints if ii == i]
            for j, v in zip(cols, sorted((int(rows[i][j]) for j in cols), reverse=reverse)):
                out[i][j] = str(v)
        return out

    first = int(rows[ints[0][0]][ints[0][1]]) if ints else 0
    large = max(abs(hi) * 10, 1000)
    out = []
    if ints:
        out += [with_ints(lambda k, v: 0), with_ints(lambda k, v: 1), with_ints(lambda k, v: -abs(v) or -1),
                with_ints(lambda k, v: large), with_ints(lambda k, v: first), per_line(False), per_line(True)]
    if words:
        cut = [list(r) for r in rows]
        for i, j in words:
            tok = rows[i][j]
            cut[i][j] = tok[0] * len(tok) if len(tok) in bound else tok[0]
        out.append(cut)
    return out


def edges(seeds: list[str], n: int) -> list[str]:
    """Up to ``n`` distinct inputs at the edges, none of them a seed: each seed's numbers moved to boundaries, its
    lines, their tokens and the integers that hold the format kept (``_edge_rows``); the seeds' edges
    interleaved, most common edge first. Deterministic."""
    if n <= 0 or not seeds:
        return []
    ints = [int(t) for s in seeds for row in _lines(s) for t in row if _INT.match(t)]
    hi = max(ints, default=10)
    per_seed = []
    for s in seeds:
        rows = _lines(s)
        per_seed.append(["\n".join(" ".join(r) for r in e) for e in _edge_rows(rows, _protected(rows), hi)])
    return interleave(per_seed, n, lambda text: text if len(text) <= MAX_CHARS else None, set(seeds))


def interleave(lists: Sequence[Sequence[T]], n: int, key: Callable[[T], Optional[Hashable]],
               seen: set) -> list[T]:
    """Up to ``n`` items of ``lists`` level by level (the first of every list, then the second, ...), skipping an
    item whose ``key`` is None or already in ``seen`` (which the kept ones join): the order in which edge inputs
    are taken, most common edge first, here and in ``testgen/edges.py``."""
    out: list[T] = []
    for level in range(max((len(items) for items in lists), default=0)):
        for items in lists:
            if level >= len(items):
                continue
            k = key(items[level])
            if k is None or k in seen:
                continue
            seen.add(k)
            out.append(items[level])
            if len(out) >= n:
                return out
    return out
