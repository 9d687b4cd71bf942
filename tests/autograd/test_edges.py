"""Graph edges: one Edge per forward argument, NO_EDGE where no gradient flows; users see PyTorch's
`next_functions` tuples."""

import pytest

import ember
from ember.autograd import Function
from ember.autograd.edge import Edge, NO_EDGE


class ScaleBy(Function):
    """A user Function with a non-tensor argument between two tensors."""

    @staticmethod
    def forward(ctx, x, factor, y):
        ctx.factor = factor
        return x * factor + y

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None, grad


class GradientForANumber(ScaleBy):
    @staticmethod
    def backward(ctx, grad):
        return grad, grad, grad


GRAPHS = {
    "mul by a number": lambda t, x, y: x * 2,
    "number times": lambda t, x, y: 2 * x,
    "pow": lambda t, x, y: x.pow(2),
    "sum over a dim": lambda t, x, y: x.sum(0),
    "with a constant tensor": lambda t, x, y: x * t.ones(3),
    "add": lambda t, x, y: x + y,
    "transpose": lambda t, x, y: x.reshape(3, 1).transpose(0, 1),
}


def _shape_of(next_functions):
    return [(None if node is None else node.name(), number) for node, number in next_functions]


@pytest.mark.parametrize("graph", GRAPHS.values(), ids=list(GRAPHS))
def test_next_functions_match_torch(graph):
    torch = pytest.importorskip("torch")
    results = []
    for library in (ember, torch):
        x = library.ones(3, requires_grad=True)
        y = library.ones(3, requires_grad=True)
        results.append(_shape_of(graph(library, x, y).grad_fn.next_functions))
    assert results[0] == results[1]


def test_every_argument_has_an_edge_and_non_tensors_are_listed():
    x, y = ember.ones(3, requires_grad=True), ember.ones(3)
    node = ScaleBy.apply(x, 2.0, y).grad_fn
    assert all(type(edge) is Edge for edge in node._edges) and len(node._edges) == 3
    assert node._edges[1] is NO_EDGE and node._edges[2] is NO_EDGE
    assert node._non_tensor_inputs == (1,)
    assert _shape_of(node.next_functions) == [("torch::autograd::AccumulateGrad", 0), (None, 0)]
    assert node._edges[0].input_nr == 0 and node._edges[0].shape == (3,)


def test_a_gradient_for_a_non_tensor_argument_is_an_error():
    x = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="position 1, but the corresponding forward input was not a tensor"):
        GradientForANumber.apply(x, 2.0, ember.ones(3)).sum().backward()


def test_a_gradient_for_a_tensor_that_needs_none_is_dropped():
    x = ember.ones(3, requires_grad=True)
    ScaleBy.apply(x, 2.0, ember.ones(3)).sum().backward()  # backward returns grad for y anyway
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_reflected_add_and_mul_record_the_tensor_first_as_pytorch():
    # The autograd tutorial walks `2 * sin(a) + 1` by next_functions[0][0]: the tensor's node comes first.
    a = ember.ones(3, requires_grad=True)
    b = ember.sin(a)
    for result in (2 * b, 2 + b):
        (first, _), (second, _) = result.grad_fn.next_functions
        assert first is b.grad_fn and second is None
    assert ember.equal(2 * b, b * 2) and ember.equal(2 + b, b + 2)
