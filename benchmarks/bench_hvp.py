"""Hessian-vector product of a 100-100-1 tanh MLP's squared-error loss: `autograd.functional.hvp`
(forward-over-reverse in ember, the double-backward trick in PyTorch), and by hand as the gradient
of <grad, v> (double backward in both)."""

import numpy as np

from common import measure_side_by_side, report, try_import_torch

BATCH, FEATURES, HIDDEN = 64, 100, 100


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(HIDDEN, FEATURES), (HIDDEN,), (1, HIDDEN), (1,)]
    params = [(rng.standard_normal(shape) * 0.1).astype(np.float32) for shape in shapes]
    vector = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
    y = rng.standard_normal((BATCH, 1)).astype(np.float32)
    return params, vector, x, y


def numpy_hvp(params, vector, x, y):
    """Pearlmutter's R-operator, derived by hand: forward, its directional derivative, backward, and
    the directional derivative of backward."""
    w1, b1, w2, b2 = params
    v1, c1, v2, c2 = vector

    def step():
        h = np.tanh(x @ w1.T + b1)
        out = h @ w2.T + b2
        residual = out - y
        r_h = (1 - h * h) * (x @ v1.T + c1)
        r_out = r_h @ w2.T + h @ v2.T + c2
        grad_out = 2 * residual / BATCH
        r_grad_out = 2 * r_out / BATCH
        grad_h = grad_out @ w2
        r_grad_h = r_grad_out @ w2 + grad_out @ v2
        r_grad_z = r_grad_h * (1 - h * h) - grad_h * 2 * h * r_h
        return (r_grad_z.T @ x, r_grad_z.sum(0), r_grad_out.T @ h + grad_out.T @ r_h, r_grad_out.sum(0))

    return step


def library_hvp(lib, params, vector, x, y):
    """`lib.autograd.functional.hvp` of the loss at the parameters."""
    tensors = tuple(lib.from_numpy(p.copy()) for p in params)
    directions = tuple(lib.from_numpy(v) for v in vector)
    inputs, targets = lib.from_numpy(x), lib.from_numpy(y)

    def loss(w1, b1, w2, b2):
        out = lib.tanh(inputs @ w1.t() + b1) @ w2.t() + b2
        return ((out - targets) ** 2).mean()

    def step():
        return lib.autograd.functional.hvp(loss, tensors, directions)[1]

    return step


def library_double_backward(lib, params, vector, x, y):
    """The HVP by hand: the gradient of <gradient, v> (two reverse passes)."""
    tensors = [lib.from_numpy(p.copy()).requires_grad_() for p in params]
    directions = [lib.from_numpy(v) for v in vector]
    inputs, targets = lib.from_numpy(x), lib.from_numpy(y)

    def step():
        w1, b1, w2, b2 = tensors
        out = lib.tanh(inputs @ w1.t() + b1) @ w2.t() + b2
        loss = ((out - targets) ** 2).mean()
        grads = lib.autograd.grad(loss, tensors, create_graph=True)
        dot = sum((g * v).sum() for g, v in zip(grads, directions))
        return lib.autograd.grad(dot, tensors)

    return step


def run():
    params, vector, x, y = make_data()
    reference = numpy_hvp(params, vector, x, y)()
    torch = try_import_torch()
    import ember

    rows = []
    for title, make in (
        ("Hessian-vector product, 100-100-1 tanh MLP (autograd.functional.hvp)", library_hvp),
        ("Hessian-vector product, 100-100-1 tanh MLP (grad of <grad, v>, by hand)", library_double_backward),
    ):
        steps = {"numpy": numpy_hvp(params, vector, x, y)}
        if torch is not None:
            steps["torch"] = make(torch, params, vector, x, y)
        steps["ember"] = make(ember, params, vector, x, y)
        for name, step in steps.items():
            for got, want in zip(step(), reference):
                got = got.numpy() if hasattr(got, "numpy") else got
                if not np.allclose(got, want, rtol=1e-3, atol=1e-5):
                    raise AssertionError(f"HVP disagrees: {name}")
        times = measure_side_by_side(steps, 200)
        rows.append(report(title, times, target="<= 1.0x PyTorch"))
    return rows


if __name__ == "__main__":
    run()
