"""Op-table cases for sparse COO tensors: each builds a sparse tensor from a dense `values` input (with
a repeated index, so uncoalesced input is covered) and checks values and gradients against a NumPy
reference on the dense matrix and against torch."""

import numpy as np

import ember
import ember.sparse

from .op_table import OpCase

# A 3x4 pattern with (0, 2) stored twice; values of shape (5,) fill it.
INDICES = np.array([[0, 1, 2, 0, 2], [2, 0, 3, 2, 1]])
SHAPE = (3, 4)


def _dense(values):
    dense = np.zeros(SHAPE + values.shape[1:])
    np.add.at(dense, tuple(INDICES), values)
    return dense


def _ember_sparse(values):
    return ember.sparse_coo_tensor(ember.tensor(INDICES), values, SHAPE + tuple(values.shape[1:]))


def _torch_sparse(torch, values):
    return torch.sparse_coo_tensor(
        torch.tensor(INDICES), values, SHAPE + tuple(values.shape[1:]), check_invariants=True
    )


CASES = [
    OpCase(
        "sparse_mask",
        lambda d: d.sparse_mask(_ember_sparse(ember.ones(5))).to_dense(),
        lambda d: np.where(_dense(np.ones(5)) != 0, d, 0.0),
        [(SHAPE,)],
        torch_fn=lambda t, d: d.sparse_mask(_torch_sparse(t, t.ones(5, dtype=d.dtype)).coalesce()).to_dense(),
    ),
    OpCase(
        "sparse_coo_tensor_to_dense",
        lambda v: _ember_sparse(v).to_dense(),
        _dense,
        [((5,),), ((5, 2),)],
        torch_fn=lambda t, v: _torch_sparse(t, v).to_dense(),
    ),
    OpCase(
        "sparse_mm_by_torch_mm",
        lambda v, d: ember.mm(_ember_sparse(v), d),
        lambda v, d: _dense(v) @ d,
        [((5,), (4, 2))],
        torch_fn=lambda t, v, d: t.mm(_torch_sparse(t, v), d),
    ),
    OpCase(
        "sparse_mm_by_spmm",
        lambda v, d: ember.spmm(_ember_sparse(v), d),
        lambda v, d: _dense(v) @ d,
        [((5,), (4, 3))],
        torch_fn=lambda t, v, d: t.spmm(_torch_sparse(t, v), d),
    ),
    OpCase(
        "sparse_mm_by_sparse_mm",
        lambda v, d: ember.sparse.mm(_ember_sparse(v), d),
        lambda v, d: _dense(v) @ d,
        [((5,), (4, 2))],
        torch_fn=lambda t, v, d: t.sparse.mm(_torch_sparse(t, v), d),
    ),
    OpCase(
        "sparse_coalesce_values",
        lambda v: _ember_sparse(v).coalesce().values(),
        lambda v: _dense(v)[tuple(np.array(sorted({(0, 2), (1, 0), (2, 3), (2, 1)})).T)],
        [((5,),)],
        torch_fn=lambda t, v: _torch_sparse(t, v).coalesce().values(),
    ),
    OpCase(
        "sparse_add_and_scale",
        lambda v: (_ember_sparse(v) * 2.5 + _ember_sparse(v)).to_dense(),
        lambda v: 3.5 * _dense(v),
        [((5,),)],
        torch_fn=lambda t, v: (_torch_sparse(t, v) * 2.5 + _torch_sparse(t, v)).to_dense(),
    ),
    OpCase(
        "sparse_to_sparse_sum",
        lambda x: ember.sparse.sum(x.to_sparse()),
        np.sum,
        [((3, 4),)],
        torch_fn=lambda t, x: t.sparse.sum(x.to_sparse()),
    ),
]
