"""`torch.func`'s differentiating transforms: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian.

Each takes a function and returns a function; they nest (`hessian` is `jacfwd(jacrev(f))`) and
compose with `vmap`. See `_tracking` for how they sit on ember's single tape.
"""

import functools

from .._tensor import Tensor
from ..autograd import grad_mode
from ..utils._pytree import tree_flatten, tree_unflatten
from ._tracking import (
    TrackedInputs,
    check_argnums,
    depends_on_outside,
    detach_tree,
    gradients,
    outer_grad_enabled,
    split_aux,
)

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian"]


def grad_and_value(func, argnums=0, has_aux=False):
    """Like `grad`, but the returned function gives `(gradient, value)`: the value of `func` comes free.

    With `has_aux=True` it gives `(gradient, (value, aux))`.

    Example::

        g, loss = grad_and_value(lambda w: ((x @ w - y) ** 2).mean())(w)
    """
    api = "grad_and_value(f)(*args)"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = check_argnums(argnums, len(args))
        outer = outer_grad_enabled()
        with grad_mode.enable_grad():
            tracked = TrackedInputs(args, positions, api)
            output, aux = split_aux(func(*tracked.args, **kwargs), has_aux, api)
            if not isinstance(output, Tensor):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            create_graph = outer and depends_on_outside([output], tracked.own_leaves)
            flat = gradients([output], tracked.flat, [None], create_graph)
        grads = tracked.regroup(flat, isinstance(argnums, int))
        if not create_graph:
            output, aux = output.detach(), detach_tree(aux)
        return (grads, (output, aux)) if has_aux else (grads, output)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function that returns a scalar tensor, as a function of the same arguments.

    Args:
        func: returns a 0-d tensor (or `(tensor, aux)` with `has_aux=True`).
        argnums: the positional argument(s) to differentiate with respect to: an int gives that
            argument's gradient, a tuple of ints a tuple of gradients. An argument may be a nest
            (tuple, list, dict) of tensors; its gradient has the same structure.
        has_aux: `func` returns `(output, aux)`; the new function then returns `(gradient, aux)`.

    Returns:
        A function returning the gradient(s) (and aux). Gradients are differentiable when an enclosing
        transform (or ordinary autograd) needs them, so `grad(grad(f))` gives second derivatives.

    Example::

        dsin = grad(ember.sin)              # cos
        d2sin = grad(grad(ember.sin))       # -sin
        per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = grad_and_value(func, argnums, has_aux)(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def vjp(func, *primals, has_aux=False):
    """Run `func(*primals)` and return `(output, vjp_fn)`: `vjp_fn(cotangents)` gives the
    vector-Jacobian product, one entry per primal (a tuple), and can be called many times.

    `cotangents` has the structure of `output`. With `has_aux=True`, `func` returns `(output, aux)`
    and the result is `(output, vjp_fn, aux)`.

    Example::

        out, vjp_fn = vjp(ember.sin, x)
        (grad_x,) = vjp_fn(ember.ones_like(out))   # cos(x)
    """
    api = "vjp(f, *primals)"
    outer = outer_grad_enabled()
    with grad_mode.enable_grad():
        tracked = TrackedInputs(primals, tuple(range(len(primals))), api)
        output, aux = split_aux(func(*tracked.args), has_aux, api)
    flat_outputs, output_spec = tree_flatten(output)
    for leaf in flat_outputs:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(
                f"vjp(f, *primals): Expected f to be a function that has only Tensor outputs, got {type(leaf)}"
            )
    output_reaches_outside = depends_on_outside(flat_outputs, tracked.own_leaves)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cotangents, cotangent_spec = tree_flatten(cotangents)
        if cotangent_spec != output_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {cotangent_spec}, primal output: {output_spec}"
            )
        for index, (cotangent, leaf) in enumerate(zip(flat_cotangents, flat_outputs)):
            if not isinstance(cotangent, Tensor) or cotangent.shape != leaf.shape:
                shape = cotangent.shape if isinstance(cotangent, Tensor) else type(cotangent)
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of {shape} and "
                    f"output[{index}] has a shape of {leaf.shape}."
                )
        if create_graph is None:
            create_graph = outer_grad_enabled() and (
                output_reaches_outside or any(cotangent.requires_grad for cotangent in flat_cotangents)
            )
        with grad_mode.enable_grad():
            flat = gradients(flat_outputs, tracked.flat, flat_cotangents, create_graph)
        return tracked.regroup(flat, False)

    returned = output if output_reaches_outside and outer else detach_tree(output)
    if has_aux:
        return returned, vjp_fn, (aux if output_reaches_outside and outer else detach_tree(aux))
    return returned, vjp_fn


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """Run `func(*primals)` and push `tangents` forward: returns `(output, jvp_out)` where `jvp_out`
    is the Jacobian-vector product (structure of `output`); `(output, jvp_out, aux)` with `has_aux`.

    `primals` and `tangents` are tuples with one entry (tensor or nest of tensors) per argument.

    Difference from PyTorch: ember computes it by differentiating a vector-Jacobian product once more
    ("double vjp"), which needs only the reverse-mode rules every op has, so it works for every op
    that supports double backward (PyTorch uses forward-mode AD). The values are the same.

    Example::

        out, tangent_out = jvp(ember.sin, (x,), (ember.ones_like(x),))   # cos(x)
    """
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise RuntimeError(
                f"jvp(f, primals, tangents): Expected {name} to be a tuple. "
                "E.g. it should be valid to call f(*primals)."
            )
    flat_primals, primal_spec = tree_flatten(primals)
    flat_tangents, tangent_spec = tree_flatten(tangents)
    if primal_spec != tangent_spec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
            f"Got primals with structure {primal_spec} and tangents with structure {tangent_spec}"
        )
    for primal, tangent in zip(flat_primals, flat_tangents):
        if not isinstance(tangent, Tensor):
            raise RuntimeError(
                f"jvp(f, primals, tangents): Expected tangents to be a tuple of Tensors, got {type(tangent)}"
            )
        if isinstance(primal, Tensor) and primal.shape != tangent.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size "
                f"{list(primal.shape)} while the given forward gradient is of size "
                f"{list(tangent.shape)}."
            )
    api = "jvp(f, primals, tangents)"
    outer = outer_grad_enabled()
    with grad_mode.enable_grad():
        tracked = TrackedInputs(primals, tuple(range(len(primals))), api)
        output, aux = split_aux(func(*tracked.args), has_aux, api)
        flat_outputs, output_spec = tree_flatten(output)
        for leaf in flat_outputs:
            if not isinstance(leaf, Tensor):
                raise RuntimeError(
                    f"{api}: Expected f(*primals) to return only tensors, got unsupported type {type(leaf)}"
                )
        create_graph = outer and (
            depends_on_outside(flat_outputs, tracked.own_leaves)
            or any(tangent.requires_grad for tangent in flat_tangents)
        )
        # u -> J^T u is linear in u; differentiating it along the tangents gives J t.
        dummies = [
            leaf.detach().new_zeros(leaf.shape).requires_grad_()
            if leaf.is_floating_point()
            else leaf.detach().new_zeros(leaf.shape)
            for leaf in flat_outputs
        ]
        transposed = gradients(flat_outputs, tracked.flat, dummies, True)
        differentiable = [
            (vector, tangent) for vector, tangent in zip(transposed, flat_tangents) if vector.requires_grad
        ]
        floating = [dummy for dummy in dummies if dummy.requires_grad]
        pushed = gradients(
            [vector for vector, _ in differentiable], floating, [tangent for _, tangent in differentiable], create_graph
        )
    pushed = iter(pushed)
    flat_jvp = [next(pushed) if dummy.requires_grad else dummy for dummy in dummies]
    jvp_out = tree_unflatten(flat_jvp, output_spec)
    if not create_graph:
        output, aux = detach_tree(output), detach_tree(aux)
    return (output, jvp_out, aux) if has_aux else (output, jvp_out)


