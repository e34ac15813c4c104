from pathlib import Path

import pytest

from coderank_evalplus.io.problems import DataNotFoundError, canonical_dataset, load_problems
from tests.conftest import SHARED_DATA, needs_data


def test_dataset_names():
    assert canonical_dataset("HumanEval_Plus") == "humaneval+"
    assert canonical_dataset("mbpp_plus") == "mbpp+"
    with pytest.raises(ValueError, match="unknown dataset"):
        canonical_dataset("apps")


@needs_data
def test_humaneval_plus_from_data_dir(humaneval_problems):
    assert len(humaneval_problems) == 164
    p = humaneval_problems["HumanEval/0"]
    assert p.entry_point == "has_close_elements" and p.has_evalplus_inputs and p.base_input and p.plus_input
    assert p.trial_tests and all(t.startswith("assert has_close_elements(") for t in p.trial_tests)
    assert ">>>" not in p.test_prompt_body and "def has_close_elements" in p.test_prompt_body


@needs_data
def test_mbpp_plus_from_data_dir():
    probs = load_problems("mbpp", str(SHARED_DATA))
    assert len(probs) == 378
    p = probs["Mbpp/2"]
    assert p.dataset == "mbpp" and p.trial_tests and "similar_elements" in p.trial_tests[0]


def test_original_humaneval_needs_no_download():
    probs = load_problems("humaneval-original")
    assert len(probs) == 164 and "check(" in probs["HumanEval/3"].original_test


def test_missing_data_dir_is_a_clear_error(tmp_path):
    with pytest.raises(DataNotFoundError, match="HumanEvalPlus"):
        load_problems("humaneval", str(tmp_path))


@needs_data
def test_select_problems_follows_the_dataset_order(humaneval_problems):
    from coderank_evalplus.io.problems import describe_selection, select_problems, selection_note

    file_order = ["HumanEval/10", "HumanEval/1", "HumanEval/100", "HumanEval/0", "HumanEval/3", "HumanEval/2"]
    assert select_problems(humaneval_problems, file_order, 3) == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]
    assert select_problems(humaneval_problems, list(reversed(file_order)), 3) == \
        select_problems(humaneval_problems, file_order, 3)
    # the dataset's first N: a problem missing from the input is not replaced by a later one
    assert select_problems(humaneval_problems, file_order, 5) == ["HumanEval/0", "HumanEval/1", "HumanEval/2",
                                                                  "HumanEval/3"]
    assert select_problems(humaneval_problems, file_order, 0) == [f"HumanEval/{i}" for i in (0, 1, 2, 3, 10, 100)]
    assert select_problems(humaneval_problems, None, 12) == [f"HumanEval/{i}" for i in range(12)]
    assert len(select_problems(humaneval_problems)) == 164
    with pytest.raises(ValueError, match="limit: expected an integer ≥ 0"):
        select_problems(humaneval_problems, None, -1)
    assert describe_selection([f"HumanEval/{i}" for i in range(12)], humaneval_problems) == \
        "HumanEval/0 … HumanEval/11"
    assert describe_selection(["HumanEval/0", "HumanEval/2"], humaneval_problems) == "HumanEval/0, HumanEval/2"
    note = selection_note(humaneval_problems, select_problems(humaneval_problems, file_order, 5), 5, file_order)
    assert note == ("limit 5: 4 of 6 problems, the dataset's first (HumanEval/0 … HumanEval/3); "
                    "without solutions: HumanEval/4")
    assert selection_note(humaneval_problems, file_order, None, file_order) is None


# ----------------------------------------------------------------------------------------------------------------
# evalplus.evaluate --rerank reads the very file evalplus reads, hashed by evalplus's own function
# ----------------------------------------------------------------------------------------------------------------

HE_GZ = SHARED_DATA / "evalplus_humanevalplus_release" / "v0.1.10" / "HumanEvalPlus.jsonl.gz"
HE_OLD_GZ = SHARED_DATA / "evalplus_humanevalplus_release" / "v0.1.9" / "HumanEvalPlus.jsonl.gz"
MBPP_GZ = SHARED_DATA / "evalplus_mbppplus_release" / "v0.2.0" / "MbppPlus.jsonl.gz"


def gunzip(src, dst):
    import gzip

    with gzip.open(src, "rb") as fh:
        dst.write_bytes(fh.read())
    return dst


