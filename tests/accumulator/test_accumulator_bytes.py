"""`Accumulator.from_bytes` on what is not `to_bytes` output: a ValueError (a TypeError
for a str) that says what it expected, what it got and how to fix it, never a raw Arrow
error."""

from __future__ import annotations

import pyarrow as pa
import pytest

from mycelium import Accumulator


def _written() -> bytes:
    acc = Accumulator(metrics="iou")
    acc.update([[[0, 2]], []], [[[0, 2]], [[1, 3]]])
    return acc.to_bytes()


@pytest.mark.parametrize("data, got", [
    (b"garbage garbage", "got 15 bytes that are not one"),
    (b"", "got 0 bytes that are not one"),
    (_written()[:-40], f"got {len(_written()) - 40} bytes that are not one"),
])
def test_bytes_that_are_not_a_stream(data, got):
    with pytest.raises(ValueError) as info:
        Accumulator.from_bytes(data)
    assert not isinstance(info.value, pa.ArrowException)
    message = str(info.value)
    assert message.startswith("Expected the bytes of Accumulator.to_bytes (an Arrow IPC "
                              f"stream), {got} (")
    assert message.endswith("), at data; fix by passing what to_bytes returned, whole and "
                            "unaltered.")


def test_a_str_is_a_type_error_and_the_real_bytes_still_read():
    with pytest.raises(TypeError, match=r"Expected the bytes of Accumulator.to_bytes, got "
                                        r"str, at data; fix by passing what to_bytes "
                                        r"returned \(a file read in binary mode"):
        Accumulator.from_bytes("not bytes")
    data = _written()
    assert Accumulator.from_bytes(bytearray(data)).compute()["iou"] == \
        Accumulator.from_bytes(data).compute()["iou"] == {"score": 0.5}
