"""Weight and spectral normalisation as parametrizations (as `torch.nn.utils.parametrizations`).

These are the modern forms of `nn.utils.weight_norm` / `nn.utils.spectral_norm`: the weight
becomes a property computed from `module.parametrizations.weight.original0/original1` (weight
norm) or `.original` (spectral norm), with the same state dict keys as PyTorch.
"""
from ... import ops
from ...autograd.grad_mode import no_grad
from ...ops import creation
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["weight_norm", "spectral_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def _weight_norm_compat_hook(name):
    """Load state dicts saved with the hook-based weight_norm (`<name>_g`, `<name>_v` keys)."""

    def hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    return hook


def weight_norm(module, name="weight", dim=0):
    """Reparametrise `module.<name>` as `g * v / ||v||`, with g = original0 and v = original1.

    Args:
        module: the module.  name: the parameter.  dim: the dimension kept by the norm (None: all).

    Example::

        >>> m = nn.utils.parametrizations.weight_norm(nn.Linear(20, 40))
        >>> m.parametrizations.weight.original0.shape
        ember.Size([40, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    module.register_load_state_dict_pre_hook(_weight_norm_compat_hook(name))
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            rows, columns = weight_mat.shape
            self.register_buffer("_u", F.normalize(creation.randn(rows, dtype=weight.dtype), dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(creation.randn(columns, dtype=weight.dtype), dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(ops.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(ops.mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = ops.dot(u, ops.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


_TRANSPOSED_CONVOLUTIONS = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide `module.<name>` by its spectral norm, estimated by power iteration (buffers `_u`, `_v`
    of `module.parametrizations.<name>[0]`; updated on each access in training mode).

    Example::

        >>> m = nn.utils.parametrizations.spectral_norm(nn.Linear(20, 40))
        >>> m.parametrizations.weight[0]._u.shape
        ember.Size([40])
    """
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "dim"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = any(cls.__name__ in _TRANSPOSED_CONVOLUTIONS for cls in type(module).__mro__)
        dim = 1 if transposed else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
