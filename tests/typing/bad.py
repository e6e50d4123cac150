"""Calls mypy must reject (tests/typing): each line marked below is an error."""
import numpy as np

import ufuncx as ux

a = np.arange(4.0)
ux.add(a, a, foo=3)  # E: a keyword no ufunc takes
ux.sqrt(a, a, a, a)  # E: too many operands for a unary ufunc
ux.add(a)  # E: a binary ufunc needs two inputs
ux.add.at(a, [0])  # E: add.at needs the values to add
ux.add(a, a, casting="sometimes")  # E: not a casting rule
n: str = ux.add.nin  # E: nin is an int
ux.scatter(a, a, a)  # E: the dimension numbers are required
ux.at(a)[0].add(1.0, mode="wrap")  # E: not one of jax's modes
ux.set_num_threads("two")  # E: a count is an int
ux.torchlike.scatter_reduce_(a, 0, a, a, "average")  # E: not one of torch's reductions
ux.torchlike.index_add_(a, 0, a)  # E: index_add_ needs the source
ux.asctile.scatter(a, 0, a, a)  # E: the offsets are required