def linearize(func, *primals):
    """`(output, jvp_fn)`: `func(*primals)` and a function giving its Jacobian-vector product at `primals`
    for any tangents (`jvp_fn(*tangents)`, one tangent per primal).

    Difference from PyTorch: `jvp_fn` reruns `jvp` at the stored primals instead of replaying a traced
    linear graph; results are the same.
    """
    output = detach_tree(func(*primals))

    def jvp_fn(*tangents):
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of `func` with respect to the argument(s) `argnums`, by reverse mode (one
    vector-Jacobian product per output element).

    For an output of shape `O` and an input of shape `I` the Jacobian has shape `O + I`. Outputs may be
    nests of tensors (the result has the output's structure); with a tuple `argnums` each output entry is
    a tuple with one Jacobian per argument. `has_aux=True`: `func` returns `(output, aux)` and the new
    function returns `(jacobian, aux)`. `chunk_size` is accepted (ember computes rows one at a time).

    Example::

        jacrev(ember.sin)(x)            # diag(cos(x))
        jacrev(f, argnums=(0, 1))(x, y)  # (df/dx, df/dy)
    """
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian_transform(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of `func` with respect to the argument(s) `argnums`, as `jacrev` lays it out.

    Difference from PyTorch: PyTorch computes it with forward-mode AD (one Jacobian-vector product per
    input element); ember computes the same matrix with reverse-mode rows, so it works for every op and
    still nests (`jacfwd(jacrev(f))` is the Hessian). `randomness` is checked and otherwise unused.
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    return _jacobian_transform(func, argnums, has_aux, "jacfwd")


def hessian(func, argnums=0):
    """The Hessian of a scalar function with respect to `argnums`: `jacfwd(jacrev(func, argnums), argnums)`.

    Example::

        hessian(lambda x: (x ** 3).sum())(x)   # diag(6 x)
    """
    return jacfwd(jacrev(func, argnums), argnums)


def _jacobian_transform(func, argnums, has_aux, api):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = check_argnums(argnums, len(args))
        outer = outer_grad_enabled()
        with grad_mode.enable_grad():
            tracked = TrackedInputs(args, positions, f"{api}(f)(*args)")
            output, aux = split_aux(func(*tracked.args, **kwargs), has_aux, f"{api}(f)(*args)")
            flat_outputs, output_spec = tree_flatten(output)
            for leaf in flat_outputs:
                if not isinstance(leaf, Tensor):
                    raise RuntimeError(
                        f"{api}(f)(*args): Expected f(*args) to return only tensors, got unsupported type {type(leaf)}"
                    )
            create_graph = outer and depends_on_outside(flat_outputs, tracked.own_leaves)
            jacobians = [
                tracked.regroup(_jacobian_of(leaf, tracked.flat, create_graph), isinstance(argnums, int))
                for leaf in flat_outputs
            ]
        jacobian = tree_unflatten(jacobians, output_spec)
        if has_aux:
            return jacobian, (aux if create_graph else detach_tree(aux))
        return jacobian

    return wrapper


def _jacobian_of(output, inputs, create_graph):
    """Jacobians of one output tensor with respect to each input: shapes output.shape + input.shape."""
    from .. import stack, zeros

    count = output.numel()
    if count == 0 or not output.requires_grad:
        return [zeros(tuple(output.shape) + tuple(item.shape), dtype=item.dtype) for item in inputs]
    flat_output = output.reshape(-1)
    rows = []
    for index in range(count):
        basis = zeros(count, dtype=output.dtype)
        basis[index] = 1
        rows.append(gradients([flat_output], inputs, [basis], create_graph))
    return [
        stack([row[position] for row in rows]).reshape(tuple(output.shape) + tuple(item.shape))
        for position, item in enumerate(inputs)
    ]
