"""ember.autograd: recording operations and computing gradients, as `torch.autograd`."""

import warnings
from typing import Optional, Sequence, Tuple, Union

from .. import _naming
from .._backend import np
from .._tensor import Tensor, new_tensor
from .grad_mode import (
    no_grad,
    enable_grad,
    set_grad_enabled,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    set_multithreading_enabled,
    is_multithreading_enabled,
)
from .function import Function, FunctionCtx, once_differentiable, InplaceFunction, NestedIOFunction, AccumulateGrad
from .anomaly import detect_anomaly, set_detect_anomaly, is_anomaly_enabled
from .variable import Variable
from .edge import GradientEdge
from . import engine
from .._warn import warn as _warn

__all__ = [
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "Variable",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "set_multithreading_enabled",
    "is_multithreading_enabled",
    "detect_anomaly",
    "set_detect_anomaly",
    "gradcheck",
    "gradgradcheck",
    "check_function",
    "trace",
    "functional",
    "forward_ad",
]


def _as_tuple(value):
    if value is None:
        return ()
    if isinstance(value, (Tensor, GradientEdge)):  # a GradientEdge is a tuple, but one item
        return (value,)
    return tuple(value)


def _edge_output_meta(edge, index, grad):
    """(shape, NumPy dtype) of the output a GradientEdge names, as a root of backward. Ember's
    one-output nodes keep none (get_gradient_edge records it): then the given gradient must do."""
    node = edge.node
    if type(node) is AccumulateGrad:  # the leaf itself
        return node.variable._data.shape, node.variable._data.dtype
    meta = node._output_meta
    if meta is not None and meta[edge.output_nr] is not None:
        return meta[edge.output_nr]
    if isinstance(grad, Tensor):
        return grad._data.shape, grad._data.dtype
    raise RuntimeError(
        f"output {index} is a GradientEdge whose shape ember does not know (edges built by hand to a "
        "one-output node keep none): make it with ember.autograd.graph.get_gradient_edge(tensor), or "
        "pass its gradient explicitly"
    )


def _root_gradients(outputs, grad_outputs, api_name):
    """One gradient per output: given ones are checked, missing ones are implicit `1` for scalars."""
    if len(grad_outputs) == 0:
        grad_outputs = (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"{api_name}: got {len(grad_outputs)} gradients for {len(outputs)} outputs; "
            "give one per output (None for scalar outputs)"
        )
    grads = []
    from .._dtype import from_numpy_dtype as _dtype_of
    from .._size import Size

    for index, (output, grad) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(output, GradientEdge):
            shape, dtype = _edge_output_meta(output, index, grad)
        elif not isinstance(output, Tensor):
            raise TypeError(f"{api_name}: output {index} is a {type(output).__name__}, not a Tensor")
        elif not output._requires_grad:
            raise RuntimeError(_no_graph_message(index, output))
        else:
            shape, dtype = output._data.shape, output._data.dtype
        if grad is None:
            if dtype.kind == "c":
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs (output {index} is "
                    f"{_dtype_of(dtype)}); pass gradient= explicitly"
                )
            if int(np.prod(shape)) != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs: output {index} has shape "
                    f"{list(shape)}. Reduce it first (e.g. loss.sum().backward() or .mean()), or pass "
                    f"the gradient explicitly: output.backward(gradient={_naming.package}.ones_like(output))."
                )
            grad = new_tensor(np.ones(shape, dtype=dtype))
        else:
            if not isinstance(grad, Tensor):
                from ..ops import tensor as _tensor

                grad = _tensor(grad, dtype=_dtype_of(dtype))
            if grad._data.shape != shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of {grad.shape} and output[{index}] "
                    f"has a shape of {Size(shape)}."
                )
            if (grad._data.dtype.kind == "c") != (dtype.kind == "c"):
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the same dtype. "
                    f"Mismatch in dtype: grad_output[{index}] has a dtype of {grad.dtype} and output[{index}] "
                    f"has a dtype of {_dtype_of(dtype)}."
                )
            if not isinstance(grad._data, np.ndarray):  # a NumPy scalar: backward formulas expect arrays
                grad = new_tensor(np.asarray(grad._data), grad._requires_grad, grad._grad_fn, grad._output_nr)
        grads.append(grad)
    return grads


def _no_graph_message(index, output):
    return (
        f"element {index} of tensors does not require grad and does not have a grad_fn: there is no graph "
        "to differentiate. Either no input had requires_grad=True when this value was computed, or the graph "
        "was cut: by .detach(), by .data, inside `with no_grad()`, or by a round trip through NumPy "
        "(.numpy()/.item() and back). Set requires_grad=True on the *inputs* (e.g. the weights) before "
        "computing; setting requires_grad=True on the result itself would only give a useless gradient of 1."
    )


_Tensors = Union[Tensor, Sequence[Tensor]]
_OptionalTensors = Union[None, Tensor, Sequence[Optional[Tensor]]]


