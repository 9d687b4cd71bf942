"""The weight-gradient GEMM of convolution in its two layouts, grad @ columns.T against
(columns @ grad.T).T, on LeNet-5's convolutions and a few common shapes (float32).

ember.ops.conv picks the layout by the rows of the columns, in channels x kernel size
(`_weight_gradient_transposed`);
this prints both, their ratio and which one the rule picks. The figures move with the machine's
load and OpenBLAS's threads: compare with OPENBLAS_NUM_THREADS=1 as well.

    python bench_conv_weight_grad.py
"""

import numpy as np

from common import format_seconds, measure_side_by_side

SHAPES = [
    # name, input (N, C, H, W), weight (out, in, kH, kW), padding
    ("LeNet conv1, 1->6 5x5 pad 2 on 28x28, batch 64", (64, 1, 28, 28), (6, 1, 5, 5), 2),
    ("LeNet conv2, 6->16 5x5 on 14x14, batch 64", (64, 6, 14, 14), (16, 6, 5, 5), 0),
    ("3->64 3x3 pad 1 on 32x32, batch 32", (32, 3, 32, 32), (64, 3, 3, 3), 1),
    ("6->16 3x3 pad 1 on 16x16, batch 64", (64, 6, 16, 16), (16, 6, 3, 3), 1),
    ("16->32 3x3 pad 1 on 8x8, batch 64", (64, 16, 8, 8), (32, 16, 3, 3), 1),
    ("64->128 3x3 pad 1 on 16x16, batch 32", (32, 64, 16, 16), (128, 64, 3, 3), 1),
]


def run():
    from ember.ops import conv

    rule = conv._weight_gradient_transposed
    rng = np.random.default_rng(0)
    try:
        for name, x_shape, weight_shape, padding in SHAPES:
            x = rng.standard_normal(x_shape).astype(np.float32)
            weight = rng.standard_normal(weight_shape).astype(np.float32)
            geometry = (1, 1), (padding, padding), (1, 1), 1
            output, columns = conv._convolution_array(x, weight, None, *geometry)
            grad = rng.standard_normal(output.shape).astype(np.float32)
            kernel = weight_shape[2:]

            def layout(transposed):
                conv._weight_gradient_transposed = lambda column_rows: transposed
                return conv._conv_weight_array(x, grad, kernel, *geometry, columns)

            if not np.allclose(layout(False), layout(True), rtol=1e-4, atol=1e-3):
                raise AssertionError(f"the two layouts disagree on {name}")
            times = measure_side_by_side(
                {"grad @ columns.T": lambda: layout(False), "(columns @ grad.T).T": lambda: layout(True)}, 20
            )
            plain, transposed = times.values()
            chosen = "(columns @ grad.T).T" if rule(columns.shape[1]) else "grad @ columns.T"
            print(f"\n{name}")
            for label, seconds in times.items():
                print(f"  {label:<22} {format_seconds(seconds):>12}")
            print(f"  transposed/plain: {transposed / plain:.2f}x   ember uses {chosen}")
    finally:
        conv._weight_gradient_transposed = rule


if __name__ == "__main__":
    run()
