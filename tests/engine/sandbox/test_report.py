"""The claim of a large output (``report.py``): the child's pickle in parts, the referee's comparison as it comes."""

import pickle

import pytest

from coderank_evalplus.engine.sandbox.report import (
    CLAIM_PART_BYTES,
    END,
    LARGE_VALUE_BYTES,
    PART,
    VALUE,
    ClaimPickler,
    FrameReader,
    claim_matches,
    frame,
    read_reports,
)


class _Pipe:
    """A child's report as the referee reads it, from a real pipe."""

    def __init__(self, data: bytes) -> None:
        import os
        import threading

        self.r, w = os.pipe()

        def write() -> None:
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
            os.close(w)

        self.thread = threading.Thread(target=write)
        self.thread.start()


def _claim_frames(value, index: int = 0) -> bytes:
    """What an honest child writes for a large value: its pickle in parts, then END."""
    from coderank_evalplus.engine.judging.check_child import _ClaimWriter

    sent: list[bytes] = []

    class Channel:
        buf = sent

        @staticmethod
        def flush() -> None:
            pass

    writer = _ClaimWriter()
    writer.start(Channel, index)
    ClaimPickler(writer).dump(value)
    assert writer.sent
    return b"".join(sent) + frame(END, index)


def test_a_claim_goes_in_parts_and_the_referee_reads_only_up_to_the_first_difference():
    value = [str(i) for i in range(3_000_000)]
    data = _claim_frames(value)
    parts = list(FrameReader().feed(data))
    assert [k for k, _, _ in parts[:-1]] == [PART] * (len(parts) - 1) and parts[-1][0] == END
    assert len(parts) > 8 and max(len(p) for _, _, p in parts) <= CLAIM_PART_BYTES  # the child's memory
    assert sum(len(p) for _, _, p in parts) > LARGE_VALUE_BYTES
    payloads = [p for _, _, p in parts[:-1]]
    read: list[int] = []

    def counted(items):
        for i, p in enumerate(items):
            read.append(i)
            yield p

    assert claim_matches(value, counted(payloads)) == (True, False)
    read.clear()
    assert claim_matches(["x"] + value[1:], counted(payloads))[0] is False and read == [0]  # stopped at once
    assert claim_matches(value + ["1"], iter(payloads))[0] is False  # the claim is shorter
    assert claim_matches(value[:-1], iter(payloads))[0] is False  # the claim is longer
    assert claim_matches([1.5, float("nan")], iter([pickle.dumps(0)]))[1] is True  # NaN is noticed


@pytest.mark.parametrize("matches", [True, False])
def test_the_referee_replies_to_a_claim_and_reads_the_value_again_after_a_difference(matches):
    value = [str(i) for i in range(2_000_000)]
    again = frame(VALUE, 0, b"t")
    pipe = _Pipe(_claim_frames(value) + (b"" if matches else again))
    replies: list[bool] = []

    def claim(index, parts):
        same, _ = claim_matches(value if matches else value[:-1], parts)
        return same

    passed = read_reports(pipe.r, 1, lambda i, p: p == b"t", None, lambda i, t: "", claim, replies.append)
    pipe.thread.join()
    assert replies == [matches] and passed == (True, None)
