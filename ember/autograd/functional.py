"""Derivatives of whole functions, as `torch.autograd.functional`: vjp, jvp, jacobian, hessian, hvp, vhp.

Each takes `func` (tensors in, a tensor or a tuple of tensors out) and the point `inputs`, and
returns results shaped like PyTorch's: a tuple where the inputs/outputs were a tuple, a tensor
where they were a single tensor. `create_graph=True` keeps the results differentiable; `strict=True`
raises when an output does not depend on an input instead of returning zeros.

    def f(x):
        return (x ** 3).sum()
    ember.autograd.functional.hessian(f, ember.tensor([1.0, 2.0]))   # diag(6x) = [[6, 0], [0, 12]]

`jvp` uses the double-backward trick, as PyTorch does; `hvp` is forward-over-reverse (falling back
to that trick where forward AD cannot follow); `jacobian(strategy="forward-mode")` uses
`ember.autograd.forward_ad`, and `hessian(outer_jacobian_strategy="forward-mode")` runs it over
the reverse-mode gradient. Differences from PyTorch: `vectorize=True` gives the same result
by looping (ember has no vmap).
"""

from .._tensor import Tensor
from . import grad_mode, forward_ad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---------------------------------------------------------------- shared helpers (PyTorch's, same names)
def _as_tuple(inp, arg_name, fn_name):
    is_inp_tuple = isinstance(inp, tuple)
    if not is_inp_tuple:
        inp = (inp,)
    for index, element in enumerate(inp):
        if not isinstance(element, Tensor):
            where = f"the value at index {index} has type" if is_inp_tuple else f"the given {arg_name} has type"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                f"{where} {type(element)}."
            )
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Unwrap the tuples that were single tensors in the user's call (one flag, or (outer, inner))."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(element[0] for element in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh tensors to differentiate with respect to: views that keep the user's graph with
    create_graph, detached copies of the user's tensors otherwise."""
    return tuple(
        inp.view_as(inp) if create_graph and inp.requires_grad else inp.detach().requires_grad_(need_graph)
        for inp in inputs
    )


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {index} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_STRICT_MESSAGES = {
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is independent of the "
        "input. This is not allowed in strict mode. You should ensure that your function is thrice "
        "differentiable and that the hessian depends on the inputs."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function with respect "
        "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
        "that your function is twice differentiable and that the jacobian depends on the inputs (this "
        "would be violated by a linear function for example)."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of the user-provided "
        "function. This is not allowed in strict mode."
    ),
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The outputs must be computed "
        "in a differentiable manner from the input when running in strict mode."
    ),
}


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for index, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {index}. This is "
                "not allowed in strict mode."
            )
        if not inp.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[input_type].format(i=index))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; None for inputs nothing reaches."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(out, grad_out) for out, grad_out in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad(
        [out for out, _ in kept],
        inputs,
        [grad_out for _, grad_out in kept],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_FILL_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": (
        "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
        "using the double backward trick to compute forward mode gradients. This is not allowed in "
        "strict mode."
    ),
    "double_back": (
        "The jacobian of the user-provided function is independent of input {i}. This is not allowed in strict mode."
    ),
    "double_back_trick": (
        "The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
        "backward trick to replace forward mode AD."
    ),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    from ..ops import zeros_like

    result = []
    for index, grad in enumerate(grads):
        if grad is None:
            if strict:
                raise RuntimeError(_FILL_MESSAGES[stage].format(i=index))
            grad = zeros_like(refs[index])
        elif strict and create_graph and not grad.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {index}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        result.append(grad)
    return tuple(result)


def _call(func, inputs, fn_name):
    return _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)


def _require_v_or_single_element(v, tensors, message):
    if v is None and (len(tensors) != 1 or tensors[0].nelement() != 1):
        raise RuntimeError(message)


def _prepare_v(v, like, is_like_tuple, create_graph, fn_name):
    if v is None:
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, like, is_like_tuple)
    return v


_V_NONE_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single Tensor with a single element."
)