def evalplus_state(monkeypatch, tmp_path, source: str) -> str:
    """Put evalplus in one of the states a user may have: ``cache`` (its own cache of the release, as
    ``make_cache`` writes it), ``override_jsonl`` / ``override_gz`` (``*_OVERRIDE_PATH`` at a gunzipped or the
    release file), ``coderank_data`` (no file of its own: only CODERANK_DATA). Returns the dataset."""
    import evalplus.data.humaneval as he
    import evalplus.data.mbpp as mb
    import evalplus.data.utils as eu

    dataset, kind = source.split(":")
    gz, cached = ((HE_GZ, "HumanEvalPlus-v0.1.10.jsonl") if dataset == "humaneval"
                  else (MBPP_GZ, "MbppPlus-v0.2.0.jsonl"))
    cache = tmp_path / "evalplus_cache"
    cache.mkdir()
    monkeypatch.setattr(eu, "CACHE_DIR", str(cache))
    monkeypatch.setattr(he, "HUMANEVAL_OVERRIDE_PATH", None)
    monkeypatch.setattr(mb, "MBPP_OVERRIDE_PATH", None)
    monkeypatch.setenv("CODERANK_DATA", str(SHARED_DATA))  # set in every state: it must not win over evalplus's
    module, attr = (he, "HUMANEVAL_OVERRIDE_PATH") if dataset == "humaneval" else (mb, "MBPP_OVERRIDE_PATH")
    if kind == "cache":
        gunzip(gz, cache / cached)
    elif kind == "override_jsonl":
        monkeypatch.setattr(module, attr, str(gunzip(gz, tmp_path / "plus.jsonl")))
    elif kind == "override_gz":
        monkeypatch.setattr(module, attr, str(gz))
    else:
        assert kind == "coderank_data"
    return dataset


SOURCES = ["humaneval:cache", "humaneval:override_jsonl", "humaneval:override_gz", "humaneval:coderank_data",
           "mbpp:cache", "mbpp:override_jsonl", "mbpp:coderank_data"]


@needs_data
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.slow
def test_rerank_reads_the_file_evalplus_reads(source, monkeypatch, tmp_path):
    import evalplus.evaluate as ev

    from coderank_evalplus.io.problems import evalplus_reads, file_for_evalplus, load_evalplus_problems

    dataset = evalplus_state(monkeypatch, tmp_path, source)
    given = file_for_evalplus(dataset)
    assert (given is not None) == source.endswith("coderank_data")  # CODERANK_DATA only instead of a download
    problems = load_evalplus_problems(dataset, given)
    with evalplus_reads(dataset, given):  # as evalplus.evaluate computes the hash it writes into its results
        loaded = ev.get_human_eval_plus() if dataset == "humaneval" else ev.get_mbpp_plus()
        evalplus_hash = ev.get_human_eval_plus_hash() if dataset == "humaneval" else ev.get_mbpp_plus_hash()
    assert list(problems) == list(loaded)
    assert {p.dataset_hash for p in problems.values()} == {evalplus_hash}
    # evalplus's state is left as it was
    assert file_for_evalplus(dataset) == given


@needs_data
def test_one_release_two_hashes_both_known(monkeypatch, tmp_path):
    """Problems read from a .gz release (--data-dir / CODERANK_DATA) know the hash evalplus gives the same
    release read from its cache or a gunzipped override, and not another version's."""
    import evalplus.data.humaneval as he

    from coderank_evalplus.io.problems import dataset_hash_aliases

    ours = load_problems("humaneval", str(SHARED_DATA))["HumanEval/0"]
    monkeypatch.setattr(he, "HUMANEVAL_OVERRIDE_PATH", str(gunzip(HE_GZ, tmp_path / "he.jsonl")))
    assert he.get_human_eval_plus_hash() in ours.dataset_hash_aliases
    assert he.get_human_eval_plus_hash() != ours.dataset_hash
    monkeypatch.setattr(he, "HUMANEVAL_OVERRIDE_PATH", str(gunzip(HE_OLD_GZ, tmp_path / "old.jsonl")))
    assert he.get_human_eval_plus_hash() not in ours.dataset_hash_aliases | {ours.dataset_hash}
    assert dataset_hash_aliases(tmp_path / "old.jsonl") == frozenset()  # a decompressed file has one form


# ----------------------------------------------------------------------------------------------------------------
# local data first, silently; evalplus's download only when none is configured, and said only when it happened
# ----------------------------------------------------------------------------------------------------------------

def _no_local_evalplus(monkeypatch, tmp_path):
    """evalplus with no file of its own (an empty cache, no override path) and no CODERANK_DATA."""
    import evalplus.data.humaneval as he
    import evalplus.data.mbpp as mb
    import evalplus.data.utils as eu

    monkeypatch.setattr(eu, "CACHE_DIR", str(tmp_path / "evalplus_cache"))
    for module, attr in ((he, "HUMANEVAL_OVERRIDE_PATH"), (mb, "MBPP_OVERRIDE_PATH")):
        monkeypatch.setattr(module, attr, None)
        monkeypatch.delenv(attr, raising=False)
    monkeypatch.delenv("CODERANK_DATA", raising=False)
    return he, mb


