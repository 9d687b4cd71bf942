"""Places where ember differed from PyTorch, found by running the same snippets with both: result
layouts that `.view` depends on, values, dtypes, and which inputs are refused."""

import pytest

from .differential import assert_same, raises_like

# Results PyTorch makes contiguous whatever the input's layout (NumPy's come out transposed or
# follow the input's), so that `.view(-1)` works after them.
CONTIGUOUS = {
    "index past the first dim": lambda lib: lib.ones(3, 4)[:, [0, 1]],
    "index past the first dim, 3-d": lambda lib: lib.arange(24.0).reshape(2, 3, 4)[:, [2, 1, 0]],
    "bool mask past the first dim": lambda lib: lib.arange(12.0).reshape(3, 4)[
        :, lib.tensor([True, False, True, False])
    ],
    "two index tensors": lambda lib: lib.arange(24.0).reshape(2, 3, 4)[:, [0, 2], [1, 3]],
    "int, slice, index": lambda lib: lib.arange(24.0).reshape(2, 3, 4)[0, :, [1, 2]],
    "einsum product": lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 3), lib.arange(12.0).reshape(3, 4)),
    "einsum attention": lambda lib: lib.einsum("bhqd,bhkd->bhqk", lib.ones(2, 3, 4, 5), lib.ones(2, 3, 6, 5)),
    "tensordot": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 4), dims=([1], [0])),
    "softmax of a transpose": lambda lib: lib.arange(12.0).reshape(3, 4).t().softmax(0),
    "log_softmax of a transpose": lambda lib: lib.arange(12.0).reshape(3, 4).t().log_softmax(0),
    "cumsum of a transpose": lambda lib: lib.arange(12.0).reshape(3, 4).t().cumsum(0),
    "cumprod of a transpose": lambda lib: lib.arange(12.0).reshape(3, 4).t().cumprod(0),
    "roll of a transpose": lambda lib: lib.arange(12.0).reshape(3, 4).t().roll(1, 0),
}


@pytest.mark.parametrize("case", CONTIGUOUS)
def test_results_are_contiguous_as_in_pytorch(case, torch):
    result = assert_same(CONTIGUOUS[case], torch)
    assert result.is_contiguous() and result.stride() == CONTIGUOUS[case](torch).stride()
    result.view(-1)


def test_gradient_of_a_transposed_scan_is_contiguous(torch):
    def grad(lib):
        x = lib.ones(3, 4, requires_grad=True)
        x.t().cumsum(0).sum().backward()
        return x.grad

    assert assert_same(grad, torch).stride() == (4, 1)


SAME = {
    "complex to bool": lambda lib: lib.tensor([1.5j, 0j, 2 + 0j]).bool(),
    "complex to bool with to": lambda lib: lib.tensor([1.5j]).to(lib.bool),
    "adjoint conjugates": lambda lib: lib.tensor([[1 + 1j, 2j]]).adjoint().resolve_conj(),
    "adjoint of a real batch": lambda lib: lib.arange(6.0).reshape(1, 2, 3).adjoint(),
    "integer power, negative exponents": lambda lib: (
        lib.tensor([2, 3, 1, -1, -1, 0]) ** lib.tensor([-1, 2, -5, -3, -2, -1])
    ),
    "number to a negative integer power": lambda lib: lib.pow(2, lib.tensor([-1, 2])),
    "integer power, broadcast": lambda lib: lib.tensor([[2], [3]]) ** lib.tensor([-1, 1]),
    "outer promotes": lambda lib: lib.outer(lib.arange(3), lib.arange(2.0)),
    "ger promotes integers": lambda lib: lib.ger(lib.arange(3), lib.arange(2, dtype=lib.int32)),
    "kron promotes": lambda lib: lib.kron(lib.ones(2), lib.arange(2)),
    "hypot of int and float": lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4.0])),
    "logaddexp of int and float": lambda lib: lib.logaddexp(lib.tensor([3]), lib.tensor([4.0])),
    "index_fill counts from the end": lambda lib: lib.zeros(4).index_fill(0, lib.tensor([-1]), 1.0),
    "add a number with alpha": lambda lib: lib.add(lib.tensor([1]), 2.0, alpha=0.5),
    "sub with an int alpha": lambda lib: lib.sub(lib.tensor([1.0]), 2, alpha=3),
    "log10 of powers of ten is exact": lambda lib: (
        lib.log10(lib.tensor([10.0, 100.0, 1000.0, 1e-3])) - lib.tensor([1.0, 2.0, 3.0, -3.0])
    ),
    "Size from a one-element tensor": lambda lib: lib.Size([2, lib.tensor(3)]),
    "Size times an int": lambda lib: lib.Size([2, 3]) * 2,
    "broadcast_shapes": lambda lib: lib.broadcast_shapes((2, 1), (1, 3)),
    "linalg.svd's tuple": lambda lib: type(lib.linalg.svd(lib.eye(2))).__name__,
    "linalg.eigh's tuple": lambda lib: type(lib.linalg.eigh(lib.eye(2))).__name__,
    "linalg.slogdet's tuple": lambda lib: type(lib.linalg.slogdet(lib.eye(2))).__name__,
    "linalg.qr's tuple": lambda lib: type(lib.linalg.qr(lib.eye(2))).__name__,
    "linalg.lstsq's tuple": lambda lib: type(lib.linalg.lstsq(lib.eye(2), lib.ones(2, 1))).__name__,
    "torch.svd's tuple": lambda lib: type(lib.svd(lib.eye(2))).__name__,
    "torch.slogdet's tuple": lambda lib: type(lib.slogdet(lib.eye(2))).__name__,
    "Size's type after *": lambda lib: type(lib.Size([2]) * 2).__name__,
    "view as a wider dtype": lambda lib: lib.arange(6).view(2, 3).view(lib.float32),
    "view as a narrower dtype": lambda lib: lib.arange(6, dtype=lib.int32).view(2, 3).view(lib.int16),
    "view of int16 pairs as int64": lambda lib: lib.arange(8, dtype=lib.int16).view(lib.int64),
}


