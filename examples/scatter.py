"""Every scatter-like API of ufuncx goes through one planner."""
import numpy as np

import ufuncx as ux

# NumPy's ufunc.at: repeated indices accumulate, negative indices wrap.
a = np.zeros(5)
ux.add.at(a, [0, 1, 1, -1], 1.5)
print("add.at:", a)

# StableHLO / XLA scatter (functional), the spec walk-through's example.
operand = np.arange(1, 25).reshape(3, 4, 2)
indices = np.array([[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [2, 0]]])
res = ux.scatter(operand, indices, np.ones((2, 3, 2, 2), np.int64), combiner=ux.add,
                 update_window_dims=(2, 3), inserted_window_dims=(0,),
                 scatter_dims_to_operand_dims=(1, 0), index_vector_dim=2)
print("scatter: result[2, 1, 0] =", res[2, 1, 0])

# PyTorch's scatter_ (docs example), and scatter_reduce_ with include_self=False.
src = np.arange(1, 11).reshape(2, 5)
print("torchlike.scatter_:\n", ux.torchlike.scatter_(np.zeros((3, 5), src.dtype), 0,
                                                      np.array([[0, 1, 2, 0]]), src))
print("scatter_reduce amax:", ux.torchlike.scatter_reduce(
    np.zeros(3), 0, np.array([0, 0, 2]), np.array([5.0, 7.0, -1.0]), "amax", include_self=False))

# The Ascend row scatter: every other row of a [8, 4] array.
dst = np.zeros((8, 4), np.int32)
ux.asctile.scatter(np.arange(1, 5, dtype=np.int32)[:, None].repeat(4, 1), 0,
                   np.arange(0, 8, 2), dst, [0])
print("asctile.scatter rows:", dst[:, 0])
