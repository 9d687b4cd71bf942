"""0-d tensors through first-order backwards that run on arrays: NumPy turns 0-d array arithmetic
into scalars, which the broadcast-undoing helper must still take (a Wishart entropy hit this)."""

import ember


def test_product_of_an_expanded_0d_tensor_with_itself():
    x = ember.tensor(4.0, dtype=ember.float64, requires_grad=True)
    expanded = x.expand(())
    (grad,) = ember.autograd.grad(expanded * expanded, [x])
    assert grad.item() == 8.0


def test_0d_product_broadcast_against_a_vector():
    x = ember.tensor(3.0, dtype=ember.float64, requires_grad=True)
    y = x.expand(())
    total = ((y - 1) * (y.unsqueeze(-1) - ember.arange(2, dtype=ember.float64)).sum(-1)).sum()
    (grad,) = ember.autograd.grad(total, [x])
    # d/dx (x - 1)(2x - 1) = 4x - 3
    assert grad.item() == 9.0
