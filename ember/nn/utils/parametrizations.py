"""Weight norm, spectral norm and orthogonality as parametrizations (as `torch.nn.utils.parametrizations`).

These are the modern forms of `nn.utils.weight_norm` / `nn.utils.spectral_norm`: the weight
becomes a property computed from `module.parametrizations.weight.original0/original1` (weight
norm) or `.original` (spectral norm, orthogonal), with the same state dict keys as PyTorch.
"""

import math

import numpy as np

from ... import linalg, ops
from ..._tensor import new_tensor
from ...autograd.grad_mode import no_grad
from ...ops import creation
from .. import functional as F
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "weight_norm", "spectral_norm"]


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
        torch.Size([40, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    module.register_load_state_dict_pre_hook(_weight_norm_compat_hook(name))
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
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
        torch.Size([40])
    """
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "dim"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = any(cls.__name__ in _TRANSPOSED_CONVOLUTIONS for cls in type(module).__mro__)
        dim = 1 if transposed else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ---------------------------------------------------------------------- orthogonal
_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _matrix_exp(matrix):
    """exp of a batch of square matrices by scaling and squaring a degree-18 Taylor series (ember ops
    only, so it is differentiable)."""
    norm = float(np.abs(matrix.detach().numpy()).sum(-2).max()) if matrix.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    scaled = matrix / (2.0**squarings)
    identity = creation.eye(matrix.shape[-1], dtype=matrix.dtype).expand(*matrix.shape)
    result, term = identity, identity
    for degree in range(1, 19):
        term = term.matmul(scaled) / degree
        result = result + term
    for _ in range(squarings):
        result = result.matmul(result)
    return result


def _make_orthogonal(matrix):
    """Q of the QR decomposition of `matrix`, signed so that R has a non-negative diagonal."""
    q, r = np.linalg.qr(matrix.detach().numpy())
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return new_tensor((q * signs[..., None, :]).astype(q.dtype))


def _is_orthogonal(matrix):
    columns = matrix.shape[-1]
    gram = matrix.detach().numpy().swapaxes(-2, -1) @ matrix.detach().numpy()
    eps = 10.0 * matrix.shape[-2] * np.finfo(gram.dtype).eps
    return bool(np.allclose(gram, np.eye(columns), atol=eps))


def _householder_reflectors(matrix):
    """geqrf's reflectors of each (orthogonal) matrix, its diagonal replaced by signs so that forward
    maps them back to the matrix: forward multiplies the product of the reflectors by the diagonal,
    and R's diagonal holds those signs (flipped where geqrf left a column unreflected, tau == 0)."""
    reflectors, tau = ops.geqrf(matrix.detach())
    signs = reflectors.diagonal(dim1=-2, dim2=-1).sign()
    reflectors.diagonal(dim1=-2, dim2=-1).copy_(ops.where(tau == 0, -signs, signs))
    return reflectors


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        rows, columns = X.shape[-2], X.shape[-1]
        transposed = rows < columns
        if transposed:
            X = X.transpose(-2, -1)
            rows, columns = columns, rows
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if rows != columns:
                X = ops.cat([X, creation.zeros(tuple(X.shape[:-2]) + (rows, rows - columns), dtype=X.dtype)], -1)
            A = X - X.transpose(-2, -1)
            if self.orthogonal_map == "matrix_exp":
                Q = _matrix_exp(A)
            else:
                identity = creation.eye(rows, dtype=A.dtype)
                Q = linalg.solve(identity - 0.5 * A, identity + 0.5 * A)
            if rows != columns:
                Q = Q[..., :columns]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base.matmul(Q)
        if transposed:
            Q = Q.transpose(-2, -1)
        return Q

    def right_inverse(self, Q):
        if tuple(Q.shape) != tuple(self.shape):
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape {Q.shape}."
            )
        original = Q
        rows, columns = Q.shape[-2], Q.shape[-1]
        transposed = rows < columns
        if transposed:
            Q = Q.transpose(-2, -1)
            rows, columns = columns, rows
        if "base" not in self._buffers:
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False."
                )
            reflectors = _householder_reflectors(Q)
            return reflectors.transpose(-2, -1) if transposed else reflectors
        if rows == columns:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            completion = creation.randn(tuple(Q.shape[:-2]) + (rows, rows - columns), dtype=Q.dtype)
            Q = _make_orthogonal(ops.cat([Q, completion], -1))
        self.base = Q
        negative_identity = creation.zeros(tuple(original.shape), dtype=original.dtype)
        negative_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return negative_identity


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Keep `module.<name>` orthogonal (orthonormal rows or columns, whichever are fewer).

    Args:
        module: the module.  name: a matrix (or batch of matrices) parameter.
        orthogonal_map: "matrix_exp" (default for square matrices), "cayley" or "householder"
            (default otherwise) — how an unconstrained matrix is mapped to an orthogonal one.
        use_trivialization: keep a `base` orthogonal matrix and parametrize around it (default),
            which also allows assigning an orthogonal matrix to `module.<name>`.

    Example::

        >>> m = nn.utils.parametrizations.orthogonal(nn.Linear(20, 40))
        >>> bool(ember.allclose(m.weight.T @ m.weight, ember.eye(20), atol=1e-5))
        True
    """
    weight = getattr(module, name, None)
    if not hasattr(weight, "dim"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError(
            f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {orthogonal_map}'
        )
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization), unsafe=True
    )
    return module
