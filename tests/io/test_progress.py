"""The one progress bar: tqdm's on a terminal; in a log file plain lines, one an interval, the last always there,
with no redraws and no remaining-time estimate."""

from __future__ import annotations

import io

from coderank_evalplus.io import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_in_a_log_file_a_bar_is_a_plain_line_an_interval_and_its_last(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(progress, "_clock", lambda: now[0])
    log = io.StringIO()
    bar = progress.progress_bar(total=100, desc="executing", unit="prog", file=log)
    for _ in range(100):
        now[0] += 1.0  # one update a second: a line every LOG_INTERVAL_S updates
        bar.update(1)
    bar.close()
    text = log.getvalue()
    lines = text.splitlines()
    assert "\r" not in text and "<" not in text and "it/s" not in text and "prog/s" not in text  # no ETA, no rate
    interval = int(progress.LOG_INTERVAL_S)
    shown = [int(line.split(":")[1].split("/")[0]) for line in lines]
    assert shown == [0, *range(interval, 100, interval), 100], lines
    assert all(line.startswith("executing: ") and " prog, " in line and line.endswith("elapsed") for line in lines)


def test_a_postfix_shows_on_the_next_line_and_a_silent_bar_writes_nothing(monkeypatch):
    monkeypatch.setattr(progress, "_clock", lambda: 0.0)
    log = io.StringIO()
    bar = progress.progress_bar(total=4, desc="run", unit="problem", file=log)
    bar.update(4)
    bar.set_postfix_str("generated 4/4, executed 4, judged 4", refresh=True)  # held back: same instant
    bar.close()
    assert log.getvalue().splitlines()[-1].endswith("elapsed, generated 4/4, executed 4, judged 4")
    quiet = io.StringIO()
    assert list(progress.progress_bar(range(3), enabled=False, file=quiet)) == [0, 1, 2]
    assert quiet.getvalue() == ""


def test_on_a_terminal_it_is_tqdms_bar():
    screen = _Terminal()
    bar = progress.progress_bar(total=3, desc="judging", unit="prog", file=screen)
    bar.update(3)
    bar.close()
    assert "\r" in screen.getvalue() and "100%|" in screen.getvalue()
