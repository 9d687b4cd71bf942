"""torchvision.models: classic classifiers with torchvision's module names (state_dict keys match).

Pretrained weights are never downloaded: see `_api` for where they are looked for.
"""

from ._api import Weights, WeightsEnum, get_weight
from .alexnet import *
from .alexnet import __all__ as _alexnet_names
from .densenet import *
from .densenet import __all__ as _densenet_names
from .mobilenetv2 import *
from .mobilenetv2 import __all__ as _mobilenet_names
from .resnet import *
from .resnet import __all__ as _resnet_names
from .squeezenet import *
from .squeezenet import __all__ as _squeezenet_names
from .vgg import *
from .vgg import __all__ as _vgg_names

__all__ = (
    ["Weights", "WeightsEnum", "get_weight", "get_model", "get_model_weights", "list_models"]
    + list(_alexnet_names)
    + list(_densenet_names)
    + list(_mobilenet_names)
    + list(_resnet_names)
    + list(_squeezenet_names)
    + list(_vgg_names)
)

_BUILDERS = {
    name: globals()[name]
    for name in __all__
    if name[0].islower()
    and name not in ("get_weight", "get_model", "get_model_weights", "list_models", "make_layers", "cfgs")
}
_WEIGHT_ENUMS = {name: globals()[name] for name in __all__ if name.endswith("_Weights")}


def list_models(module=None, include=None, exclude=None):
    """The names of the model builders ember provides (sorted)."""
    import fnmatch

    names = sorted(_BUILDERS)
    if include:
        patterns = [include] if isinstance(include, str) else include
        names = [name for name in names if any(fnmatch.fnmatch(name, pattern) for pattern in patterns)]
    if exclude:
        patterns = [exclude] if isinstance(exclude, str) else exclude
        names = [name for name in names if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)]
    return names


def get_model(name, **config):
    """Build a model by name: `get_model("resnet18", num_classes=10)`."""
    name = name.lower()
    if name not in _BUILDERS:
        raise ValueError(f"Unknown model {name}")
    return _BUILDERS[name](**config)


def get_model_weights(name):
    """The weights enum of a builder (or of a builder's name)."""
    builder = _BUILDERS[name.lower()] if isinstance(name, str) else name
    for enum in _WEIGHT_ENUMS.values():
        if enum.__name__.lower().replace("_weights", "").replace("_", "") == builder.__name__.replace("_", ""):
            return enum
    raise ValueError(f"no weights enum for {builder.__name__}")
