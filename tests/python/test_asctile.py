"""ufuncx.asctile.scatter: seed 001's contract and examples."""
import numpy as np
import pytest

import ufuncx as ux
from conftest import assert_same

scatter = ux.asctile.scatter


def test_every_other_row_example():
    dst = np.arange(256).reshape(32, 8)
    src = np.repeat(np.arange(16)[:, None], 8, axis=1)
    assert scatter(src, 0, np.arange(0, 32, 2), dst, [0]) is None
    expected = np.arange(256).reshape(32, 8)
    expected[0::2] = src
    assert_same(dst, expected)


def test_full_rows_by_outer_dim(rng):
    dst = np.zeros((1024, 128), np.float32)
    index = rng.permutation(1024)[:256]
    data = rng.random((256, 128)).astype(np.float32)
    scatter(data, 0, index, dst, [0])
    assert_same(dst[index], data)


def test_offsets_inner_dim_bounds_and_num_indices():
    dst = np.zeros((2, 6, 3), np.int32)
    src = np.arange(1, 13, dtype=np.int32).reshape(4, 3)
    scatter(src, 1, np.array([0, 2, 9, -5], np.int16), dst, [1, 1], num_indices=4)
    expected = np.zeros((2, 6, 3), np.int32)
    expected[1, 1] = src[0]
    expected[1, 3] = src[1]  # 9 + 1 and -5 + 1 are out of bounds: skipped
    assert_same(dst, expected)
    dst2 = np.zeros((2, 6, 3), np.int32)
    scatter(src, 1, np.array([0, 2, 9, -5], np.int16), dst2, [1, 1], num_indices=2)
    assert_same(dst2, expected)
    # the message names dst's axis and the index as given (not the lowered view's)
    with pytest.raises(IndexError, match=r"index 9 \(row 1\) at offset 1 is out of bounds "
                                         r"for axis 1 with size 6"):
        scatter(src, 1, np.array([0, 9], np.int16), dst2, [1, 1], check_bounds=False,
                num_indices=2)
    assert_same(dst2, expected)


def test_error_contract():
    dst = np.zeros((4, 3), np.float32)
    src = np.ones((2, 3), np.float32)
    idx = np.array([0, 1])
    with pytest.raises(TypeError):
        scatter(src.tolist(), 0, idx, dst, [0])
    with pytest.raises(RuntimeError):
        scatter(src, 0, idx.astype(np.float32), dst, [0])
    with pytest.raises(ValueError):
        scatter(src, 0, idx, dst, [0, 0])
    with pytest.raises(ValueError):
        scatter(src, 3, idx, dst, [0, 0, 0, 0])
    with pytest.raises(ValueError):
        scatter(src, 0, idx.reshape(2, 1), dst, [0])
    with pytest.raises(ValueError):
        scatter(src.astype(np.float64), 0, idx, dst, [0])
    with pytest.raises(ValueError):
        scatter(np.ones((2, 5), np.float32), 0, idx, dst, [0])
    with pytest.raises(NotImplementedError):
        scatter(np.ones(2, np.float32), 1, idx, dst, [0, 0])