def backward(
    tensors: _Tensors,
    grad_tensors: _OptionalTensors = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    grad_variables: _OptionalTensors = None,
    inputs: Optional[_Tensors] = None,
) -> None:
    """Accumulate into `.grad` of the leaves the gradients of `tensors` (weighted by `grad_tensors`).

    `retain_graph` keeps saved tensors for another backward; `create_graph` records this backward
    so that it can be differentiated again; `inputs` limits which tensors receive `.grad`.
    """
    if grad_variables is not None:
        _warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.", DeprecationWarning, stacklevel=2)
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError(
                "'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to "
                "backward(). Please only use 'grad_tensors'."
            )
    outputs = _as_tuple(tensors)
    grads = _root_gradients(outputs, _as_tuple(grad_tensors), "backward")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        _warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter and "
            "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the "
            "graph to avoid this. If you have to use this function, make sure to reset the .grad fields of "
            "your parameters to None after use to break the cycle and avoid the leak.",
            UserWarning,
            stacklevel=3,
        )
    input_list = None
    if inputs is not None:
        input_list = list(_as_tuple(inputs))
        if not input_list:
            raise RuntimeError("backward: 'inputs' argument to backward() cannot be empty.")
        for tensor in input_list:
            if not isinstance(tensor, GradientEdge) and not tensor._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
    engine.run_backward(outputs, grads, retain_graph, create_graph, inputs=input_list, accumulate=True)


def grad(
    outputs: _Tensors,
    inputs: _Tensors,
    grad_outputs: _OptionalTensors = None,
    retain_graph: Optional[bool] = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: Optional[bool] = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> Tuple[Optional[Tensor], ...]:
    """Return the gradients of `outputs` with respect to `inputs` (`.grad` is left untouched).

    Example::

        x = ember.tensor([5.0], requires_grad=True)
        dx, = ember.autograd.grad(x ** 2, x, create_graph=True)   # 2x = 10
        ddx, = ember.autograd.grad(dx, x)                          # 2
    """
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False."
        )
    output_tuple = _as_tuple(outputs)
    input_list = list(_as_tuple(inputs))
    if not input_list:
        raise ValueError("grad requires non-empty inputs.")
    for tensor in input_list:
        if isinstance(tensor, GradientEdge):
            continue
        if not isinstance(tensor, Tensor):
            raise TypeError(f"grad: inputs must be tensors or GradientEdges, got {type(tensor).__name__}")
        if not tensor._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _root_gradients(output_tuple, _as_tuple(grad_outputs), "grad")
    if retain_graph is None:
        retain_graph = create_graph
    captured = engine.run_backward(output_tuple, grads, retain_graph, create_graph, inputs=input_list, accumulate=False)
    result = []
    for index, (tensor, gradient) in enumerate(zip(input_list, captured)):
        if gradient is None:
            if materialize_grads and isinstance(tensor, GradientEdge):
                raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
            if materialize_grads:
                from ..ops import zeros_like

                gradient = zeros_like(tensor, requires_grad=create_graph)
            elif not allow_unused:
                shape = "a GradientEdge" if isinstance(tensor, GradientEdge) else f"shape {list(tensor.shape)}"
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used in the graph "
                    f"(inputs[{index}], {shape}: no path leads from it to the outputs). Set "
                    "allow_unused=True if this is the desired behavior (its gradient is then None), or "
                    "materialize_grads=True for zeros."
                )
        elif not create_graph and gradient._requires_grad:
            gradient = gradient.detach()
        result.append(gradient)
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """grad(is_grads_batched=True): one backward per row of the batched grad_outputs, results stacked
    (PyTorch vmaps the backward; the rows here run one after another)."""
    output_tuple = _as_tuple(outputs)
    batched = _as_tuple(grad_outputs)
    for index, (output, batched_grad) in enumerate(zip(output_tuple, batched)):
        if batched_grad is not None and tuple(batched_grad.shape[1:]) != tuple(output.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                f"corresponding output, but a mismatch was detected: grad_output[{index}] has a shape of "
                f"{batched_grad.shape} and output[{index}] has a shape of {output.shape}. If you only want some "
                "tensors in `grad_output` to be considered batched, consider using vmap."
            )
    batch_size = next(g.shape[0] for g in batched if g is not None)
    rows = [
        grad(
            output_tuple,
            inputs,
            [None if g is None else g[row] for g in batched],
            retain_graph=True if row < batch_size - 1 else retain_graph,
            create_graph=create_graph,
            allow_unused=allow_unused,
            materialize_grads=materialize_grads,
        )
        for row in range(batch_size)
    ]
    from ..ops import stack

    return tuple(None if column[0] is None else stack(column) for column in zip(*rows))


def _calculate_shape(output, grad, is_grads_batched):
    """(output's shape, the gradient's shape for one output): what backward's shape check compares."""
    return output.shape, grad.shape[1:] if is_grads_batched else grad.shape


def kineto_available():
    """PyTorch's profiler library (Kineto) is not part of ember: its profiler records by itself."""
    return False


from .gradcheck import gradcheck, gradgradcheck, check_function  # noqa: E402
from .anomaly import is_anomaly_check_nan_enabled  # noqa: E402
from .trace import trace  # noqa: E402
from . import forward_ad  # noqa: E402


def __getattr__(name):
    # `ember.autograd.functional`, `.graph` and `.profiler` load on first use (rarely needed).
    if name in ("functional", "graph", "profiler", "profiler_util"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")
