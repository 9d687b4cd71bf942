"""Every op-table case, compiled: forward, backward and double backward equal eager bit for bit.

A case whose step cannot be replayed (a graph break) runs eagerly and is skipped here with its reason,
so the skips list what ember.compile does not cover yet."""

import warnings

import numpy as np
import pytest

import ember
from ember.compiler import CompileWarning

from ..ops.test_op_table import VARIANTS, _arrays, _as_tuple, _ember_inputs


def _step(case):
    def step(*tensors):
        outputs = _as_tuple(case.ember_fn(*tensors))
        wanted = [t for t in tensors if t.requires_grad]
        values = [o for o in outputs if isinstance(o, ember.Tensor)]
        differentiable = [o for o in values if o.requires_grad]
        if not wanted or not differentiable or not case.grad:
            return [o.detach() for o in values]
        total = sum(o.sum() for o in differentiable)
        grads = ember.autograd.grad(total, wanted, create_graph=case.gradgrad, allow_unused=True)
        result = [o.detach() for o in values] + [g.detach() for g in grads if g is not None]
        second = [g for g in grads if g is not None and g.requires_grad]
        if case.gradgrad and second:
            again = ember.autograd.grad(sum(g.sum() for g in second), wanted, allow_unused=True)
            result += [g for g in again if g is not None]
        return result

    return step


def _bits(values):
    return [(v.dtype, tuple(v.shape), np.ascontiguousarray(v.numpy()).tobytes()) for v in values]


@pytest.mark.parametrize("case,index", VARIANTS)
def test_compiled_case_equals_eager(case, index):
    arrays = _arrays(case, index)
    step = _step(case)
    try:
        expected = _bits(step(*_ember_inputs(case, arrays)))
    except Exception as error:  # the eager step itself is not defined for this case (e.g. no grad)
        pytest.skip(f"eager step: {type(error).__name__}")
    compiled = ember.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileWarning)
        for _ in range(3):
            got = _bits(compiled(*_ember_inputs(case, arrays)))
            assert got == expected, f"{case.name}: compiled differs from eager"
    if compiled.eager_reason:
        pytest.skip(f"graph break: {compiled.eager_reason[0][0]}")