@pytest.mark.parametrize("case", SAME)
def test_values_and_dtypes_as_in_pytorch(case, torch):
    if case.startswith("log10"):  # exactly: the difference from the powers is zero
        assert not assert_same(SAME[case], torch, rtol=0, atol=0).any()
        return
    assert_same(SAME[case], torch)


REFUSED = {
    "gather, negative index": lambda lib: lib.arange(4.0).gather(0, lib.tensor([-1])),
    "scatter, negative index": lambda lib: lib.zeros(4).scatter(0, lib.tensor([-1]), 1.0),
    "scatter_add, negative index": lambda lib: lib.zeros(4).scatter_add(0, lib.tensor([-1]), lib.ones(1)),
    "scatter_reduce, negative index": lambda lib: lib.zeros(4).scatter_reduce(0, lib.tensor([-1]), lib.ones(1), "sum"),
    "index_select, negative index": lambda lib: lib.arange(4.0).index_select(0, lib.tensor([-1])),
    "index_add, negative index": lambda lib: lib.zeros(4).index_add(0, lib.tensor([-1]), lib.ones(1)),
    "index_copy, negative index": lambda lib: lib.zeros(4).index_copy(0, lib.tensor([-1]), lib.ones(1)),
    "integer tensor to a negative number": lambda lib: lib.tensor([2]) ** -1,
    "hypot of two integer tensors": lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4])),
    "adjoint of a vector": lambda lib: lib.ones(3).adjoint(),
    "int() of several elements": lambda lib: int(lib.arange(10)),
    "float() of several elements": lambda lib: float(lib.tensor([1.0, 2.0])),
    "where with an integer condition": lambda lib: lib.where(lib.tensor([1, 0]), 1.0, 2.0),
    "arange with bounds against the step": lambda lib: lib.arange(5, 0),
    "arange with a float step that is 0 as an int": lambda lib: lib.arange(0, 1, 0.3, dtype=lib.int64),
    "Size of a float": lambda lib: lib.Size([2.5]),
    "stack of nothing": lambda lib: lib.stack([]),
    "cat of nothing": lambda lib: lib.cat([]),
    "float alpha on integers": lambda lib: lib.add(lib.tensor([1]), lib.tensor([2]), alpha=0.5),
    "complex into a float tensor": lambda lib: lib.zeros(3).__setitem__(1, 1 + 2j),
    "scatter from a smaller source": lambda lib: lib.zeros(2).scatter(0, lib.tensor([0, 1, 1]), lib.ones(2)),
    "bitwise and of floats": lambda lib: lib.ones(2) & lib.ones(2),
    "shift of floats": lambda lib: lib.ones(2) << 1,
    "softmax of integers": lambda lib: lib.tensor([1, 2]).softmax(0),
    "view of a transpose as another size": lambda lib: lib.arange(6).view(2, 3).t().view(lib.int32),
    "view to a size the last dim does not divide": lambda lib: lib.arange(3, dtype=lib.int16).view(lib.int32),
    "view of a 0-d tensor as another size": lambda lib: lib.tensor(3).view(lib.int32),
    "ordering complex numbers": lambda lib: lib.tensor([1 + 2j]) < lib.tensor([2 + 1j]),
    "ordering complex numbers against a number": lambda lib: lib.tensor([1 + 2j]).ge(1),
    "sign of a complex tensor": lambda lib: lib.tensor([1 + 2j]).sign(),
}


@pytest.mark.parametrize("case", REFUSED)
def test_refused_as_in_pytorch(case, torch):
    raises_like(REFUSED[case], torch)
