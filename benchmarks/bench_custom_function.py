"""The book's custom Function z = w*x + b on 1000x1000 float32 tensors, forward + backward."""

import numpy as np

from common import measure_side_by_side, report, try_import_torch

SIZE = 1000


def make_data():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((SIZE, SIZE)).astype(np.float32) for _ in range(3)]


def numpy_step(w, x, b):
    def step():
        z = w * x + b
        grad = np.ones_like(z)
        return z, grad * x, grad * w, grad

    return step


def library_step(lib, w, x, b, seed_made_once=False):
    """The step in `lib`. Like the NumPy step it makes the seed gradient `ones_like(z)` inside the step;
    with `seed_made_once` it passes one `ones` tensor made outside instead: b's gradient is then the
    caller's tensor, which `.grad` must not become, so it is copied (one more 4 MB pass than NumPy)."""
    from ember._examples import define_multiply_add

    MultiplyAdd = define_multiply_add(lib.autograd.Function)
    tw, tx, tb = (lib.from_numpy(a.copy()).requires_grad_() for a in (w, x, b))
    ones = lib.ones(SIZE, SIZE) if seed_made_once else None

    def step():
        z = MultiplyAdd.apply(tw, tx, tb)
        z.backward(lib.ones_like(z) if ones is None else ones)
        grads = tw.grad, tx.grad, tb.grad
        tw.grad = tx.grad = tb.grad = None
        return z, grads

    return step


def run():
    w, x, b = make_data()
    steps = {"numpy": numpy_step(w, x, b)}
    torch = try_import_torch()
    if torch is not None:
        steps["torch"] = library_step(torch, w, x, b)
    import ember

    steps["ember"] = library_step(ember, w, x, b)
    times = measure_side_by_side(steps, 30)
    return report("custom Function z = w*x + b, 1000x1000, fwd+bwd", times, target="<= 1.05x NumPy")


if __name__ == "__main__":
    run()
