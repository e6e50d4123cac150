"""Typed use of ufuncx that mypy must accept (tests/typing, run by tools/test.sh)."""
import numpy as np
import numpy.typing as npt

import ufuncx as ux

a: npt.NDArray[np.float64] = np.linspace(0.0, 1.0, 8)
version: str = ux.__version__

b = ux.add(a, 1.5)
c = ux.sqrt(a, out=np.empty_like(a), where=a > 0.25)
q, r = ux.divmod(a, 0.3)
mant, exp = ux.frexp(a)
s = ux.add.reduce(a, axis=0, keepdims=True)
ux.add.accumulate(a)
ux.add.reduceat(a, [0, 4])
ux.multiply.outer(a, a)
ux.add.at(a, [0, 0, 1], 1.0)
ux.negative.at(a, [2, 3])
ux.matmul(a.reshape(2, 4), a.reshape(4, 2))
n_in: int = ux.add.nin
types: list[str] = ux.add.types
ux.add(a, a, dtype=np.float32, casting="unsafe")

y = ux.scatter(np.zeros(4), np.array([[0], [2]]), np.ones(2), update_window_dims=(),
               inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
               index_vector_dim=1, combiner=ux.add)
z = ux.at(a)[1:3].add(2.0, mode="drop")
names: list[str] = ux.registry()
ux.set_num_threads(2)
threads: int = ux.get_num_threads()

# PyTorch-style and Ascend front ends: self comes back with its own type.
t: npt.NDArray[np.float64] = np.zeros(4)
t2: npt.NDArray[np.float64] = ux.torchlike.scatter_add_(t, 0, np.array([0, 1, 1]), np.ones(3))
ux.torchlike.scatter_reduce_(t, 0, np.array([0, 1]), np.ones(2), "amax", include_self=False)
ux.torchlike.index_put_(t, (np.array([3]),), np.ones(1), accumulate=True)
fresh = ux.torchlike.index_add(t, 0, np.array([2]), np.ones(1), alpha=2)
dst = np.zeros((4, 3))
ux.asctile.scatter(np.ones((2, 3)), 0, np.array([0, 2]), dst, [0])
