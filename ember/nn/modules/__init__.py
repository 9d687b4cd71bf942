"""All layers, re-exported (as `torch.nn.modules`)."""

from .module import Module
from .container import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .sync_batchnorm import *  # noqa: F401,F403
from . import (
    container,
    linear,
    conv,
    pooling,
    activation,
    normalization,
    dropout,
    sparse,
    rnn,
    loss,
    flatten,
    padding,
    pixelshuffle,
    upsampling,
    distance,
    fold,
    lazy,
    sync_batchnorm,
)

__all__ = ["Module"] + [
    name
    for family in (
        container,
        linear,
        conv,
        pooling,
        activation,
        normalization,
        dropout,
        sparse,
        rnn,
        loss,
        flatten,
        padding,
        pixelshuffle,
        upsampling,
        distance,
        fold,
        lazy,
        sync_batchnorm,
    )
    for name in family.__all__
]
from .attention import *  # noqa: F401,F403,E402
from .transformer import *  # noqa: F401,F403,E402
from .embedding_bag import *  # noqa: F401,F403,E402
from .ctc import *  # noqa: F401,F403,E402
from .adaptive import *  # noqa: F401,F403,E402
from . import attention, transformer, embedding_bag, ctc, adaptive  # noqa: E402

__all__ += attention.__all__ + transformer.__all__ + embedding_bag.__all__ + ctc.__all__ + adaptive.__all__
