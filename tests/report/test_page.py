"""The report page in a real browser: headless Chromium renders index.html; the table rows and every figure are
there, the figures decode, nothing needs sideways scrolling, and the screenshot is not blank."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from tests.conftest import needs_data

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = [needs_data, pytest.mark.skipif(CHROMIUM is None, reason="no chromium (.ci/run installs Debian's)")]
WIDTH = 1280
# Test-side probe appended to a copy of the page (the page itself has no script): it reports what the browser laid out.
PROBE = """<script>
window.addEventListener('load', () => {
  const imgs = [...document.images];
  const out = {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
               rows: [...document.querySelectorAll('table.leaderboard tbody tr')].map(r => r.cells[0].textContent + ' | ' + r.cells[1].textContent),
               figures: imgs.map(i => i.closest('figure').id), decoded: imgs.filter(i => i.naturalWidth > 0).length,
               widest: Math.max(...[...document.querySelectorAll('table, img')].map(e => e.getBoundingClientRect().right))};
  const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def _chromium(*args: str, user_dir) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             f"--user-data-dir={user_dir}", f"--window-size={WIDTH},2400", "--virtual-time-budget=10000"]
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120)


def test_page_renders_rows_and_every_figure(real_leaderboard, tmp_path):
    out = real_leaderboard["out"]
    page = (out / "index.html").read_text()
    assert "http://" not in page and "https://" not in page  # nothing fetched at view time
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", PROBE + "</body>"))
    proc = _chromium("--dump-dom", probed.as_uri(), user_dir=tmp_path / "profile1")
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    probe = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    lb = json.loads((out / "leaderboard.json").read_text())
    expected_rows = [f"{r['name']} | {r['tests_label']}" for r in lb["rows"]]
    assert probe["rows"] == expected_rows * 2  # the base table and the plus table
    figure_files = sorted(p.stem for p in (out / "figures").glob("*.png"))
    assert sorted(f.removeprefix("fig-") for f in probe["figures"]) == figure_files
    assert probe["decoded"] == len(figure_files)
    assert probe["scrollWidth"] <= probe["innerWidth"] and probe["widest"] <= probe["innerWidth"]


def test_screenshot_is_not_blank(real_leaderboard, tmp_path):
    from matplotlib.image import imread

    shot = tmp_path / "page.png"
    proc = _chromium(f"--screenshot={shot}", (real_leaderboard["out"] / "index.html").as_uri(),
                     user_dir=tmp_path / "profile2")
    assert shot.is_file(), proc.stderr[-2000:]
    pixels = imread(shot)[..., :3]
    assert pixels.shape[1] == WIDTH
    ink = (pixels.mean(axis=2) < 0.9).mean()  # share of pixels that are not (near) white
    assert ink > 0.02 and np.unique(pixels.reshape(-1, 3), axis=0).shape[0] > 50
