"""One SGD step of an MLP 784-512-512-10 with ReLU and cross-entropy, batch 128."""

import numpy as np

from common import measure_side_by_side, report, try_import_torch

SIZES = (784, 512, 512, 10)
BATCH = 128
LR = 0.01


def make_data(seed=0):
    """Weights with PyTorch's Linear initialisation (uniform +-1/sqrt(fan_in)), a batch, labels."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH)
    return params, x, y


def numpy_step(params, x, y):
    """Forward and backward derived by hand: the floor for any NumPy-based engine."""
    params = [p.copy() for p in params]
    rows = np.arange(BATCH)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h1 = x @ w1.T + b1
        a1 = np.maximum(h1, 0)
        h2 = a1 @ w2.T + b2
        a2 = np.maximum(h2, 0)
        logits = a2 @ w3.T + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        probabilities = exp / exp.sum(axis=1, keepdims=True)
        loss = -np.log(probabilities[rows, y]).mean()
        grad_logits = probabilities
        grad_logits[rows, y] -= 1
        grad_logits /= BATCH
        grad_a2 = grad_logits @ w3
        grad_h2 = grad_a2 * (h2 > 0)
        grad_a1 = grad_h2 @ w2
        grad_h1 = grad_a1 * (h1 > 0)
        grads = (grad_h1.T @ x, grad_h1.sum(0), grad_h2.T @ a1, grad_h2.sum(0), grad_logits.T @ a2, grad_logits.sum(0))
        for param, grad in zip(params, grads):
            param -= LR * grad
        return loss

    return step


def library_step(lib, params, x, y):
    """The same step written once for torch and ember (`import ember as torch`)."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    with lib.no_grad():
        for param, value in zip(model.parameters(), params):
            param.copy_(lib.from_numpy(value.copy()))
    optimizer = lib.optim.SGD(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    inputs, targets = lib.from_numpy(x), lib.from_numpy(y)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def check_agreement(implementations):
    params, x, y = make_data()
    losses = {name: [make(params, x, y)() for _ in range(1)] for name, make in implementations.items()}
    steps = {name: make(params, x, y) for name, make in implementations.items()}
    losses = {name: [step() for _ in range(3)] for name, step in steps.items()}
    reference = losses["numpy"]
    for name, values in losses.items():
        if not np.allclose(values, reference, rtol=1e-4):
            raise AssertionError(f"MLP losses disagree: {name} {values} vs numpy {reference}")


def implementations():
    result = {"numpy": numpy_step}
    torch = try_import_torch()
    if torch is not None:
        result["torch"] = lambda p, x, y: library_step(torch, p, x, y)
    import ember

    result["ember"] = lambda p, x, y: library_step(ember, p, x, y)
    return result


def run():
    makers = implementations()
    check_agreement(makers)
    params, x, y = make_data()
    times = measure_side_by_side({name: make(params, x, y) for name, make in makers.items()}, 30)
    return report("MLP 784-512-512-10, batch 128, SGD step", times, target="<= 1.05x NumPy and <= 1.0x PyTorch")


if __name__ == "__main__":
    run()
