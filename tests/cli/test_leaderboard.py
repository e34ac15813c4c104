"""``coderank-evalplus leaderboard``'s output folder: never a folder of the user's own."""

from __future__ import annotations

from coderank_evalplus.cli.console import main


def test_leaderboard_refuses_a_folder_it_did_not_write(tmp_path, capsys):
    """The page and tables would replace a user's index.html: refused before any input is read."""
    mine = tmp_path / "site"
    mine.mkdir()
    (mine / "index.html").write_text("my page")
    assert main(["leaderboard", str(tmp_path / "no-such-results"), "--output", str(mine)]) == 2
    assert "holds files this tool did not write (index.html)" in capsys.readouterr().err
    assert [p.name for p in mine.iterdir()] == ["index.html"] and (mine / "index.html").read_text() == "my page"
