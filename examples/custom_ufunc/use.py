"""Loads the plugin built from kernels.toml and uses its ufuncs like built-ins.

    python use.py path/to/kernels.so
"""
import sys

import numpy as np

import ufuncx as ux

print("loaded:", ux.load_plugin(sys.argv[1]))
a, b = np.array([-3.0, 2.0, -7.5, 5.0]), np.array([1.0, -4.0, 6.0, -2.0])
print("absmax:", ux.absmax(a, b), ux.absmax.types)
print("absmax.reduce / accumulate:", ux.absmax.reduce(a), ux.absmax.accumulate(a))
print("absmax.outer shape:", ux.absmax.outer(a, b).shape)
hist = np.zeros(3)
ux.absmax.at(hist, [0, 2, 0], [-4.0, 1.5, 2.0])
print("absmax.at:", hist)
print("clamp01:", ux.clamp01(np.array([-0.5, 0.25, 1.5])))
print("gcd on floats (new overload):", ux.gcd(np.array([12.0, 18.0]), np.array([8.0, 27.0])))
vals, idx = ux.scatter((np.full(2, -np.inf), np.full(2, -1)), np.array([[0], [1], [0]]),
                       (np.array([3.0, 1.0, 5.0]), np.array([10, 11, 12])),
                       combiner=ux.argmax_pair, update_window_dims=(), inserted_window_dims=(0,),
                       scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
print("argmax_pair as a scatter combiner:", vals, idx)
