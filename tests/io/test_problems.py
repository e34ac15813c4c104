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
