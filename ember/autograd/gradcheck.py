"""Numerical gradient checks that teach: compare backward's Jacobian with central differences, and
when they disagree say where (which input, which output, the worst elements) and why it is likely.

* `gradcheck(func, inputs)`: first derivatives, PyTorch's signature and keyword names.
* `gradgradcheck(func, inputs)`: second derivatives (gradcheck of the gradient itself).
* `check_function(MyFunction, *inputs)`: everything a custom `Function` should pass — the backward
  contract (one gradient per input, right shapes, None for non-tensors, grad_output left alone,
  callable twice), gradcheck, gradgradcheck (or the clear error of `@once_differentiable`) and,
  when it defines `jvp`, forward AD — in one report.
"""

import warnings

import numpy as np

from .._sparse_coo import SparseCoo
from .._tensor import Tensor, new_tensor
from . import grad_mode
from .._warn import warn as _warn

__all__ = [
    "gradcheck",
    "gradgradcheck",
    "check_function",
    "GradcheckError",
    "FunctionCheckReport",
    "numerical_jacobian",
    "analytical_jacobian",
    "get_numerical_jacobian",
    "get_analytical_jacobian",
]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical gradients disagree."""


def _as_tuple(value):
    return value if isinstance(value, tuple) else tuple(value) if isinstance(value, list) else (value,)


def _differentiable_outputs(function, inputs):
    outputs = _as_tuple(function(*inputs))
    return [output for output in outputs if isinstance(output, Tensor) and output._requires_grad]


# ---------------------------------------------------------------- Jacobians
# Complex tensors are checked as real vectors, as PyTorch's gradcheck does: a complex input of n
# elements gives 2n rows (the real parts, then the imaginary parts), a complex output 2m columns.
# Backward must then give the real Jacobian's rows: with grad_output 1 (or 1j) at an output element,
# the gradient is d(real part) / dx + i d(real part) / dy (or of the imaginary part), PyTorch's
# conjugate Wirtinger convention. So a backward that returns grad * f'(z) for a holomorphic f,
# instead of grad * conj(f'(z)), fails here.
def _real_coordinates(array):
    """An array as the float64 vector gradcheck compares: complex values as real parts, then imaginary."""
    flat = array.ravel()
    if array.dtype.kind == "c":
        return np.concatenate([flat.real, flat.imag]).astype(np.float64)
    return flat.astype(np.float64)


def _parts(array):
    """The unit directions of one element: 1 for real dtypes; 1 and 1j for complex ones."""
    return (1, 1j) if array.dtype.kind == "c" else (1,)


def numerical_jacobian(function, inputs, output_index, input_index, eps):
    """d output / d input by central differences, as an (input.numel(), output.numel()) float64 array
    (twice as many rows or columns for a complex input or output: real parts, then imaginary)."""
    return _numerical_jacobians(function, inputs, input_index, eps)[output_index]


def _numerical_jacobians(function, inputs, input_index, eps, outputs_of=_differentiable_outputs):
    """Central differences of every differentiable output (or of `outputs_of(function, inputs)`) with
    respect to one input (any strides). The outputs must keep their shapes and dtypes when an input
    moves, or the differences mean nothing (AssertionError, as in PyTorch)."""
    data = inputs[input_index]._data
    reference = outputs_of(function, inputs)

    # Not under no_grad: gradgradcheck's function itself computes gradients.
    def evaluate(element):
        outputs = outputs_of(function, inputs)
        for before, now in zip(reference, outputs):
            for what in ("shape", "dtype"):
                if getattr(before, what) != getattr(now, what):
                    raise AssertionError(
                        f"Expected `func` to return outputs with the same {what} when inputs are perturbed on "
                        f"index {element} by {eps}, but got: {what}s {getattr(before, what)} and "
                        f"{getattr(now, what)}."
                    )
        return [_real_coordinates(output._data) for output in outputs]

    parts = _parts(data)
    jacobians = [
        np.zeros((data.size * len(parts), _real_coordinates(out._data).size), dtype=np.float64) for out in reference
    ]
    for part, direction in enumerate(parts):
        for element in range(data.size):
            position = np.unravel_index(element, data.shape)
            original = data[position].copy()
            data[position] = original + eps * direction
            plus = evaluate(element)
            data[position] = original - eps * direction
            minus = evaluate(element)
            data[position] = original
            for jacobian, high, low in zip(jacobians, plus, minus):
                jacobian[part * data.size + element] = (high - low) / (2 * eps)
    return jacobians


def analytical_jacobian(function, inputs, output_index, input_index):
    """d output / d input from backward, one basis vector of the output at a time."""
    outputs = _differentiable_outputs(function, inputs)
    return _analytical_jacobians(outputs[output_index], inputs, [input_index])[0]


def _analytical_jacobians(output, inputs, input_indices):
    """d output / d each input, from backward with one-hot grad_outputs (one forward, many backwards)."""
    from . import grad as autograd_grad

    wanted = [inputs[index] for index in input_indices]
    data = output._data
    parts = _parts(data)
    jacobians = [
        np.zeros((tensor._data.size * len(_parts(tensor._data)), data.size * len(parts)), dtype=np.float64)
        for tensor in wanted
    ]
    for part, direction in enumerate(parts):
        for element in range(data.size):
            basis = np.zeros(data.shape, dtype=data.dtype)
            basis.reshape(-1)[element] = direction
            grads = autograd_grad([output], wanted, [new_tensor(basis)], retain_graph=True, allow_unused=True)
            for jacobian, grad in zip(jacobians, grads):
                if grad is not None:
                    jacobian[:, part * data.size + element] = _real_coordinates(grad._data)
    return jacobians


def _private_api_warning(name):
    _warn(
        f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are deprecating it "
        "and it will be removed in a future version of PyTorch. If you have a specific use for this or "
        "feature request for this to be a stable API, please file us an issue at "
        "https://github.com/pytorch/pytorch/issues/new",
        FutureWarning,
        stacklevel=3,
    )


def _check_grad_out(grad_out, name):
    if grad_out != 1.0:
        raise ValueError(f"Expected grad_out to be 1.0. {name} no longer supports values of grad_out != 1.0.")


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated (as in PyTorch): d fn(inputs)[0] / d each tensor of `target` (default: `inputs`) that
    requires grad, by central differences: a tuple of (input.numel(), output.numel()) tensors.
    `fn` takes the inputs as one tuple. Use `numerical_jacobian` or `torch.func.jacrev` instead."""
    _private_api_warning("get_numerical_jacobian")
    _check_grad_out(grad_out, "get_numerical_jacobian")
    inputs = _as_tuple(inputs)
    targets = inputs if target is None else _as_tuple(target)

    def first_output(*args):
        outputs = fn(args)
        return outputs[0] if isinstance(outputs, (tuple, list)) else outputs

    jacobians = []
    for tensor in targets:
        if not (isinstance(tensor, Tensor) and tensor.requires_grad):
            continue
        index = next((i for i, given in enumerate(inputs) if given is tensor), None)
        if index is None:
            raise ValueError("get_numerical_jacobian: each target must be one of the inputs")
        jacobians.append(new_tensor(_numerical_jacobians(first_output, inputs, index, eps)[0]))
    return tuple(jacobians)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated (as in PyTorch): d output / d each input that requires grad, from backward, as
    (jacobians, reentrant, correct_grad_sizes, correct_grad_types); `reentrant` says whether a second
    run of backward gives the same Jacobians within `nondet_tol`."""
    _private_api_warning("get_analytical_jacobian")
    _check_grad_out(grad_out, "get_analytical_jacobian")
    inputs = _as_tuple(inputs)
    indices = [i for i, tensor in enumerate(inputs) if isinstance(tensor, Tensor) and tensor.requires_grad]
    first = _analytical_jacobians(output, inputs, indices)
    second = _analytical_jacobians(output, inputs, indices)
    reentrant = all(np.max(np.abs(a - b), initial=0.0) <= nondet_tol for a, b in zip(first, second))
    # ember's engine refuses gradients of the wrong shape or dtype before they get here
    return tuple(new_tensor(jacobian) for jacobian in first), reentrant, True, True


def _forward_jacobians(function, inputs, input_index, differentiable):
    """d outputs / d one input from forward AD, one basis tangent at a time; the other differentiable
    inputs are duals too, with zero tangents (as in PyTorch: a function may read any input's tangent)."""
    from . import forward_ad

    tensor = inputs[input_index]
    data = tensor._data
    parts = _parts(data)
    columns = None
    for part, direction in enumerate(parts):
        for element in range(data.size):
            basis = np.zeros(data.shape, dtype=data.dtype)
            basis.reshape(-1)[element] = direction
            with forward_ad.dual_level():
                duals = list(inputs)
                for index in differentiable:
                    tangent = basis if index == input_index else np.zeros_like(inputs[index]._data)
                    duals[index] = forward_ad.make_dual(inputs[index], new_tensor(tangent))
                outputs = _differentiable_outputs(function, duals)
                tangents = [forward_ad.unpack_dual(output).tangent for output in outputs]
            if columns is None:
                columns = [
                    np.zeros((data.size * len(parts), output._data.size * len(_parts(output._data))))
                    for output in outputs
                ]
            for jacobian, tangent in zip(columns, tangents):
                if tangent is not None:
                    jacobian[part * data.size + element] = _real_coordinates(tangent._data)
    return columns or []


# ---------------------------------------------------------------- explaining a mismatch
def _element(flat_index, shape, is_complex=False):
    """The element a row or column stands for; `.real` / `.imag` for complex tensors."""
    size = int(np.prod(shape)) if shape else 1
    position = tuple(int(i) for i in np.unravel_index(flat_index % size, shape)) if shape else "()"
    if not is_complex:
        return position
    return f"{position}.{'imag' if flat_index >= size else 'real'}"


def _worst_elements(analytical, numerical, input_data, output_data, count=5):
    difference = np.abs(analytical - numerical)
    order = np.argsort(difference, axis=None)[::-1][:count]
    input_complex, output_complex = input_data.dtype.kind == "c", output_data.dtype.kind == "c"
    width = 24 if input_complex or output_complex else 18
    rows = [
        f"    {'input element':<{width}}{'output element':<{width}}{'analytical':>14}{'numerical':>14}"
        f"{'|difference|':>14}"
    ]
    for flat_index in order:
        input_element, output_element = np.unravel_index(flat_index, difference.shape)
        rows.append(
            f"    {str(_element(input_element, input_data.shape, input_complex)):<{width}}"
            f"{str(_element(output_element, output_data.shape, output_complex)):<{width}}"
            f"{analytical[input_element, output_element]:>14.6g}{numerical[input_element, output_element]:>14.6g}"
            f"{difference[input_element, output_element]:>14.3g}"
        )
    return "\n".join(rows)


def _conjugated(jacobian, input_data, output_data):
    """The real Jacobian of the conjugate convention (the real-imaginary cross terms negated): what a
    backward returning grad * f'(z) instead of grad * conj(f'(z)) gives."""
    row_signs = np.ones(jacobian.shape[0])
    if input_data.dtype.kind == "c":
        row_signs[input_data.size :] = -1
    column_signs = np.ones(jacobian.shape[1])
    if output_data.dtype.kind == "c":
        column_signs[output_data.size :] = -1
    return jacobian * np.outer(row_signs, column_signs)


def _close(a, b, rtol, atol, complex_input=False):
    """allclose of two Jacobians. For a complex input, whose rows are d/dx then d/dy, PyTorch
    compares the complex entries d/dx + i d/dy (its gradient convention), by their modulus."""
    if a.shape != b.shape:
        return False
    if complex_input:
        half = a.shape[0] // 2
        a, b = a[:half] + 1j * a[half:], b[:half] + 1j * b[half:]
    return np.allclose(a, b, rtol=rtol, atol=atol)


def _likely_cause(analytical, numerical, input_label, others, rtol, atol, complex_data=None):
    """The most specific explanation that fits. `others`: {label: numerical Jacobian} of the other
    inputs with the same output, to spot gradients returned in the wrong position; `complex_data`:
    (input array, output array) when either is complex."""
    tiny = 1e-12
    if np.allclose(analytical, 0) and not np.allclose(numerical, 0):
        return (
            f"backward returned None or zeros for {input_label}, but the output does depend on it: "
            "compute and return its gradient (check ctx.needs_input_grad and the position in the returned tuple)"
        )
    if complex_data is not None and _close(analytical, _conjugated(numerical, *complex_data), rtol, atol):
        return (
            "backward returns grad * f'(z), the derivative without its conjugate: for complex numbers "
            "PyTorch's convention (conjugate Wirtinger derivatives) needs grad * f'(z).conj()"
        )
    for label, other in others.items():
        if _close(analytical, other, rtol, atol):
            return (
                f"wrong gradient returned for {input_label}: it equals the gradient of {label}. backward returns "
                "its gradients in the wrong order; return one per forward input, in forward's order"
            )
    if (
        analytical.shape[1] > 1
        and np.allclose(analytical, analytical[:, :1], rtol=rtol, atol=atol)
        and not np.allclose(numerical, numerical[:, :1], rtol=rtol, atol=atol)
    ):
        return (
            "backward forgot to multiply by grad_output: its result is the same whichever output element the "
            "gradient comes from (return grad_output * local_derivative)"
        )
    if np.allclose(analytical, -numerical, rtol=rtol, atol=atol):
        return "the gradient has the wrong sign"
    mask = np.abs(analytical) > tiny
    ratio = numerical[mask] / analytical[mask]
    if (
        ratio.size
        and np.allclose(ratio, ratio.flat[0], rtol=1e-3)
        and not np.isclose(ratio.flat[0], 1)
        and np.allclose(numerical[~mask], 0, atol=atol)
    ):
        return (
            f"the gradient is off by a constant factor (numerical / analytical = {ratio.flat[0]:.4g}): check the "
            "constants in backward's formula"
        )
    if (
        analytical.shape == numerical.shape
        and analytical.shape[0] == analytical.shape[1]
        and np.allclose(np.diag(np.diag(numerical)), numerical, atol=atol)
        and not np.allclose(np.diag(np.diag(analytical)), analytical, atol=atol)
    ):
        return (
            "the function is element-wise but backward mixes elements (a matrix product or a sum where an "
            "element-wise product belongs?)"
        )
    return "backward's formula disagrees with the function's derivative"


def _label(index, inputs, names):
    tensor = inputs[index]
    name = f"input {index}" if names is None else names[index]
    return f"{name} (shape {list(tensor.shape)})"


def _fail(message, raise_exception):
    if raise_exception:
        raise GradcheckError(message)
    return False


# ---------------------------------------------------------------- gradcheck
def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
    _input_names=None,
):
    """Check backward (and optionally forward AD) against finite differences.

    Every differentiable output is checked against every input that requires grad. Use float64
    inputs: in float32 central differences are too coarse (a warning says so). Complex inputs and
    outputs are checked as PyTorch's gradcheck does, real and imaginary parts separately, against
    PyTorch's convention (a holomorphic f sends back `grad * conj(f'(z))`). Returns True, or
    raises GradcheckError whose message names the input and output, shows the worst elements and
    the likely cause (False instead with raise_exception=False).

    Example::

        x = ember.randn(3, dtype=ember.float64, requires_grad=True)
        ember.autograd.gradcheck(MySigmoid.apply, (x,))

    As PyTorch's, it also runs backward twice and compares (`nondet_tol`: how far the two may differ),
    and with `check_undefined_grad` checks that backward copes when output gradients are undefined
    (None) and then gives zero or undefined input gradients.

    Differences from PyTorch: `fast_mode` and the batched checks are accepted and ignored (the slow,
    exact mode always runs). Sparse COO inputs are
    checked through their stored values (the entries PyTorch perturbs too), with or without `masked`.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    inputs = _as_tuple(inputs)
    if any(type(value) is Tensor and type(value._data) is SparseCoo and value._requires_grad for value in inputs):
        func, inputs = _on_stored_values(func, inputs)
    differentiable = [i for i, value in enumerate(inputs) if isinstance(value, Tensor) and value._requires_grad]
    if not differentiable:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True."
        )
    for index in differentiable:
        if inputs[index]._data.dtype not in (np.float64, np.complex128):
            _warn(
                f"Input #{index} requires gradient and is not a double precision floating point. The "
                "finite differences of gradcheck are only reliable in float64: use tensor.double().",
                UserWarning,
                stacklevel=2,
            )
        _check_not_overlapping(index, inputs[index])
    outputs = _differentiable_outputs(func, inputs)
    if not outputs:
        return _check_no_differentiable_outputs(func, inputs, differentiable, eps, raise_exception, _input_names)
    numerical = {index: _numerical_jacobians(func, inputs, index, eps) for index in differentiable}

    if check_backward_ad:
        for output_index, output in enumerate(outputs):
            analytical = dict(zip(differentiable, _analytical_jacobians(output, inputs, differentiable)))
            again = dict(zip(differentiable, _analytical_jacobians(output, inputs, differentiable)))
            problem = _nondeterminism_problem(analytical, again, output_index, inputs, nondet_tol, _input_names)
            if problem:
                return _fail(problem, raise_exception)
            for index in differentiable:
                expected, got = numerical[index][output_index], analytical[index]
                if not _close(got, expected, rtol, atol, inputs[index]._data.dtype.kind == "c"):
                    others = {
                        _label(j, inputs, _input_names): numerical[j][output_index]
                        for j in differentiable
                        if j != index
                    }
                    message = _mismatch_message(
                        "Jacobian mismatch",
                        output_index,
                        output,
                        index,
                        inputs,
                        got,
                        expected,
                        others,
                        rtol,
                        atol,
                        _input_names,
                    )
                    return _fail(message, raise_exception)
            problem = _grad_output_linearity_problem(
                output, inputs, differentiable, analytical, rtol, atol, _input_names
            )
            if problem:
                return _fail(
                    f"backward not multiplied by grad_output: backward of output {output_index} is not linear "
                    f"in grad_output:\n{problem}",
                    raise_exception,
                )
            if check_grad_dtypes:
                problem = _grad_dtype_problem(output, inputs, differentiable, _input_names)
                if problem:
                    return _fail(problem, raise_exception)

        problem = _zero_grad_output_problem(outputs, inputs, differentiable, _input_names)
        if problem:
            return _fail(problem, raise_exception)
        if check_undefined_grad:
            problem = _undefined_grad_problem(func, inputs, differentiable, _input_names)
            if problem:
                return _fail(problem, raise_exception)

    if check_forward_ad:
        for index in differentiable:
            forward = _forward_jacobians(func, inputs, index, differentiable)
            for output_index, (got, expected) in enumerate(zip(forward, numerical[index])):
                if not _close(got, expected, rtol, atol, inputs[index]._data.dtype.kind == "c"):
                    message = _mismatch_message(
                        "Jacobian computed with forward mode mismatch",
                        output_index,
                        outputs[output_index],
                        index,
                        inputs,
                        got,
                        expected,
                        {},
                        rtol,
                        atol,
                        _input_names,
                        "the jvp (tangent rule)",
                    )
                    return _fail(message, raise_exception)
    return True


def _on_stored_values(func, inputs):
    """`func` of sparse COO inputs as a function of their stored values: each sparse input that requires
    grad is replaced by its coalesced values (a float tensor gradcheck can perturb) and rebuilt, with
    the same indices and size, before `func` sees it; its gradient is then checked at those entries."""
    from ..ops import sparse_coo_tensor

    rebuilt = {}
    replaced = list(inputs)
    for index, value in enumerate(inputs):
        if type(value) is Tensor and type(value._data) is SparseCoo and value._requires_grad:
            coo = value._data.coalesce()
            rebuilt[index] = (new_tensor(coo.indices), coo.shape)
            replaced[index] = new_tensor(coo.values.copy(), requires_grad=True)

    def on_values(*args):
        args = list(args)
        for index, (indices, shape) in rebuilt.items():
            args[index] = sparse_coo_tensor(indices, args[index], shape, is_coalesced=True)
        return func(*args)

    return on_values, tuple(replaced)


def _mismatch_message(
    title,
    output_index,
    output,
    input_index,
    inputs,
    analytical,
    numerical,
    others,
    rtol,
    atol,
    names,
    source="backward",
):
    label = _label(input_index, inputs, names)
    input_data, output_data = inputs[input_index]._data, output._data
    complex_data = (input_data, output_data) if "c" in (input_data.dtype.kind, output_data.dtype.kind) else None
    cause = _likely_cause(analytical, numerical, label, others, rtol, atol, complex_data)
    return (
        f"{title} for output {output_index} with respect to input {input_index},\n"
        f"  output {output_index} has shape {list(output.shape)} ({output.dtype}); {label}\n"
        f"  worst elements (of {analytical.size}; analytical from {source}, numerical from central differences):\n"
        f"{_worst_elements(analytical, numerical, input_data, output_data)}\n"
        f"  likely cause: {cause}"
    )


def _check_not_overlapping(index, tensor):
    """Central differences move one element at a time: an input whose elements share memory (a stride-0
    dimension, as expand gives) would move several. Raised whatever raise_exception says, as PyTorch does."""
    data = tensor._data.values if type(tensor._data) is SparseCoo else tensor._data
    if data.size > 1 and any(stride == 0 and size > 1 for stride, size in zip(data.strides, data.shape)):
        raise RuntimeError(
            f"The {index}th input has a dimension with stride 0. gradcheck only supports inputs that are "
            "non-overlapping to be able to compute the numerical gradients correctly. You should call "
            f".contiguous on the input before passing it to gradcheck (shape {list(tensor.shape)}, strides "
            f"{list(tensor.stride())}: an expanded tensor repeats one element)."
        )


def _tensor_outputs(function, inputs):
    return [output for output in _as_tuple(function(*inputs)) if isinstance(output, Tensor)]


def _check_no_differentiable_outputs(func, inputs, differentiable, eps, raise_exception, names):
    """No output requires grad, so none may depend on the inputs either (PyTorch's check): an output
    that changes with them has left the graph (torch.tensor(...) of a tensor, .item(), a no_grad block)."""
    for index in differentiable:
        for output_index, jacobian in enumerate(_numerical_jacobians(func, inputs, index, eps, _tensor_outputs)):
            if np.any(jacobian != 0):
                return _fail(
                    "Numerical gradient for function expected to be zero: no output requires grad, yet output "
                    f"{output_index} changes when {_label(index, inputs, names)} is perturbed (it was computed "
                    "outside the graph: torch.tensor(...) of a tensor, .item(), .numpy(), detach() or no_grad)",
                    raise_exception,
                )
    return True


def _zero_grad_output_problem(outputs, inputs, differentiable, names):
    """PyTorch's check that backward scales with grad_output: zero grad_outputs give gradients that are
    zero, of the input's dtype and shape."""
    from . import grad as autograd_grad

    zeros = [new_tensor(np.zeros_like(output._data)) for output in outputs]
    wanted = [inputs[index] for index in differentiable]
    for index, grad in zip(differentiable, autograd_grad(outputs, wanted, zeros, retain_graph=True, allow_unused=True)):
        if grad is None:
            continue
        label = _label(index, inputs, names)
        values = grad._data.values if type(grad._data) is SparseCoo else grad._data
        if np.any(values != 0):
            return (
                f"backward not multiplied by grad_output: with zero grad_outputs the gradient of {label} is "
                f"not zero (largest magnitude {np.max(np.abs(values)):.3g}): backward adds something that "
                "does not scale with grad_output (a constant, a hook's offset)"
            )
        if grad.dtype is not inputs[index].dtype:
            return f"grad is incorrect type: the gradient of {label} is {grad.dtype}, the input {inputs[index].dtype}"
        if tuple(grad.shape) != tuple(inputs[index].shape):
            return f"grad is incorrect size: the gradient of {label} has shape {list(grad.shape)}"
    return None


def _nondeterminism_problem(first, second, output_index, inputs, nondet_tol, names):
    """PyTorch's reentrancy check: backward run twice with the same grad_outputs gives the same Jacobian
    (within nondet_tol)."""
    for index, jacobian in first.items():
        difference = np.max(np.abs(jacobian - second[index]), initial=0.0)
        if difference > nondet_tol:  # (NaN in both runs is no nondeterminism: the Jacobian check says it)
            return (
                "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                f"times gives different values: for output {output_index}, the gradient of "
                f"{_label(index, inputs, names)} differs by up to {difference:.3g} between two runs (the "
                f"tolerance for nondeterminism was {nondet_tol}).\n  likely cause: backward keeps state between "
                "calls (a counter, a tensor it changes in place, a random draw); if the op is nondeterministic "
                "on purpose, pass nondet_tol=<tol>"
            )
    return None


def _undefined_grad_problem(func, inputs, differentiable, names):
    """Backward must cope with undefined (None) output gradients, all at once and, for several outputs,
    one at a time, and then give zero or undefined input gradients (PyTorch's check_undefined_grad)."""
    from .._C._functions import UndefinedGrad
    from . import grad as autograd_grad

    wanted = [inputs[index] for index in differentiable]
    outputs = _differentiable_outputs(func, inputs)
    cases = [[UndefinedGrad()(output) for output in outputs]]
    if len(outputs) > 1:
        for undefined in range(len(outputs)):
            fresh = _differentiable_outputs(func, inputs)
            cases.append([UndefinedGrad()(o) if i == undefined else o for i, o in enumerate(fresh)])
    notes = 'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
    # (PyTorch also warns, on failure, that this check is new and can be switched off)
    compatibility = (
        "Backwards compatibility: New undefined gradient support checking feature is enabled by default, but it "
        "may break existing callers of this function. If this is true for you, you can call this function with "
        '"check_undefined_grad=False" to disable the feature'
    )
    for case in cases:
        zeros = [new_tensor(np.zeros_like(output._data)) for output in case]
        try:
            grads = autograd_grad(case, wanted, zeros, allow_unused=True)
        except RuntimeError as error:
            _warn(compatibility, UserWarning, stacklevel=4)
            return (
                f"Expected backward function to handle undefined output grads. {notes}.\n  backward raised "
                f"{type(error).__name__}: {error}\n  (a backward must accept None for an output nobody used, "
                "or the Function must keep ctx.set_materialize_grads(True), the default; "
                "check_undefined_grad=False skips this check)"
            )
        for index, grad in zip(differentiable, grads):
            if grad is not None and np.any(grad._data != 0):
                _warn(compatibility, UserWarning, stacklevel=4)
                return (
                    "Expected all input grads to be undefined or zero when all output grads are undefined or "
                    f"zero. {notes}.\n  the gradient of {_label(index, inputs, names)} has nonzero values with "
                    "zero or undefined output gradients (backward adds something that does not scale with them)"
                )
    return None


def _grad_output_linearity_problem(output, inputs, differentiable, analytical, rtol, atol, names):
    """Backward must compute grad_output^T J. One-hot grad_outputs cannot tell `grad * f'(x)` from
    `f'(x)` on a one-element output, so probe with a random grad_output too."""
    from . import grad as autograd_grad

    rng = np.random.default_rng(0)
    probe = rng.uniform(0.5, 2.0, size=output._data.shape) * 3
    if output._data.dtype.kind == "c":
        probe = probe + 1j * rng.uniform(0.5, 2.0, size=output._data.shape)
    probe = probe.astype(output._data.dtype)
    wanted = [inputs[index] for index in differentiable]
    grads = autograd_grad([output], wanted, [new_tensor(probe)], retain_graph=True, allow_unused=True)
    for index, grad in zip(differentiable, grads):
        rows = analytical[index].shape[0]
        got = np.zeros(rows) if grad is None else _real_coordinates(grad._data)
        expected = analytical[index] @ _real_coordinates(probe)
        if not np.allclose(got, expected, rtol=rtol, atol=atol):
            # Ignoring grad_output, backward returns the same for any grad_output (e.g. the first one-hot).
            ignores_grad_output = np.allclose(got, analytical[index][:, 0], rtol=rtol, atol=atol)
            cause = (
                "backward forgot to multiply by grad_output"
                if ignores_grad_output
                else "backward uses grad_output non-linearly (squares it, adds a constant, or keeps state between calls)"
            )
            return (
                f"  with grad_output = random values (not ones) the gradient of {_label(index, inputs, names)} "
                f"is {got[:4]} but grad_output^T J is {expected[:4]}\n  likely cause: {cause}"
            )
    return None


def _grad_dtype_problem(output, inputs, differentiable, names):
    from . import grad as autograd_grad

    ones = new_tensor(np.ones(output._data.shape, dtype=output._data.dtype))
    wanted = [inputs[index] for index in differentiable]
    for index, grad in zip(
        differentiable, autograd_grad([output], wanted, [ones], retain_graph=True, allow_unused=True)
    ):
        if grad is not None and grad.dtype is not inputs[index].dtype:
            return (
                f"Gradient has dtype mismatch: the gradient of {_label(index, inputs, names)} is {grad.dtype}, "
                f"but the input is {inputs[index].dtype}"
            )
    return None


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """Check second derivatives: gradcheck of `(inputs, grad_outputs) -> grad(func(inputs), inputs, grad_outputs)`.

    Failures name the input of that function: `input k` of func, or `grad_output j`.
    """
    from . import grad as autograd_grad

    inputs = _as_tuple(inputs)
    if not any(isinstance(value, Tensor) and value._requires_grad for value in inputs):
        return True
    outputs = _differentiable_outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [new_tensor(_random_like(rng, o._data), True) for o in outputs]
    grad_outputs = list(_as_tuple(grad_outputs))
    count = len(inputs)

    def first_derivatives(*values):
        tensors, given = values[:count], values[count:]
        results = _differentiable_outputs(func, tensors)
        wanted = [t for t in tensors if isinstance(t, Tensor) and t._requires_grad]
        grads = autograd_grad(results, wanted, list(given), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    names = [f"input {i}" for i in range(count)] + [f"grad_output {j}" for j in range(len(grad_outputs))]
    try:
        return gradcheck(
            first_derivatives,
            tuple(inputs) + tuple(grad_outputs),
            eps=eps,
            atol=atol,
            rtol=rtol,
            raise_exception=raise_exception,
            nondet_tol=nondet_tol,
            check_undefined_grad=check_undefined_grad,
            check_grad_dtypes=check_grad_dtypes,
            _input_names=names,
        )
    except GradcheckError as error:
        raise GradcheckError(
            "gradgradcheck (second derivatives, i.e. the backward of backward): "
            + str(error).replace("Jacobian mismatch for output", "mismatch for first derivative")
        ) from None


def _random_like(rng, array):
    """Standard normal values of the array's shape and dtype (both parts random for complex ones)."""
    values = rng.standard_normal(array.shape)
    if array.dtype.kind == "c":
        values = values + 1j * rng.standard_normal(array.shape)
    return np.asarray(values, dtype=array.dtype)


# ---------------------------------------------------------------- check_function
class FunctionCheckReport:
    """The result of `check_function`: one line per check; truthy when none failed. `print()` it."""

    def __init__(self, function_name):
        self.function_name = function_name
        self.results = []  # (check, status, detail); status is "ok", "FAIL", "note" or "skipped"

    def add(self, check, status, detail=""):
        """Record one check's outcome: its name, a status ("ok", "FAIL", "note" or "skipped") and a detail."""
        self.results.append((check, status, detail))

    @property
    def passed(self):
        """True when no check failed (also the report's truth value)."""
        return all(status != "FAIL" for _, status, _ in self.results)

    def __bool__(self):
        return self.passed

    def __str__(self):
        lines = [f"check_function({self.function_name}): {'all checks passed' if self.passed else 'FAILED'}"]
        width = max((len(check) for check, _, _ in self.results), default=0)
        for check, status, detail in self.results:
            first, *rest = (detail or "").split("\n")
            lines.append(f"  [{status:^7}] {check:<{width}}  {first}")
            lines.extend(f"  {'':9} {'':<{width}}  {line}" for line in rest)
        return "\n".join(lines)

    __repr__ = __str__


def check_function(fn_class, *inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Run every check a custom Function should pass, and report them together.

    Inputs are the arguments of `fn_class.apply` (tensors in float64, requiring grad where a
    gradient is expected; other values as given). Returns a `FunctionCheckReport` (truthy when all
    passed); with failures it raises GradcheckError carrying the report, unless raise_exception=False.

    Example::

        x = ember.randn(3, dtype=ember.float64, requires_grad=True)
        print(ember.autograd.check_function(MyExp, x))
    """
    report = FunctionCheckReport(fn_class.__name__)
    _check_contract(fn_class, inputs, report)
    if report.passed:
        _check_numerically(fn_class, inputs, report, eps, atol, rtol)
    if not report.passed and raise_exception:
        raise GradcheckError(str(report))
    return report


def _check_contract(fn_class, inputs, report):
    """Call backward directly (as the engine would) and check what it returns."""
    with grad_mode.enable_grad():
        outputs = _as_tuple(fn_class.apply(*inputs))
    differentiable = [out for out in outputs if isinstance(out, Tensor) and out._requires_grad]
    if not differentiable:
        report.add(
            "forward",
            "FAIL",
            "no output requires grad: give at least one input requires_grad=True (and return floating-point tensors)",
        )
        return
    node = differentiable[0].grad_fn
    rng = np.random.default_rng(1)
    grads = [new_tensor(_random_like(rng, out._data)) if isinstance(out, Tensor) else None for out in outputs]
    originals = [g._data.copy() if g is not None else None for g in grads]
    try:
        with grad_mode.no_grad():
            returned = node.apply(*grads)
    except Exception as error:  # the report shows any error backward raises
        report.add("backward runs", "FAIL", f"{type(error).__name__}: {error}")
        return
    returned = (
        returned if isinstance(returned, tuple) else tuple(returned) if isinstance(returned, list) else (returned,)
    )
    report.add("backward runs", "ok")
    _check_count(returned, inputs, report)
    _check_each_gradient(returned, inputs, node, report)
    modified = [i for i, (g, o) in enumerate(zip(grads, originals)) if g is not None and not np.array_equal(g._data, o)]
    report.add(
        "grad_output untouched",
        "FAIL" if modified else "ok",
        f"backward modified grad_output {modified} in place; compute a new tensor instead" if modified else "",
    )
    _check_called_twice(node, grads, returned, report)


def _check_count(returned, inputs, report):
    count, expected = len(returned), len(inputs)
    extra_nones = count > expected and all(g is None for g in returned[expected:])
    if count == expected or extra_nones:
        report.add("number of gradients", "ok", f"{expected} (one per forward input)")
    else:
        report.add(
            "number of gradients",
            "FAIL",
            f"backward returned {count} value{'s' if count != 1 else ''}, but forward took {expected} "
            f"input{'s' if expected != 1 else ''}: return one per forward input, in order, None for "
            "non-tensor inputs and inputs that need no gradient",
        )


def _check_each_gradient(returned, inputs, node, report):
    for index, value in enumerate(inputs):
        grad = returned[index] if index < len(returned) else None
        check = f"gradient {index}"
        if not isinstance(value, Tensor):
            if grad is None:
                report.add(check, "ok", f"None for a non-tensor input ({type(value).__name__})")
            else:
                report.add(
                    check, "FAIL", f"input {index} is a {type(value).__name__}, not a tensor: its gradient must be None"
                )
            continue
        if grad is None:
            status = "note" if value._requires_grad else "ok"
            report.add(
                check,
                status,
                "None"
                + (
                    " although the input requires grad (fine only if the output does not depend on it)"
                    if value._requires_grad
                    else ""
                ),
            )
            continue
        if not isinstance(grad, Tensor):
            report.add(check, "FAIL", f"is a {type(grad).__name__}; a gradient must be a Tensor or None")
            continue
        if not value._requires_grad:
            report.add(
                check,
                "note",
                f"computed although ctx.needs_input_grad[{index}] is False (wasted work; the engine drops it)",
            )
            continue
        if grad._data.shape != value._data.shape:
            from ..ops.broadcast import is_expandable_to

            if is_expandable_to(value._data.shape, grad._data.shape):
                report.add(
                    check,
                    "note",
                    f"shape {list(grad.shape)} is broadcast; the engine sums it to the "
                    f"input's shape {list(value.shape)}",
                )
            else:
                report.add(
                    check, "FAIL", f"shape {list(grad.shape)} does not match input {index}'s shape {list(value.shape)}"
                )
            continue
        if grad.dtype is not value.dtype:
            report.add(check, "note", f"dtype {grad.dtype} differs from the input's {value.dtype}; the engine casts it")
            continue
        report.add(check, "ok", f"shape {list(grad.shape)}, {grad.dtype}")


def _check_called_twice(node, grads, first, report):
    """The engine may call backward again (retain_graph=True): it must give the same result."""
    try:
        with grad_mode.no_grad():
            second = node.apply(*grads)
    except Exception as error:  # shown in the report
        report.add(
            "backward called twice",
            "FAIL",
            f"the second call raised {type(error).__name__}: {error}\n"
            "backward must not consume ctx state (e.g. del ctx.x)",
        )
        return
    second = second if isinstance(second, tuple) else tuple(second) if isinstance(second, list) else (second,)
    same = len(first) == len(second) and all(
        (a is None and b is None)
        or (isinstance(a, Tensor) and isinstance(b, Tensor) and np.array_equal(a._data, b._data, equal_nan=True))
        for a, b in zip(first, second)
    )
    report.add(
        "backward called twice",
        "ok" if same else "FAIL",
        "same gradients"
        if same
        else "the second call returned different gradients: backward must not change ctx or saved tensors",
    )


def _check_numerically(fn_class, inputs, report, eps, atol, rtol):
    def apply(*args):
        return fn_class.apply(*args)

    _run_check(report, "gradcheck", lambda: gradcheck(apply, inputs, eps=eps, atol=atol, rtol=rtol))
    if not report.passed:
        report.add("gradgradcheck", "skipped", "first derivatives are wrong: fix them first")
    elif _backward_is_once_differentiable(fn_class):
        _check_once_differentiable_error(apply, inputs, report)
    else:
        _run_check(report, "gradgradcheck", lambda: gradgradcheck(apply, inputs, eps=eps, atol=atol, rtol=rtol))
    from .function import Function

    if fn_class.jvp is not Function.jvp:
        _run_check(
            report,
            "forward AD (jvp)",
            lambda: gradcheck(
                apply, inputs, eps=eps, atol=atol, rtol=rtol, check_forward_ad=True, check_backward_ad=False
            ),
        )
    else:
        report.add("forward AD (jvp)", "skipped", "no jvp staticmethod")


def _run_check(report, name, check):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            check()
        report.add(name, "ok")
    except GradcheckError as error:
        report.add(name, "FAIL", str(error))
    except Exception as error:  # any error of the user's code belongs in the report
        report.add(name, "FAIL", f"{type(error).__name__}: {error}")


def _backward_is_once_differentiable(fn_class):
    from .function import once_differentiable

    marker = once_differentiable(lambda ctx: None).__code__
    return getattr(fn_class.backward, "__code__", None) is marker


def _check_once_differentiable_error(apply, inputs, report):
    """A @once_differentiable backward has no second derivative: differentiating it must say so."""
    from . import grad as autograd_grad

    with grad_mode.enable_grad():
        outputs = _differentiable_outputs(apply, inputs)
        wanted = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
        ones = [new_tensor(np.ones(o._data.shape, dtype=o._data.dtype), True) for o in outputs]
        firsts = [
            g
            for g in autograd_grad(outputs, wanted, ones, create_graph=True, allow_unused=True)
            if g is not None and g._requires_grad
        ]
    if not firsts:
        report.add("gradgradcheck", "skipped", "@once_differentiable backward: no second derivative")
        return
    try:
        autograd_grad([g.sum() for g in firsts], wanted, allow_unused=True)
    except RuntimeError as error:
        if "once_differentiable" in str(error):
            report.add("gradgradcheck", "skipped", "@once_differentiable: double backward raises its clear error")
            return
        report.add("gradgradcheck", "FAIL", f"double backward raised an unexpected error: {error}")
        return
    report.add(
        "gradgradcheck", "FAIL", "backward is marked @once_differentiable, yet differentiating it twice did not raise"
    )
