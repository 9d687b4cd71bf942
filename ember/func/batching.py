"""`vmap`: map a function over a dimension of its inputs.

ember has no batching rules: the mapped function runs once per sample in a Python loop and the
results are stacked. That is correct for every function (including ones that call `.item()`, use
data-dependent control flow or nest other transforms), and costs one call per sample.
"""

import functools

from .._tensor import Tensor
from ..utils._pytree import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["vmap", "debug_unwrap"]

_RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorize `func` over a dimension of its inputs: `vmap(f)(x)` is `stack([f(x[0]), f(x[1]), ...])`.

    Args:
        func: takes tensors (or nests of them) and returns tensors (or nests of them).
        in_dims: which dimension of each positional argument to map over: an int for all of them, or a
            tuple with one entry per argument, where an entry is an int, None (the argument is passed
            whole to every call) or a nest matching the argument's structure. Keyword arguments are
            passed whole.
        out_dims: where the mapped dimension goes in each output (int, or a nest matching the outputs;
            None for an output that is the same for every sample, returned once).
        randomness: 'error' (a random operation inside `func` raises), 'different' (each sample
            draws its own numbers) or 'same' (every sample draws the same numbers).
        chunk_size: accepted for compatibility (must be None or positive).

    Returns:
        The vectorized function.

    Difference from PyTorch: ember calls `func` once per sample and stacks the results, so it is
    as slow as the loop it replaces (but exact for every operation, including `.item()`).
    With randomness='error' a random operation is detected after the call that made it.

    Example::

        batched_dot = vmap(ember.dot)                      # (N, D), (N, D) -> (N,)
        per_sample_grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        flat_args, dims = _mapped_dims(name, in_dims, args)
        size = _batch_size(name, in_dims, flat_args, dims)
        _, args_spec = tree_flatten(args)
        samples = []
        from .. import get_rng_state, set_rng_state

        rng_state = get_rng_state()
        for index in range(size):
            if randomness == "same":
                set_rng_state(rng_state)
            sample_args = tree_unflatten(
                [leaf if dim is None else leaf.select(dim, index) for leaf, dim in zip(flat_args, dims)], args_spec
            )
            samples.append(func(*sample_args, **kwargs))
            if randomness == "error" and not _same_state(get_rng_state(), rng_state):
                raise RuntimeError(
                    "vmap: called random operation while in randomness error mode. Please either use the "
                    "'same' or 'different' randomness flags on vmap or perform the randomness operation out of vmap"
                )
        return _stack_outputs(name, samples, out_dims)

    return wrapped


def _mapped_dims(name, in_dims, args):
    """The leaves of args and the mapped dimension of each (None: not mapped), checked."""
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    flat_args, args_spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, args)
    if dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
            f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
            f"structure {args_spec}."
        )
    normalized = []
    for leaf, dim in zip(flat_args, dims):
        if dim is None:
            normalized.append(None)
            continue
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims must be int or None for "
                f"every input, got {dim!r}."
            )
        if not isinstance(leaf, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input but "
                f"the input is of type {type(leaf)}. We cannot vmap over non-Tensor arguments, "
                "please use None as the respective in_dim"
            )
        rank = leaf.dim()
        if not -rank <= dim < rank:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for some input, "
                f"but that input is a Tensor of dimensionality {rank} so expected in_dim to satisfy "
                f"-{rank} <= in_dim < {rank}."
            )
        normalized.append(dim % rank)
    return flat_args, normalized


def _batch_size(name, in_dims, flat_args, dims):
    sizes = [leaf.shape[dim] for leaf, dim in zip(flat_args, dims) if dim is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) != 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sizes} for the mapped dimension"
        )
    if sizes[0] == 0:
        raise NotImplementedError(
            f"vmap({name}, ...): mapping over a dimension of size 0 is not implemented in "
            "ember (it runs the function once per sample, and there is none)"
        )
    return sizes[0]


def _stack_outputs(name, samples, out_dims):
    from .. import stack, equal

    _, spec = tree_flatten(samples[0])
    columns = [tree_flatten(sample)[0] for sample in samples]
    dims = broadcast_prefix(out_dims, samples[0])
    if dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
            f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs "
            f"has structure {spec}."
        )
    results = []
    for position, dim in enumerate(dims):
        values = [column[position] for column in columns]
        if dim is None:
            first = values[0]
            if isinstance(first, Tensor) and any(
                not (value.shape == first.shape and equal(value, first)) for value in values[1:]
            ):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            results.append(first)
            continue
        for value in values:
            if not isinstance(value, Tensor):
                raise ValueError(
                    f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(value)}. "
                    "Did you mean to set out_dims= to None for output?"
                )
        results.append(stack(values, dim=dim))
    return tree_unflatten(results, spec)


def _same_state(first, second):
    return first.shape == second.shape and bool((first == second).all())


def debug_unwrap(tensor, *, recurse=True):
    """The plain tensor under a transform's wrapper, for printing inside `vmap`/`grad`. ember's
    transforms wrap nothing (vmap calls the function on each sample's plain tensor), so this is
    `tensor` itself."""
    return tensor
