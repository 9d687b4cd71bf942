"""`torch.func`: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap)
and `functional_call` for running a module with other parameters.

    from ember.func import grad, vmap, functional_call
    per_sample_grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
"""

from .differentiation import grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian
from .batching import vmap, debug_unwrap
from .module_state import functional_call, stack_module_state, replace_all_batch_norm_modules_

__all__ = [
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "linearize",
    "jacrev",
    "jacfwd",
    "hessian",
    "vmap",
    "functional_call",
    "stack_module_state",
    "replace_all_batch_norm_modules_",
    "debug_unwrap",
    "functionalize",
]


def functionalize(func, *, remove="mutations"):
    """Return `func` itself: ember runs eagerly with no graph capture, so there is nothing to rewrite
    (PyTorch removes in-place mutations for its compilers; the results are the same)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
            "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
            "removed from the program, and replaced with their out-of-place equivalents.\n     "
            "remove='mutations_and_views': In addition to the above, all aliasing operators "
            "{view} will be replaced with their non-aliasing counterparts, {view}_copy.\n"
        )
    return func
