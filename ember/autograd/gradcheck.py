"""Numerical gradient checks: compare backward's Jacobian with central differences.

Failures name the input and output and show the worst few elements, not the whole Jacobian.
"""
import warnings

import numpy as np

from .._tensor import Tensor, new_tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "numerical_jacobian", "analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical gradients disagree."""


def _as_tuple(value):
    return value if isinstance(value, tuple) else tuple(value) if isinstance(value, list) else (value,)


def _differentiable_outputs(function, inputs):
    outputs = _as_tuple(function(*inputs))
    return [output for output in outputs if isinstance(output, Tensor) and output._requires_grad]


def numerical_jacobian(function, inputs, output_index, input_index, eps):
    """d output / d input by central differences, as a (input.numel(), output.numel()) array."""
    tensor = inputs[input_index]
    data = tensor._data
    flat = data.reshape(-1) if data.flags.c_contiguous else None
    if flat is None:
        raise ValueError("gradcheck needs contiguous inputs")
    # Not under no_grad: gradgradcheck's function itself computes gradients.
    def evaluate():
        return _differentiable_outputs(function, inputs)[output_index]._data.astype(np.float64).ravel()

    reference = evaluate()
    columns = np.zeros((data.size, reference.size), dtype=np.float64)
    for element in range(data.size):
        original = flat[element]
        flat[element] = original + eps
        plus = evaluate()
        flat[element] = original - eps
        minus = evaluate()
        flat[element] = original
        columns[element] = (plus - minus) / (2 * eps)
    return columns


def analytical_jacobian(function, inputs, output_index, input_index):
    """d output / d input from backward, one basis vector of the output at a time."""
    from . import grad as autograd_grad
    outputs = _differentiable_outputs(function, inputs)
    output = outputs[output_index]
    tensor = inputs[input_index]
    jacobian = np.zeros((tensor._data.size, output._data.size), dtype=np.float64)
    for element in range(output._data.size):
        basis = np.zeros(output._data.shape, dtype=output._data.dtype)
        basis.reshape(-1)[element] = 1
        grads = autograd_grad([output], [tensor], [new_tensor(basis)], retain_graph=True, allow_unused=True)
        if grads[0] is not None:
            jacobian[:, element] = grads[0]._data.astype(np.float64).ravel()
    return jacobian


def _worst_elements(analytical, numerical, count=5):
    difference = np.abs(analytical - numerical)
    order = np.argsort(difference, axis=None)[::-1][:count]
    rows = []
    for flat_index in order:
        input_element, output_element = np.unravel_index(flat_index, difference.shape)
        rows.append(f"    input element {input_element:>4}, output element {output_element:>4}: "
                    f"analytical {analytical[input_element, output_element]: .6g}  "
                    f"numerical {numerical[input_element, output_element]: .6g}")
    return "\n".join(rows)


def _likely_cause(analytical, numerical):
    if np.allclose(analytical, 0) and not np.allclose(numerical, 0):
        return "backward returned zeros (or None) where the function does depend on this input"
    ratio = numerical[np.abs(analytical) > 1e-12] / analytical[np.abs(analytical) > 1e-12]
    if ratio.size and np.allclose(ratio, ratio.flat[0], rtol=1e-3) and not np.isclose(ratio.flat[0], 1):
        return (f"the gradient is off by a constant factor of {ratio.flat[0]:.4g}: check constants in backward, "
                "or whether it multiplies by grad_output")
    if np.allclose(analytical, -numerical):
        return "the gradient has the wrong sign"
    return "backward's formula disagrees with the function (or the gradient went to the wrong input)"


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """Check backward against finite differences for every differentiable input and output.

    Use float64 inputs: in float32 the finite differences are too coarse (a warning says so).
    Returns True, or raises GradcheckError (False with raise_exception=False).
    """
    inputs = _as_tuple(inputs)
    differentiable = [i for i, value in enumerate(inputs) if isinstance(value, Tensor) and value._requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    for index in differentiable:
        if inputs[index].dtype.name != "float64":
            warnings.warn(f"Input #{index} requires gradient and is not a double precision floating point. "
                          "The finite differences of gradcheck are only reliable in float64: use "
                          "tensor.double().", UserWarning, stacklevel=2)
    outputs = _differentiable_outputs(func, inputs)
    for output_index in range(len(outputs)):
        for input_index in differentiable:
            analytical = analytical_jacobian(func, inputs, output_index, input_index)
            numerical = numerical_jacobian(func, inputs, output_index, input_index, eps)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                message = (
                    f"Jacobian mismatch for output {output_index} with respect to input {input_index},\n"
                    f"worst elements (of {analytical.size}):\n{_worst_elements(analytical, numerical)}\n"
                    f"likely cause: {_likely_cause(analytical, numerical)}")
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second derivatives: gradcheck of the function `inputs -> grad(func(inputs), inputs)`."""
    from . import grad as autograd_grad
    inputs = _as_tuple(inputs)
    differentiable = [value for value in inputs if isinstance(value, Tensor) and value._requires_grad]
    outputs = _differentiable_outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [new_tensor(rng.standard_normal(o._data.shape).astype(o._data.dtype), True) for o in outputs]
    grad_outputs = list(_as_tuple(grad_outputs))
    count = len(inputs)

    def first_derivatives(*values):
        tensors, given = values[:count], values[count:]
        results = _differentiable_outputs(func, tensors)
        wanted = [t for t in tensors if isinstance(t, Tensor) and t._requires_grad]
        grads = autograd_grad(results, wanted, list(given), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception) if differentiable else True
