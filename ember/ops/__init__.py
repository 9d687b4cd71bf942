"""ember's built-in operations, one module per family; everything public is re-exported here.

`TENSOR_METHODS` names the functions that are also tensor methods (`x.exp()` is `ember.exp(x)`);
`Tensor.__getattr__` looks them up here. In-place variants (`x.add_(y)`) are made from their
out-of-place op by `ops.inplace.inplace_variant`.
"""
from ._common import normalize_dim, normalize_dims
from .broadcast import sum_to_shape, sum_to_size, broadcast_shapes
from .elementwise import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .conversion import *  # noqa: F401,F403
from .comparison import *  # noqa: F401,F403
from .joining import *  # noqa: F401,F403
from .scans import *  # noqa: F401,F403
from .counting import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .activations import *  # noqa: F401,F403
from .dropouts import *  # noqa: F401,F403
from .embeddings import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .linear_layers import *  # noqa: F401,F403
from .patches import *  # noqa: F401,F403
from .losses import *  # noqa: F401,F403
from .inplace import apply_inplace
from . import elementwise, pointwise, special, scans, counting, reduction, shape, indexing, linalg, conversion, comparison, creation, \
    joining
from . import conv, padding, pooling, activations, dropouts, embeddings, normalization, distance, linear_layers, \
    patches, losses
from . import inplace_methods, elision
from .inplace_methods import *  # noqa: F401,F403

_FAMILIES = (elementwise, pointwise, special, scans, counting, reduction, shape, indexing, linalg, conversion, comparison, joining,
             inplace_methods)
_NN_FAMILIES = (conv, padding, pooling, activations, dropouts, embeddings, normalization, distance, linear_layers,
                patches, losses)

# Functions that are not tensor methods (or are methods with another meaning).
_NOT_METHODS = {"where", "tensor", "from_numpy", "index_put", "einsum", "tensordot", "chain_matmul",
                "block_diag", "cdist"}

TENSOR_METHODS = frozenset(
    name for family in _FAMILIES for name in family.__all__ if name not in _NOT_METHODS
) | {"where", "sum_to_size"} | set(activations.METHODS)

__all__ = sorted({name for family in _FAMILIES + _NN_FAMILIES + (creation,) for name in family.__all__} |
                 {"sum_to_shape", "broadcast_shapes", "normalize_dim"})
