"""ufuncx from Python: the same objects NumPy users know, on NumPy arrays."""
import numpy as np

import ufuncx as ux

a = np.arange(6, dtype=np.float32).reshape(2, 3)
print("add broadcast:", ux.add(a, [10, 20, 30]))
print("uint8 + 3 stays uint8 (NEP 50):", ux.add(np.arange(3, dtype=np.uint8), 3).dtype)
try:
    ux.add(np.arange(3, dtype=np.uint8), 300)
except OverflowError as e:
    print("uint8 + 300 ->", type(e).__name__ + ":", e)
q, r = ux.divmod(np.array([-7, 7]), 3)
print("divmod python signs:", q, r)
out = np.zeros(4)
ux.sqrt(np.array([4.0, 9.0, 16.0, 25.0]), out=out, where=[True, False, True, False])
print("sqrt with where=:", out)
print("maximum propagates NaN:", ux.maximum([1.0, np.nan], [np.nan, 2.0]),
      "fmax ignores it:", ux.fmax([1.0, np.nan], [np.nan, 2.0]))
print(ux.add, "types:", ux.add.types[:4], "... identity:", ux.add.identity)
print("registry:", len(ux.registry()), "ufuncs; SIMD targets:", ux.simd_targets())
