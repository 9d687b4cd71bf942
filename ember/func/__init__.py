"""`torch.func`: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap)
and `functional_call` for running a module with other parameters.

    from ember.func import grad, vmap, functional_call
    per_sample_grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
"""
from .differentiation import grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian
from .batching import vmap
from .module_state import functional_call, stack_module_state

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call",
           "stack_module_state"]
