"""Saves a benchmark's measurements as JSON (--json PATH), with where and
when they were taken; docs/_generate.py draws the documentation's plots from
the files recorded in docs/benchmarks/."""
from __future__ import annotations

import datetime
import json
import os
import pathlib
import platform
import sys

import numpy as np

import ufuncx as ux


def pyplot(what):
    """matplotlib.pyplot with the file-only backend, or None (and a note
    naming `what`) when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"(matplotlib not installed: pip install matplotlib for the {what})")
        return None
    return plt


def save(path, command, rows):
    meta = {"command": command, "date": datetime.date.today().isoformat(),
            "cpus": os.cpu_count(), "machine": platform.machine(),
            "python": platform.python_version(), "numpy": np.__version__,
            "ufuncx": ux.__version__, "simd": sorted(set(ux.simd_targets().values()))}
    for name in ("torch", "jax"):
        if name in sys.modules:
            meta[name] = sys.modules[name].__version__
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    print(f"saved: {path}")
