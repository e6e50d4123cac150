"""ufuncx on a dask.distributed LocalCluster of 2 single-thread workers,
against the dask graphs a user has without ufuncx, in one run.

    python benchmarks/dask.py [--quick] [--n 1e8]

1. Elementwise (add) and reduce (add.reduce) on 4n arrays: ufuncx against the
   same graphs from NumPy (np.add through dask's elemwise; x.sum()).
2. add.at: n float64 updates into an n-element target in 8 chunks (indices
   and values made on the workers and persisted first). Rivals: the
   single-process ux.add.at on the whole NumPy arrays, da.bincount with
   weights, and map_blocks of np.add.at per update chunk into dense partials
   that are then summed. The workers' peak memory is sampled from the
   scheduler while each runs
   (the peak, and in brackets its rise over the worker's memory before the
   run, which holds the worker's half of the persisted indices and values,
   and that rise less the worker's share of the persisted result).
3. Memory: a target 4x one worker's memory limit scatters without a worker
   dying (a cluster with a memory limit per worker).

Each section runs on a cluster of its own.

Times are seconds (min of repeats); ratios are rival/ufuncx (> 1.0 means
ufuncx is faster).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
import time

# This file's name is dask's: drop its folder from the path before `import dask`.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import numpy as np  # noqa: E402

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import distributed  # noqa: E402

import ufuncx as ux  # noqa: E402


class PeakMemory:
    """Each worker's peak memory as the scheduler reports it, sampled."""

    def __init__(self, client):
        self.client, self.peak, self._stop = client, {}, threading.Event()

    def __enter__(self):
        self.peak = {}
        self.start = {a: w.get("metrics", {}).get("memory", 0)
                      for a, w in self.client.scheduler_info(n_workers=-1)["workers"].items()}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            for addr, w in self.client.scheduler_info(n_workers=-1)["workers"].items():
                m = w.get("metrics", {}).get("memory", 0)
                self.peak[addr] = max(self.peak.get(addr, 0), m)
            time.sleep(0.05)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._stop.clear()

    def gb(self):
        return max(self.peak.values(), default=0) / 1e9

    def growth_gb(self):
        """The largest rise of one worker's memory over its value at the start."""
        return max((p - self.start.get(a, 0) for a, p in self.peak.items()), default=0) / 1e9