# ---------------------------------------------------------------- the six functions
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """`(func(inputs), v^T J)`: the vector-Jacobian product (what backward computes).

    `v` has the shape of the outputs (optional when the output has one element). Example::

        out, vjp_x = vjp(lambda x: x.exp().sum(dim=1), ember.rand(4, 4), ember.ones(4))
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is None and (len(outputs) != 1 or outputs[0].nelement() != 1):
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp")
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """`(func(inputs), J v)`: the Jacobian-vector product, by the double-backward trick.

    `v` has the shape of the inputs (optional when the input has one element). The backward of
    `func` is linear in its grad_output `u`, so differentiating `u -> J^T u` again gives `J v`.
    """
    from ..ops import zeros_like

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        _require_v_or_single_element(v, inputs, _V_NONE_INPUT)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp")
        is_outputs_tuple, outputs = _call(func, inputs, "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # Any finite value works for the dummy grad_outputs: they drop out of the double backward.
        grad_outputs = tuple(zeros_like(out).requires_grad_(True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`: entry [i][j] has shape `output_i.shape + input_j.shape`.

    One backward pass per output element ("reverse-mode"), or one forward-AD pass per input element
    ("forward-mode", which PyTorch allows only with vectorize=True).
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    from ..ops import zeros_like

    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and '
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacobian_forward_mode(func, inputs, strict, vectorize)

    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`."
            )
        jacobians = []
        for output_index, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for element in range(out.nelement()):
                vj = _autograd_grad((flat[element],), inputs, retain_graph=True, create_graph=create_graph)
                for input_index, (row_list, vj_el, inp) in enumerate(zip(rows, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {output_index}. This is not allowed in strict mode when "
                                "create_graph=True."
                            )
                        row_list.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {output_index} of the user-provided function is independent "
                                f"of input {input_index}. This is not allowed in strict mode."
                            )
                        row_list.append(zeros_like(inp))
            jacobians.append(tuple(_stack(row_list, out.shape + inp.shape, inp) for row_list, inp in zip(rows, inputs)))
        jacobians = _grad_postprocess(tuple(jacobians), create_graph)
        return _tuple_postprocess(jacobians, (is_outputs_tuple, is_inputs_tuple))


def _stack(rows, shape, like):
    """The rows of one Jacobian block, stacked and shaped `shape`. Without a graph to keep (the
    usual case) NumPy stacks them; a single row (hessian's inner Jacobian) is a reshape."""
    from .._tensor import new_tensor
    import numpy as np

    if not rows:
        from ..ops import zeros

        return zeros(shape, dtype=like.dtype)
    if len(rows) == 1:
        return rows[0].reshape(shape)
    if not any(row.requires_grad for row in rows):
        return new_tensor(np.stack([row._data for row in rows]).reshape(shape))
    from ..ops import stack

    return stack(rows).reshape(shape)


def _jacobian_forward_mode(func, inputs, strict, vectorize):
    from .._tensor import new_tensor
    import numpy as np

    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
            'supported together (yet). Please either set `strict=False` or '
            '`strategy="reverse-mode"`.'
        )
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
            "implemented for `vectorize=True`."
        )
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    numels = tuple(inp.nelement() for inp in inputs)
    basis = _construct_standard_basis_for(inputs, numels)
    columns = None  # columns[i][j]: list of tangents of output i, one per element of input j
    is_outputs_tuple = False
    outputs = ()
    owners = [index for index, numel in enumerate(numels) for _ in range(numel)]  # the input of each row
    for row, input_index in enumerate(owners):
        with forward_ad.dual_level():
            duals = tuple(
                forward_ad.make_dual(other, block[row].reshape(other.shape)) for other, block in zip(inputs, basis)
            )
            is_outputs_tuple, dual_outputs = _as_tuple(func(*duals), "outputs", "jacobian")
            unpacked = [forward_ad.unpack_dual(out) for out in dual_outputs]
        outputs = tuple(pair.primal for pair in unpacked)
        if columns is None:
            columns = [[[] for _ in inputs] for _ in outputs]
        for output_index, pair in enumerate(unpacked):
            tangent = pair.tangent
            data = np.zeros_like(pair.primal._data) if tangent is None else tangent._data
            columns[output_index][input_index].append(data)
    # Lists, not tuples: PyTorch's forward-mode jacobian returns lists of lists.
    jacobians = [
        [
            new_tensor(
                np.moveaxis(np.stack(cols), 0, -1).reshape(out.shape + inp.shape)
                if cols
                else np.zeros(out.shape + inp.shape, dtype=out._data.dtype)
            )
            for cols, inp in zip(per_output, inputs)
        ]
        for per_output, out in zip(columns, outputs)
    ]
    return _tuple_postprocess(jacobians, (is_outputs_tuple, is_inputs_tuple))


