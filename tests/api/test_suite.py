"""Suite files (coderank_evalplus/api/suite.py): the keys that reach each entry's rerank."""

import pytest


def test_suite_pass_at_k_rule_is_read_checked_and_fingerprinted(tmp_path):
    from coderank_evalplus.api.suite import SuiteError, fingerprint, load_suite

    (tmp_path / "s.jsonl").write_text("")
    (tmp_path / "t.jsonl").write_text("")
    entry = '[[entry]]\nname = "m"\nsolutions = "s.jsonl"\ntests = "t.jsonl"\n'
    (tmp_path / "default.toml").write_text(entry)
    (tmp_path / "codet.toml").write_text('pass_at_k_rule = "codet"\n' + entry)
    default, codet = load_suite(tmp_path / "default.toml"), load_suite(tmp_path / "codet.toml")
    assert (default.pass_at_k_rule, codet.pass_at_k_rule) == ("ranked", "codet")
    # a folder made under another rule is made again (its table differs); the default's fingerprint is unchanged
    (e,) = default.entries
    assert fingerprint(e, ["codet"], False, pass_at_k_rule="codet") != fingerprint(e, ["codet"], False)
    (tmp_path / "bad.toml").write_text('pass_at_k_rule = "unbiased"\n' + entry)
    with pytest.raises(SuiteError, match="bad.toml: pass_at_k_rule: expected ranked or codet"):
        load_suite(tmp_path / "bad.toml")
