"""One SGD step of LeNet-5 on 1x28x28 inputs, batch 64:
conv 5x5 pad 2 -> ReLU -> max pool 2 -> conv 5x5 -> ReLU -> max pool 2 -> 120 -> 84 -> 10."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from common import measure_side_by_side, report, try_import_torch

BATCH = 64
LR = 0.01
SHAPES = [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 400), (120,), (84, 120), (84,), (10, 84), (10,)]


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for shape in SHAPES:
        fan_in = int(np.prod(SHAPES[len(params) - 1][1:])) if len(shape) == 1 else int(np.prod(shape[1:]))
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    x = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, BATCH)
    return params, x, y


def _im2col(x, kernel, padding):
    if padding:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    windows = sliding_window_view(x, (kernel, kernel), axis=(2, 3))  # N, C, Ho, Wo, k, k
    n, c, out_h, out_w = windows.shape[:4]
    return windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * out_h * out_w, -1), (n, c, out_h, out_w)


def _conv_forward(x, weight, bias, padding):
    columns, (n, _, out_h, out_w) = _im2col(x, weight.shape[-1], padding)
    out = columns @ weight.reshape(weight.shape[0], -1).T + bias
    return out.reshape(n, out_h, out_w, -1).transpose(0, 3, 1, 2), columns


def _conv_backward(grad, columns, weight, input_shape, padding, need_input):
    filters = weight.shape[0]
    grad_rows = grad.transpose(0, 2, 3, 1).reshape(-1, filters)
    grad_weight = (grad_rows.T @ columns).reshape(weight.shape)
    grad_bias = grad_rows.sum(0)
    if not need_input:
        return None, grad_weight, grad_bias
    n, c, h, w = input_shape
    k = weight.shape[-1]
    out_h, out_w = grad.shape[2:]
    grad_columns = (grad_rows @ weight.reshape(filters, -1)).reshape(n, out_h, out_w, c, k, k)
    grad_input = np.zeros((n, c, h + 2 * padding, w + 2 * padding), np.float32)
    for i in range(k):
        for j in range(k):
            grad_input[:, :, i : i + out_h, j : j + out_w] += grad_columns[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    if padding:
        grad_input = grad_input[:, :, padding:-padding, padding:-padding]
    return grad_input, grad_weight, grad_bias


def _pool_forward(x):
    n, c, h, w = x.shape
    blocks = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = blocks.max(axis=(3, 5))
    mask = blocks == out[:, :, :, None, :, None]
    return out, mask


def _pool_backward(grad, mask):
    n, c, h, _, w, _ = mask.shape
    return (mask * grad[:, :, :, None, :, None]).reshape(n, c, h * 2, w * 2)


def numpy_step(params, x, y):
    params = [p.copy() for p in params]
    rows = np.arange(BATCH)

    def step():
        c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b, f3w, f3b = params
        z1, cols1 = _conv_forward(x, c1w, c1b, 2)
        a1 = np.maximum(z1, 0)
        p1, mask1 = _pool_forward(a1)
        z2, cols2 = _conv_forward(p1, c2w, c2b, 0)
        a2 = np.maximum(z2, 0)
        p2, mask2 = _pool_forward(a2)
        flat = p2.reshape(BATCH, -1)
        h1 = flat @ f1w.T + f1b
        r1 = np.maximum(h1, 0)
        h2 = r1 @ f2w.T + f2b
        r2 = np.maximum(h2, 0)
        logits = r2 @ f3w.T + f3b
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities = exp / exp.sum(axis=1, keepdims=True)
        loss = -np.log(probabilities[rows, y]).mean()
        g = probabilities
        g[rows, y] -= 1
        g /= BATCH
        grads = [None] * 10
        grads[8], grads[9] = g.T @ r2, g.sum(0)
        g = (g @ f3w) * (h2 > 0)
        grads[6], grads[7] = g.T @ r1, g.sum(0)
        g = (g @ f2w) * (h1 > 0)
        grads[4], grads[5] = g.T @ flat, g.sum(0)
        g = (g @ f1w).reshape(p2.shape)
        g = _pool_backward(g, mask2) * (z2 > 0)
        g, grads[2], grads[3] = _conv_backward(g, cols2, c2w, p1.shape, 0, True)
        g = _pool_backward(g, mask1) * (z1 > 0)
        _, grads[0], grads[1] = _conv_backward(g, cols1, c1w, x.shape, 2, False)
        for param, grad in zip(params, grads):
            param -= LR * grad
        return loss

    return step


def library_step(lib, params, x, y):
    nn, functional = lib.nn, lib.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(400, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = functional.max_pool2d(functional.relu(self.conv1(x)), 2)
            x = functional.max_pool2d(functional.relu(self.conv2(x)), 2)
            x = x.flatten(1)
            return self.fc3(functional.relu(self.fc2(functional.relu(self.fc1(x)))))

    model = LeNet()
    with lib.no_grad():
        for param, value in zip(model.parameters(), params):
            param.copy_(lib.from_numpy(value.copy()))
    optimizer = lib.optim.SGD(model.parameters(), lr=LR)
    inputs, targets = lib.from_numpy(x), lib.from_numpy(y)

    def step():
        optimizer.zero_grad()
        loss = functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def run():
    params, x, y = make_data()
    makers = {"numpy": numpy_step}
    torch = try_import_torch()
    if torch is not None:
        makers["torch"] = lambda p, x, y: library_step(torch, p, x, y)
    import ember

    makers["ember"] = lambda p, x, y: library_step(ember, p, x, y)
    steps = {name: make(params, x, y) for name, make in makers.items()}
    losses = {name: [step() for _ in range(3)] for name, step in steps.items()}
    for name, values in losses.items():
        if not np.allclose(values, losses["numpy"], rtol=1e-3):
            raise AssertionError(f"LeNet losses disagree: {name} {values} vs numpy {losses['numpy']}")
    times = measure_side_by_side(steps, 20)
    return report("LeNet-5, batch 64, SGD step", times, target="<= 1.5x PyTorch")


if __name__ == "__main__":
    run()