@needs_data
@pytest.mark.parametrize("config", ["coderank_data", "data_dir", "override_env"])
def test_configured_local_data_is_read_without_a_download(config, monkeypatch, tmp_path, capfd):
    from coderank_evalplus.io.problems import load_problems_or_original

    he, mb = _no_local_evalplus(monkeypatch, tmp_path)

    def no_download(url, path):
        raise AssertionError(f"a download was attempted: {url}")

    monkeypatch.setattr(he, "make_cache", no_download)
    monkeypatch.setattr(mb, "make_cache", no_download)
    data_dir = None
    if config == "coderank_data":
        monkeypatch.setenv("CODERANK_DATA", str(SHARED_DATA))
    elif config == "data_dir":
        data_dir = str(SHARED_DATA)
    else:  # the variables evalplus reads when it is imported (set before, as a user sets them)
        for module, attr, path in ((he, "HUMANEVAL_OVERRIDE_PATH", HE_GZ), (mb, "MBPP_OVERRIDE_PATH", MBPP_GZ)):
            monkeypatch.setenv(attr, str(path))
            monkeypatch.setattr(module, attr, str(path))
    assert load_problems_or_original("humaneval", data_dir)[0] == "humaneval"
    assert len(load_problems("mbpp", data_dir)) == 378
    out, err = capfd.readouterr()
    assert "Download" not in out + err


def test_offline_with_nothing_configured_says_no_download_it_did_not_do(monkeypatch, tmp_path, capfd):
    """Offline, nothing local: evalplus's "Downloading dataset from …" is not printed for a download that failed;
    HumanEval falls back to the human-eval package's, MBPP+ is an error naming the address tried."""
    import wget

    from coderank_evalplus.io.problems import load_problems_or_original

    _no_local_evalplus(monkeypatch, tmp_path)

    def offline(url, out=None, bar=None):
        raise OSError("[Errno 111] Connection refused")

    monkeypatch.setattr(wget, "download", offline)
    assert load_problems_or_original("humaneval")[0] == "humaneval-original"
    with pytest.raises(DataNotFoundError, match=r"MBPP\+ \(downloading https://github.com/evalplus/.*Offline\?"):
        load_problems("mbpp")
    out, err = capfd.readouterr()
    assert "Download" not in out + err


def test_each_frontend_names_its_own_setting_for_local_data(monkeypatch, tmp_path):
    """Offline, the hint names the setting of the front end that was run: evalplus.evaluate has no --data-dir (its own
    override variable, or CODERANK_DATA), lm-eval takes data_dir in --metadata."""
    import wget

    _no_local_evalplus(monkeypatch, tmp_path)

    def offline(url, out=None, bar=None):
        raise OSError("[Errno 111] Connection refused")

    monkeypatch.setattr(wget, "download", offline)
    with pytest.raises(DataNotFoundError) as info:
        load_problems("humaneval")
    exc = info.value
    assert "Point --data-dir / CODERANK_DATA" in str(exc) == exc.worded_for("cli")
    evalplus, lm_eval = exc.worded_for("evalplus"), exc.worded_for("lm_eval")
    assert "HUMANEVAL_OVERRIDE_PATH" in evalplus and "CODERANK_DATA" in evalplus and "--data-dir" not in evalplus
    assert """--metadata '{"data_dir": """ in lm_eval and "--data-dir" not in lm_eval
    for text in (evalplus, lm_eval):
        assert text.startswith("could not load HumanEval+ (downloading https://github.com/evalplus/")
    with pytest.raises(DataNotFoundError) as info:
        load_problems("mbpp")
    assert "MBPP_OVERRIDE_PATH" in info.value.worded_for("evalplus")
    monkeypatch.setenv("CODERANK_DATA", str(tmp_path / "absent"))
    with pytest.raises(DataNotFoundError) as info:
        load_problems("humaneval")
    assert info.value.worded_for("evalplus").endswith("absent does not exist (from CODERANK_DATA)")
    assert "--data-dir" not in info.value.worded_for("lm_eval")


@needs_data
def test_a_download_that_happened_is_said_on_stderr(monkeypatch, tmp_path, capfd):
    """evalplus's own line goes to stderr, where it cannot mix with a command's output (a table, --json -)."""
    he, _ = _no_local_evalplus(monkeypatch, tmp_path)

    def download(url, path):
        print(f"Downloading dataset from {url}")
        (tmp_path / "evalplus_cache").mkdir(exist_ok=True)
        gunzip(HE_GZ, Path(path))

    monkeypatch.setattr(he, "make_cache", download)
    assert len(load_problems("humaneval")) == 164
    out, err = capfd.readouterr()
    assert "Download" not in out and err.startswith("Downloading dataset from https://github.com/evalplus/")


def test_configured_local_data_that_is_missing_is_an_error_not_another_dataset(monkeypatch, tmp_path):
    from coderank_evalplus.io.problems import load_problems_or_original

    monkeypatch.setenv("CODERANK_DATA", str(tmp_path / "absent"))  # a relative path from another folder, say
    with pytest.raises(DataNotFoundError, match="absent does not exist"):
        load_problems_or_original("humaneval")
    with pytest.raises(DataNotFoundError, match="no HumanEvalPlus v0.1.10 file under"):
        load_problems_or_original("humaneval", str(tmp_path))
