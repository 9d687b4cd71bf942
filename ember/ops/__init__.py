"""ember's built-in operations, one module per family; everything public is re-exported here.

Each public op is declared once, beside its primitive (`ops._declare.op`); `TENSOR_METHODS` maps
the names declared as tensor methods to their functions (`x.exp()` is `ember.exp(x)`), in-place
variants (`x.add_(y)`) included: Tensor reaches them through this module, bound on first use.
"""

from ._common import normalize_dim, normalize_dims
from .broadcast import sum_to_shape, sum_to_size, broadcast_shapes
from .elementwise import *  # noqa: F401,F403
from .pointwise import *  # noqa: F401,F403
from .complex_numbers import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .factorizations import *  # noqa: F401,F403
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
from .dimensions import *  # noqa: F401,F403
from .scatters import *  # noqa: F401,F403
from .number_parts import *  # noqa: F401,F403
from .predicates import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .calculus import *  # noqa: F401,F403
from .index_builders import *  # noqa: F401,F403
from .fills import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .slice_norms import *  # noqa: F401,F403
from .binning import *  # noqa: F401,F403
from .random_draws import *  # noqa: F401,F403
from . import python_callables  # noqa: F401 (Tensor methods only)
from . import fractional_pooling  # noqa: F401 (nn.functional's fractional max pools: no ember.* names)
from .spectral import *  # noqa: F401,F403
from .sparse_coo import *  # noqa: F401,F403
from .inplace import apply_inplace
from . import (
    elementwise,
    pointwise,
    complex_numbers,
    special,
    scans,
    counting,
    reduction,
    shape,
    indexing,
    linalg,
    factorizations,
    conversion,
    comparison,
    creation,
    joining,
)
from . import (
    conv,
    padding,
    pooling,
    activations,
    dropouts,
    embeddings,
    normalization,
    distance,
    linear_layers,
    patches,
    losses,
    interpolation,
    spectral,
)
from . import dimensions, scatters, number_parts, predicates, statistics, calculus, index_builders, products
from . import slice_norms, binning, random_draws, sparse_coo, fills
from . import inplace_methods, elision, random_fills
from .inplace_methods import *  # noqa: F401,F403
from ._declare import DECLARATIONS

_FAMILIES = (
    elementwise,
    pointwise,
    complex_numbers,
    special,
    scans,
    counting,
    reduction,
    shape,
    indexing,
    linalg,
    factorizations,
    conversion,
    comparison,
    joining,
    dimensions,
    scatters,
    number_parts,
    predicates,
    statistics,
    calculus,
    index_builders,
    products,
    slice_norms,
    binning,
    random_draws,
    sparse_coo,
    fills,
    inplace_methods,
)
_NN_FAMILIES = (
    conv,
    padding,
    pooling,
    activations,
    dropouts,
    embeddings,
    normalization,
    distance,
    linear_layers,
    patches,
    losses,
    spectral,
)

TENSOR_METHODS = {name: declaration.function for name, declaration in DECLARATIONS.items() if declaration.method}

__all__ = sorted(
    {name for family in _FAMILIES + _NN_FAMILIES + (creation,) for name in family.__all__}
    | {"sum_to_shape", "broadcast_shapes", "normalize_dim"}
)
