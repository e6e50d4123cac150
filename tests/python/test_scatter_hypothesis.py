"""Hypothesis draws valid StableHLO scatter dimension numbers, shapes and
indices; every plan must equal the spec reference exactly, and a raising
request must leave the operand untouched."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ufuncx as ux
from conftest import assert_same
from test_scatter import PLANS, reference


@st.composite
def requests(draw):
    rank = draw(st.integers(1, 3))
    operand_shape = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    dims = list(range(rank))
    # Choose batching dims, inserted dims and window dims of the operand.
    roles = [draw(st.sampled_from(["window", "inserted", "batching"])) for _ in dims]
    batching = [d for d in dims if roles[d] == "batching"]
    inserted = [d for d in dims if roles[d] == "inserted"]
    window = [d for d in dims if roles[d] == "window"]
    candidates = [d for d in dims if d not in batching]
    nvec = draw(st.integers(0 if not candidates else 1, max(len(candidates), 0)))
    sdod = draw(st.permutations(candidates))[:nvec] if candidates else []
    use_vector_dim = nvec != 1 or draw(st.booleans())
    nrows = draw(st.integers(0, 2))
    row_shape = draw(st.lists(st.integers(1, 3), min_size=nrows, max_size=nrows))
    # Batching dims must appear among the index rows with the operand's size.
    batch_rows = []
    for b in batching:
        pos = draw(st.integers(0, len(row_shape)))
        row_shape.insert(pos, operand_shape[b])
        batch_rows = [p + (1 if p >= pos else 0) for p in batch_rows] + [pos]
    idx_rank = len(row_shape) + (1 if use_vector_dim else 0)
    ivd = draw(st.integers(0, len(row_shape))) if use_vector_dim else len(row_shape)
    idx_shape = list(row_shape)
    if use_vector_dim:
        idx_shape.insert(ivd, nvec)
    sibd = [p + (1 if use_vector_dim and p >= ivd else 0) for p in batch_rows]
    order = np.argsort(batching) if batching else []
    hi = max(operand_shape) + 2
    indices = np.array(draw(st.lists(st.integers(-2, hi), min_size=int(np.prod(idx_shape)),
                                     max_size=int(np.prod(idx_shape)))),
                       dtype=draw(st.sampled_from([np.int8, np.int32, np.int64]))).reshape(idx_shape)
    window_sizes = [draw(st.integers(0 if False else 1, operand_shape[d])) for d in window]
    # Updates: row dims then window dims, with window dims interleaved at the end.
    upd_shape = list(row_shape) + window_sizes
    uwd = list(range(len(row_shape), len(upd_shape)))
    updates = np.arange(int(np.prod(upd_shape)), dtype=np.float64).reshape(upd_shape) * 0.5 + 1
    operand = np.arange(int(np.prod(operand_shape)), dtype=np.float64).reshape(operand_shape)
    del idx_rank, order
    return dict(operand=operand, indices=indices, updates=updates, uwd=uwd, iwd=inserted,
                sdod=list(sdod), ivd=ivd, ibd=batching, sibd=sibd)


@settings(max_examples=150, deadline=None)
@given(requests(), st.sampled_from(["skip", "skip_window", "clip"]),
       st.sampled_from([None, "add", "multiply", "maximum"]))
def test_random_requests_match_reference(req, mode, combiner):
    combine = None if combiner is None else getattr(np, combiner)
    expected = reference(req["operand"], req["indices"], req["updates"], req["uwd"],
                         req["iwd"], req["sdod"], req["ivd"], req["ibd"], req["sibd"],
                         combine, mode)
    for plan in PLANS:
        got = ux.scatter(req["operand"], req["indices"], req["updates"],
                         update_window_dims=req["uwd"], inserted_window_dims=req["iwd"],
                         scatter_dims_to_operand_dims=req["sdod"], index_vector_dim=req["ivd"],
                         input_batching_dims=req["ibd"],
                         scatter_indices_batching_dims=req["sibd"], combiner=combiner,
                         mode=mode, plan=plan)
        assert_same(got, expected, what=f"{plan} {mode} {combiner}")
