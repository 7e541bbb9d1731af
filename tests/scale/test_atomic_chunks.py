"""A chunk of the store is whole or absent, never half written."""

import pathlib

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")


def test_a_chunk_write_that_stops_before_its_rename_leaves_no_chunk(tmp_path, monkeypatch):
    # The resume marker of a block is only sound if zarr's LocalStore writes
    # each chunk to a temporary file and renames it (zarr >= 3.1.3): a write
    # stopped before the rename must leave no chunk under the chunk's key.
    store = zarr.storage.LocalStore(tmp_path / "s.zarr")
    array = zarr.create_array(store, shape=(4, 4), chunks=(4, 4), dtype="float32")

    def stop(self, *args, **kwargs):
        raise OSError("stopped before the rename")

    monkeypatch.setattr(pathlib.Path, "replace", stop)
    monkeypatch.setattr("os.link", stop)
    with pytest.raises(OSError):
        array[:] = np.ones((4, 4), np.float32)
    monkeypatch.undo()
    chunks = [p for p in (tmp_path / "s.zarr").rglob("*") if p.is_file() and p.name != "zarr.json"]
    assert chunks == []
    assert np.all(zarr.open_array(tmp_path / "s.zarr")[:] == 0)
