"""Pretrained weights: torchvision's `weights=` enums, and loading them only from the local cache.

torchvision downloads checkpoints into `$TORCH_HOME/hub/checkpoints/` (default
`~/.cache/torch/hub/checkpoints/`). ember never downloads weights: `weights=` (or `pretrained=True`)
looks for the checkpoint there and loads it with `ember.load`, which reads torchvision's `.pth`
files as PyTorch's weights_only loading does. A `.npz` file of the same stem
(`resnet18-f37072fd.npz`, from `numpy.savez(path, **{k: v.numpy() for k, v in sd.items()})`) is
read too.
"""

import os
from dataclasses import dataclass, field
from enum import Enum
from ..._warn import warn as _warn

__all__ = [
    "Weights",
    "WeightsEnum",
    "get_weight",
    "checkpoint_folder",
    "handle_legacy_pretrained",
    "check_num_classes",
    "load_into",
]


@dataclass(eq=False)
class Weights:
    """One set of pretrained weights: where torchvision fetches it, the preprocessing it expects, facts about it."""

    url: str
    transforms: object
    meta: dict = field(default_factory=dict)


class WeightsEnum(Enum):
    """Base of `ResNet18_Weights` and friends: members are Weights, `DEFAULT` names the recommended one."""

    @classmethod
    def verify(cls, obj):
        """The member `obj` names: a member, its name as a string ("IMAGENET1K_V1" or
        "ResNet18_Weights.IMAGENET1K_V1"), or None.
        """
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, str):
            try:
                return cls[obj.replace(cls.__name__ + ".", "")]
            except KeyError:
                raise ValueError(
                    f"Failed to find Weights {obj} in {cls.__name__}. Available: {', '.join(cls.__members__)}"
                ) from None
        raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but received {type(obj).__name__}.")

    @property
    def url(self):
        """Where torchvision publishes these weights (ember reads them from the local cache only)."""
        return self.value.url

    @property
    def transforms(self):
        """The preprocessing the weights expect: call it to get the transform (`weights.transforms()`)."""
        return self.value.transforms

    @property
    def meta(self):
        """Facts about the weights: number of classes and parameters, minimum input size, dataset, ..."""
        return self.value.meta

    def __repr__(self):
        return f"{self.__class__.__name__}.{self._name_}"

    def get_state_dict(self, progress=True, check_hash=False):
        """The state dict from the local cache (see the module docstring); never downloads."""
        return _load_state_dict(self)


def get_weight(name):
    """`get_weight("ResNet18_Weights.IMAGENET1K_V1")` -> the enum member."""
    from . import _WEIGHT_ENUMS

    enum_name, _, member = name.partition(".")
    if enum_name not in _WEIGHT_ENUMS:
        raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be retrieved.")
    return _WEIGHT_ENUMS[enum_name].verify(member)


def checkpoint_folder():
    """Where torchvision keeps downloaded checkpoints: torch.hub's folder's `checkpoints`
    ($TORCH_HOME/hub/checkpoints, ~/.cache/torch/... by default, or under `hub.set_dir`'s choice)."""
    from ... import hub

    return os.path.join(hub.get_dir(), "checkpoints")


def _load_state_dict(weights):
    from ... import serialization

    folder = checkpoint_folder()
    filename = os.path.basename(weights.url)
    stem = os.path.splitext(filename)[0]
    converted, original = os.path.join(folder, stem + ".npz"), os.path.join(folder, filename)
    if os.path.isfile(original):
        try:
            return serialization.load(original)
        except RuntimeError as error:
            raise RuntimeError(f"found {original} but could not load it: {error}") from None
    if os.path.isfile(converted):
        return serialization.load(converted)
    raise FileNotFoundError(
        f"the pretrained weights {weights!r} are not on this machine: looked for {original} and {converted}. "
        f"ember never downloads weights by itself. Fetch {weights.url} (torchvision's file; PyTorch's "
        f"torch.hub puts it in {folder}) into that folder, or pass weights=None for a randomly initialised model."
    )


def load_into(model, state):
    """model.load_state_dict(state), strict; checkpoints older than batch norm's step counter lack
    `num_batches_tracked`, which PyTorch fills in with 0 on loading, and so does this."""
    state = dict(state)
    for key, value in model.state_dict().items():
        if key.endswith("num_batches_tracked") and key not in state:
            state[key] = value.new_zeros(())
    model.load_state_dict(state)
    return model


def handle_legacy_pretrained(weights, kwargs, default_weights):
    """torchvision's `pretrained=True` (deprecated there) -> `weights=<the V1 weights>`, with its warning."""
    if "pretrained" in kwargs:
        pretrained = kwargs.pop("pretrained")
        _warn(
            "The parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, "
            "please use 'weights' instead.",
            UserWarning,
            stacklevel=3,
        )
        if pretrained:
            if weights is not None:
                raise ValueError("pretrained=True and weights= cannot be given together")
            _warn(
                f"Arguments other than a weight enum or `None` for 'weights' are deprecated since 0.13 and "
                f"may be removed in the future. The current behavior is equivalent to passing "
                f"`weights={default_weights!r}`. You can also use `weights={type(default_weights).__name__}"
                f".DEFAULT` to get the most up-to-date weights.",
                UserWarning,
                stacklevel=3,
            )
            weights = default_weights
    return weights


def check_num_classes(weights, kwargs):
    """With pretrained weights the classifier has the weights' number of classes (1000 for ImageNet)."""
    if weights is None:
        return
    expected = weights.meta.get("num_classes", 1000)
    if kwargs.setdefault("num_classes", expected) != expected:
        raise ValueError(
            f"The parameter 'num_classes' expected value {expected} but got {kwargs['num_classes']} instead."
        )
