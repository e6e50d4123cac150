"""ufuncx on a dask.distributed cluster: the same calls as on NumPy arrays,
lazy, run on the workers with ufuncx's loops. Here the cluster is local (two
worker processes); point Client at a real scheduler to go past one machine.

    pip install "dask[array]" distributed
    python examples/dask_cluster.py
"""
import numpy as np

import dask.array as da
from dask.distributed import Client, LocalCluster

import ufuncx as ux


def main():
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster):
        n = 10**7
        x = da.random.default_rng(0).random(n, chunks=n // 8)

        # Elementwise and the reduce family: lazy dask arrays.
        y = ux.multiply(ux.sqrt(x), 2.0)
        print("sum of 2*sqrt(x):", float(ux.add.reduce(y).compute()))
        print("running max (first 4):", ux.maximum.accumulate(x)[:4].compute())

        # ufunc.at on a dask target: a histogram of 1e7 values into 1000 bins.
        # The updates are split by destination chunk on the workers and each
        # chunk applies its share in order: the sequential np.add.at result.
        bins = da.zeros(1000, chunks=250)
        ux.add.at(bins, (x * 1000).astype(np.int64), 1.0)
        counts = bins.compute()
        print("histogram total:", counts.sum(), "first bins:", counts[:3])

        # StableHLO scatter with dask operand and indices (JAX's "drop" mode).
        idx = da.from_array(np.array([[3], [3], [12]]), chunks=(2, 1))
        out = ux.scatter(da.zeros(10, chunks=4), idx, np.array([1.0, 2.0, 5.0]),
                         update_window_dims=(), inserted_window_dims=(0,),
                         scatter_dims_to_operand_dims=(0,), index_vector_dim=1,
                         combiner="add", mode="drop")
        print("scatter:", out.compute())


if __name__ == "__main__":
    main()
