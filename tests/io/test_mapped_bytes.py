"""`records.mapped_bytes`: a file's bytes mapped for the columnar readers, read whole where
a map is impossible (an empty file, a pipe); the same bytes either way."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from mycelium.io.records import mapped_bytes, object_lines


def test_a_file_is_mapped_and_reads_as_its_bytes(tmp_path):
    data = b'{"id": "a"}\n{"id": "b", "prob": 0.5}\n'
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    got = mapped_bytes(path)
    assert not isinstance(got, bytes)  # a map
    assert np.frombuffer(got, dtype=np.uint8).tobytes() == data
    assert got.find(b'"prob"') == data.find(b'"prob"')
    assert object_lines(got) == 2


def test_an_empty_file_is_empty_bytes(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert mapped_bytes(path) == b""
    assert object_lines(mapped_bytes(path)) == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_is_read_whole(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    data = b'{"id": "a"}\n' * 1000

    def write():
        with open(path, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        got = mapped_bytes(path)
    finally:
        writer.join()
    assert got == data
