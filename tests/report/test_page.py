"""The report page in a real browser: headless Chromium renders index.html; the table rows and every figure are
there, the figures decode, nothing needs sideways scrolling, and the screenshot is not blank."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from tests.conftest import needs_data

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = [needs_data, pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium (.ci/run installs Debian's)")]
WIDTH = 1280
# Test-side probe appended to a copy of the page (the page itself has no script): it reports what the browser laid out.
PROBE = """<script>
window.addEventListener('load', () => {
  const imgs = [...document.images];
  const out = {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
               rows: [...document.querySelectorAll('table.leaderboard tbody tr')]
                 .map(r => r.cells[0].textContent + ' | ' + r.cells[1].textContent),
               figures: imgs.map(i => i.closest('figure').id), decoded: imgs.filter(i => i.naturalWidth > 0).length,
               widest: Math.max(...[...document.querySelectorAll('table, img')]
                 .map(e => e.getBoundingClientRect().right))};
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


# Clicks a models table's headers and reports the order of its first column after each click.
SORT_PROBE = """<script>
window.addEventListener('load', () => {
  const t = document.querySelector('table.models'), th = [...t.querySelectorAll('thead th')];
  const names = () => [...t.tBodies[0].rows].map(r => r.cells[0].textContent);
  const out = {initial: names(), heads: th.map(h => h.textContent)};
  const col = th.findIndex(h => h.textContent === 'codet');
  th[col].click(); out.codet_first = names(); th[col].click(); out.codet_second = names();
  th[0].click(); out.name_first = names();
  out.figures = [...document.images].map(i => i.closest('figure').id);
  out.decoded = [...document.images].filter(i => i.naturalWidth > 0).length;
  out.scrollWidth = document.documentElement.scrollWidth; out.innerWidth = window.innerWidth;
  const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def _probe(page: str, probe: str, tmp_path) -> dict:
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", probe + "</body>"))
    proc = _chromium("--dump-dom", probed.as_uri(), user_dir=tmp_path / "profile")
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def test_models_table_sorts_on_click_and_its_figures_render(tmp_path):
    """A hand-made models comparison: three models whose codet order differs from their random order."""
    from coderank_evalplus.report import figures, page
    from coderank_evalplus.report.board import Leaderboard
    from coderank_evalplus.report.models import compare_models, summary
    from tests.report.test_models import _row

    rng = np.random.default_rng(0)
    base = rng.random(40) * 0.4
    rows = [_row("alpha", {"random": base + 0.5, "codet": base}),
            _row("beta", {"random": base + 0.25, "codet": base + 0.5}),
            _row("gamma", {"random": base, "codet": base + 0.25})]
    lb = Leaderboard(config={"methods": ["random", "codet"], "compare_to": ["random"], "n_resamples": 1000,
                             "seed": 0, "draws": 20})
    lb.models = compare_models(rows, ["random", "codet"], 1000, 0)
    lb.models_summary = summary([], ["random", "codet"])
    figs = figures.make_all(lb, tmp_path / "figures")
    html = page.render(lb, figs)
    assert "http://" not in html and "https://" not in html
    probe = _probe(html, SORT_PROBE, tmp_path)
    assert probe["initial"] == ["alpha", "beta", "gamma"]  # the random pick's order
    assert probe["codet_first"] == ["beta", "gamma", "alpha"]  # first click: best first
    assert probe["codet_second"] == ["alpha", "gamma", "beta"]
    assert probe["name_first"] == ["gamma", "beta", "alpha"]
    assert sorted(f.removeprefix("fig-") for f in probe["figures"]) == sorted(p.stem for p in figs.values())
    assert len(figs) == 2 and probe["decoded"] == 2  # rank intervals and pairwise heatmap at N = 10
    assert probe["scrollWidth"] <= probe["innerWidth"]


def test_models_section_leads_the_real_page(models_leaderboard, tmp_path):
    out = models_leaderboard["out"]
    html = (out / "index.html").read_text()
    assert html.index("Which model wins?") < html.index("pass@1 on base tests")
    probe = _probe(html, SORT_PROBE, tmp_path)
    assert probe["initial"] == ["codegen-16B", "codegen-16B-copy"]
    assert probe["name_first"] == ["codegen-16B-copy", "codegen-16B"]
    assert (sorted(f.removeprefix("fig-") for f in probe["figures"])
            == sorted(p.stem for p in (out / "figures").glob("*.png")))
    assert probe["decoded"] == len(probe["figures"]) and probe["scrollWidth"] <= probe["innerWidth"]


# Reports the page's visible text, as the browser laid it out.
TEXT_PROBE = """<script>
window.addEventListener('load', () => {
  const out = {text: document.body.innerText};
  const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.parametrize("n", [3, 25])
def test_a_small_comparison_reads_not_meaningful_in_the_browser(n, tmp_path):
    """What a reader sees: at 3 problems the wording and no p-value; at 25 the p-values and the count."""
    from coderank_evalplus.report import page
    from coderank_evalplus.stats import MIN_PROBLEMS
    from tests.report.test_small_n import P_VALUE, _leaderboard

    lb, _ = _leaderboard(n)
    text = html.unescape(_probe(page.render(lb, {}), TEXT_PROBE, tmp_path)["text"])  # the dump escapes < as &lt;
    if n < MIN_PROBLEMS:
        assert f"n = {n} < {MIN_PROBLEMS}: no interval or p-value" in text
        assert f"n = {n} < {MIN_PROBLEMS}: no rank interval, τ or p-value" in text
        assert not P_VALUE.search(text)
    else:
        assert P_VALUE.search(text) and f"(n = {n} problems)" in text and f"< {MIN_PROBLEMS}: no" not in text
