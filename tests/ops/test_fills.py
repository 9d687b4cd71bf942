"""`fill`, `fill_` and `zero_` keep a filled intermediate in the graph, as PyTorch does: it still
requires grad, its node has PyTorch's name, and a 0-d value tensor gets its gradient."""

import pytest

import ember

from .differential import assert_same

torch = pytest.importorskip("torch")

FILLS = {
    "fill_number": lambda lib, z, v: lib.fill(z, 2),
    "fill_tensor": lambda lib, z, v: lib.fill(z, v),
    "fill__number": lambda lib, z, v: z.fill_(2),
    "fill__tensor": lambda lib, z, v: z.fill_(v),
    "zero_": lambda lib, z, v: z.zero_(),
    "fill__on_a_view": lambda lib, z, v: (z[0].fill_(v), z)[1],
}


@pytest.mark.parametrize("name", FILLS)
def test_a_filled_intermediate_stays_in_the_graph_as_in_torch(name):
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True)
        v = lib.tensor(3.0, requires_grad=True)
        z = FILLS[name](lib, x * 2, v)
        (z * lib.arange(6.0).reshape(2, 3)).sum().backward()
        node = z.grad_fn.name().replace("torch::autograd::", "")
        return z.detach(), x.grad, (v.grad if v.grad is not None else lib.tensor(-1.0)), node, z.requires_grad

    ours, theirs = run(ember), run(torch)
    assert ours[3:] == theirs[3:]
    for mine, reference in zip(ours[:3], theirs[:3]):
        assert mine.tolist() == reference.tolist()


@pytest.mark.parametrize(
    "snippet",
    [
        lambda lib: lib.zeros(3, dtype=lib.uint8).fill_(-1),
        lambda lib: lib.zeros(2, dtype=lib.int8).fill_(300),
        lambda lib: lib.zeros(3, dtype=lib.int64).fill_(2.7),
        lambda lib: lib.fill(lib.ones(2, 3), lib.ones(2)),
        lambda lib: lib.ones(2, 3).fill_(lib.ones(2)),
        lambda lib: lib.ones(2, requires_grad=True).fill_(1.0),
        lambda lib: lib.ones(2, requires_grad=True).zero_(),
    ],
)
def test_fill_values_and_errors_match_torch(snippet):
    assert_same(snippet, torch)


def test_fills_under_no_grad_leave_a_leaf_as_it_was():
    weight = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        weight.fill_(3.0)
        assert weight.tolist() == [3.0, 3.0]
        weight.zero_()
    assert weight.tolist() == [0.0, 0.0] and weight.is_leaf and weight.requires_grad and weight.grad_fn is None