def _construct_standard_basis_for(tensors, tensor_numels):
    """PyTorch's helper (same name): the identity of size sum(tensor_numels), cut by columns into
    one (total, numel) block per tensor, in that tensor's dtype. Row k of the blocks, each reshaped
    like its tensor, is the k-th basis direction of all the inputs together."""
    import numpy as np
    from .._tensor import new_tensor

    identity = np.eye(sum(tensor_numels))
    bounds = np.cumsum((0,) + tuple(tensor_numels))
    return tuple(
        new_tensor(np.ascontiguousarray(identity[:, start:stop], dtype=tensor._data.dtype))
        for tensor, start, stop in zip(tensors, bounds[:-1], bounds[1:])
    )


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: entry [i][j] has shape `input_i.shape + input_j.shape`."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            # the dual inputs must require grad, or the inner jacobian detaches them (and their tangents)
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    result = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(result, (is_inputs_tuple, is_inputs_tuple))


def _scalar_function_gradient(func, inputs, v, create_graph, strict, fn_name, tangents=False):
    """Shared first half of vhp and hvp: outputs and the (differentiable) gradient of func. With
    `tangents` (under a private forward-AD level), the inputs carry v as their tangents."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    _require_v_or_single_element(v, inputs, _V_NONE_INPUT)
    v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, fn_name)
    if tangents:
        from ..ops import ones_like

        for inp, direction in zip(inputs, v if v is not None else (ones_like(inputs[0]),)):
            forward_ad._set_tangent(inp, direction)  # fresh tensors of ours: func sees them as PyTorch's does
    is_outputs_tuple, outputs = _call(func, inputs, fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """`(func(inputs), v^T H)` for a scalar function: one backward through the gradient."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_function_gradient(
            func, inputs, v, create_graph, strict, "vhp"
        )
    with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """`(func(inputs), H v)` for a scalar function.

    Forward-over-reverse: the inputs carry `v` as forward-AD tangents through func and through the
    backward that computes its gradient, whose tangent is then H v (one forward and one backward,
    each with its tangent: about 2/5 of the NumPy calls of double backward). Where a tangent cannot
    follow (an op without a jvp rule, a user Function, an open forward-AD level, `strict=True`, complex
    inputs), it takes PyTorch's double-backward trick on the same graph, so func runs once either way.
    H is symmetric for twice continuously differentiable functions, so this equals vhp.
    """
    from ..ops import zeros_like

    forward_over_reverse = not strict and _tangents_can_follow(inputs, v)
    with grad_mode.enable_grad(), forward_ad.private_level(tangent_graph=create_graph) as opened:
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_function_gradient(
            func, inputs, v, create_graph, strict, "hvp", tangents=forward_over_reverse and opened
        )
        if forward_over_reverse and opened and not forward_ad.state.incomplete:
            tangents = tuple(forward_ad.tangent_of(gradient) for gradient in jac)
        else:
            tangents = None
    if tangents is not None:
        result = tuple(zeros_like(inp) if tangent is None else tangent for tangent, inp in zip(tangents, inputs))
    else:
        with grad_mode.enable_grad():
            grad_jac = tuple(zeros_like(inp).requires_grad_(True) for inp in inputs)
            double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
            _check_requires_grad(jac, "hessian", strict=strict)
        with grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled()):
            grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def _tangents_can_follow(inputs, v):
    """Whether forward-over-reverse applies to these arguments: real floating inputs, and v (if
    given) of their dtypes. Anything else takes double backward, whose checks raise PyTorch's errors."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    if not all(isinstance(inp, Tensor) and inp.is_floating_point() for inp in inputs):
        return False
    if v is None:
        return True
    v = v if isinstance(v, tuple) else (v,)
    return len(v) == len(inputs) and all(
        isinstance(direction, Tensor) and direction.dtype == inp.dtype for direction, inp in zip(v, inputs)
    )
