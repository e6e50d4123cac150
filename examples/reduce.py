"""reduce, accumulate, reduceat, outer and the gufuncs, as NumPy spells them."""
import numpy as np

import ufuncx as ux

m = np.arange(12.0).reshape(3, 4)
print("sum over axis 0:", ux.add.reduce(m), " axis=None:", ux.add.reduce(m, axis=None))
print("max over (0, 1) keepdims:", ux.maximum.reduce(m, axis=(0, 1), keepdims=True))
print("masked sum:", ux.add.reduce(m, axis=1, where=m % 2 == 0))
a = np.array([2.0**24] + [1.0] * 15, dtype=np.float32)
print("pairwise float32 sum == numpy:", ux.add.reduce(a), np.add.reduce(a))
print("int8 sums widen to int64:", ux.add.reduce(np.full(100, 100, np.int8)))
print("running max:", ux.maximum.accumulate([3, 1, 4, 1, 5, 9]))
print("reduceat [0, 4, 1, 5]:", ux.add.reduceat(np.arange(8), [0, 4, 1, 5]))
print("outer shape:", ux.multiply.outer(np.arange(3), np.arange(4)).shape)
try:
    ux.maximum.reduce(np.array([]))
except ValueError as e:
    print("ValueError:", e)
print("matmul", ux.matmul.signature, ux.matmul(m, m.T).shape, "1-D:", ux.matmul(m, np.ones(4)))
print("vecdot conjugates:", ux.vecdot(np.array([1j, 2]), np.array([1j, 2])))
