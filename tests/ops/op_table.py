"""The op table: one declaration per op drives its forward, gradient and differential tests.

Each family adds its cases in `tests/ops/table_<family>.py` as a list named CASES; the driver in
`test_op_table.py` collects every table. A case states:

- `name`: for test ids;
- `ember_fn(*tensors)`: the op under test (positional tensor inputs; other arguments bound in);
- `numpy_fn(*arrays)`: an independent NumPy reference for the forward value (float64);
- `shapes`: a list of input-shape tuples, one tuple of shapes per variant (broadcasting, 0-d, ...);
- `domain`: (low, high) for random inputs (e.g. (0.1, 2) for log), or `make_inputs(shapes, rng)`;
- `grad`: run float64 gradcheck; `gradgrad`: also gradgradcheck (ops used inside backward formulas);
- `torch_fn(torch, *tensors)`: the same op in torch for differential tests (values and gradients);
- `differentiable_inputs`: which inputs require grad (default: all floating inputs).
"""

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence


@dataclass
class OpCase:
    name: str
    ember_fn: Callable
    numpy_fn: Optional[Callable]
    shapes: Sequence[tuple]
    domain: tuple = (-2.0, 2.0)
    grad: bool = True
    gradgrad: bool = True
    torch_fn: Optional[Callable] = None
    make_inputs: Optional[Callable] = None
    differentiable_inputs: Optional[Sequence[int]] = None
    rtol: float = 1e-7
    atol: float = 1e-7
    tags: tuple = field(default_factory=tuple)

    def inputs(self, shapes, rng):
        """float64 arrays for one variant of the input shapes."""
        if self.make_inputs is not None:
            return self.make_inputs(shapes, rng)
        low, high = self.domain
        return [rng.uniform(low, high, size=shape) for shape in shapes]