def timed(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def timed_persist(client, build, repeats):
    """The best time to build a graph and persist it on the cluster. The
    keys are released (and forgotten) between repeats: the same graph would
    otherwise find its results still in memory."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        r = build().persist()
        distributed.wait(r)
        best = min(best, time.perf_counter() - t)
        client.cancel(r, force=True)
        del r
        time.sleep(1.0)
    return best


def run_at(client, n, repeats):
    chunk = n // 8
    idx = da.random.default_rng(1).integers(0, n, n, chunks=chunk).persist()
    val = da.random.default_rng(2).random(n, chunks=chunk).persist()
    distributed.wait([idx, val])
    idx_np, val_np = idx.compute(), val.compute()
    want = np.zeros(n)

    def single():
        want[:] = 0
        ux.add.at(want, idx_np, val_np)
    t_single = timed(single, repeats)

    def ufuncx_at():
        t = da.zeros(n, chunks=chunk)
        ux.add.at(t, idx, val)
        return t

    def bincount():
        return da.bincount(idx, weights=val, minlength=n).rechunk(chunk)

    def dense_partials():
        # One dense n-vector per update chunk, then their sum.
        k = idx.numblocks[0]
        partials = da.map_blocks(_dense_add_at_2d, idx, val, n, dtype=float, new_axis=1,
                                 chunks=((1,) * k, (n,)))
        return partials.sum(axis=0).rechunk(chunk)

    rows = []
    check = None
    for name, build in [("ufuncx add.at (partitioned)", ufuncx_at), ("da.bincount weights", bincount),
                        ("map_blocks np.add.at + sum", dense_partials)]:
        with PeakMemory(client) as mem:
            t = timed_persist(client, build, repeats)
        result = build().compute()
        if check is None:
            check = result
            bad = int(np.count_nonzero(result != want))
            assert bad == 0, f"ufuncx add.at on dask differs from ux.add.at at {bad} elements"
        else:
            np.testing.assert_allclose(result, want, rtol=1e-9, atol=1e-12)
        rows.append((name, t, mem.gb(), mem.growth_gb()))
    share = n * 8 / len(client.scheduler_info(n_workers=-1)["workers"]) / 1e9
    print(f"\n## add.at: {n:.0e} float64 updates -> {n:.0e} target in 8 chunks "
          f"(one target chunk + its updates: {(chunk * 8 + chunk * 16) / 1e9:.2f} GB; "
          f"each worker keeps its share of the persisted result, {share:.2f} GB)")
    print(f"{'single-process ux.add.at':34s} {t_single:8.3f} s")
    base = rows[0][1]
    for name, t, gb, growth in rows:
        print(f"{name:34s} {t:8.3f} s   peak worker memory {gb:5.2f} GB (+{growth:4.2f}; "
              f"+{max(0.0, growth - share):4.2f} beyond its result)   "
              f"rival/ufuncx {t / base:5.2f}   vs single-process {t / t_single:5.2f}x")


def _dense_add_at(i, v, n):
    out = np.zeros(n)
    np.add.at(out, i, v)
    return out


def _dense_add_at_2d(i, v, n):
    return _dense_add_at(i, v, n)[None, :]


def run_elementwise_reduce(client, n, repeats):
    x = da.random.default_rng(3).random(n, chunks=n // 16).persist()
    y = da.random.default_rng(4).random(n, chunks=n // 16).persist()
    distributed.wait([x, y])

    cases = [
        ("add (elementwise)", lambda: ux.add(x, y), lambda: np.add(x, y)),
        ("add.reduce (sum)", lambda: ux.add.reduce(x), lambda: x.sum()),
        ("maximum.reduce (max)", lambda: ux.maximum.reduce(x), lambda: x.max()),
    ]
    print(f"\n## elementwise and reduce on {n:.0e} float64 (16 chunks)")
    for name, mine, theirs in cases:
        # (checked on the cluster: the results need not fit the client)
        assert bool(da.allclose(mine(), theirs(), rtol=1e-12).compute()), name
        t_mine = timed_persist(client, mine, repeats)
        t_theirs = timed_persist(client, theirs, repeats)
        print(f"{name:24s} ufuncx {t_mine:7.3f} s   dask+NumPy {t_theirs:7.3f} s   "
              f"ufuncx/NumPy {t_mine / t_theirs:5.2f}")


def run_memory(n_target, limit):
    print(f"\n## a {n_target * 8 / 1e9:.1f} GB target on workers limited to {limit / 1e9:.1f} GB each")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  memory_limit=limit, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        chunk = n_target // 32
        updates = n_target // 8
        t = da.zeros(n_target, chunks=chunk)
        idx = da.random.default_rng(5).integers(0, n_target, updates, chunks=updates // 8)
        val = da.ones(updates, chunks=updates // 8)
        ux.add.at(t, idx, val)
        with PeakMemory(client) as mem:
            start = time.perf_counter()
            total = float(ux.add.reduce(t).compute())
            took = time.perf_counter() - start
        alive = len(client.scheduler_info()["workers"])
        print(f"scatter of {updates:.0e} updates, then a sum: {took:.1f} s, total {total:.0f} "
              f"(expected {updates}), workers alive {alive}/2, peak worker memory {mem.gb():.2f} GB")
        assert total == updates and alive == 2


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="n = 1e7, one repeat")
    p.add_argument("--n", type=float, default=1e8)
    a = p.parse_args()
    n = int(1e7 if a.quick else a.n)
    repeats = 1 if a.quick else 2
    dask.config.set({"distributed.worker.daemon": False})
    print(f"numpy {np.__version__}; dask {dask.__version__}; distributed {distributed.__version__}; "
          f"LocalCluster: 2 processes x 1 thread")
    # Each section on a cluster of its own, elementwise first: after the
    # add.at section's dense-partials rival (10-12 GB per worker) the
    # machine's memory is fragmented, and the next section's first
    # measurement paid for it (one run: ufuncx's elementwise add 2.1 s,
    # then NumPy's 0.9; alone, 0.63-0.80 against 0.76-0.87).
    for section, size in ((run_elementwise_reduce, 4 * n), (run_at, n)):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      memory_limit=0, dashboard_address=None,
                                      silence_logs=40) as cluster, \
                distributed.Client(cluster) as client:
            # (the workers import ufuncx once, as NumPy is imported already:
            # not the graphs' time)
            client.run(importlib.import_module, "ufuncx")
            section(client, size, repeats)
    # The full run: a 4 GB target on workers limited to 1 GB each (a
    # worker process alone takes about 0.15 GB); --quick: 2 GB on 0.5 GB.
    n_target = 5 * 10**8 if not a.quick else 25 * 10**7
    run_memory(n_target=n_target, limit=n_target * 8 // 4)


if __name__ == "__main__":
    main()
