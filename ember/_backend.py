"""The array library behind tensors.

Ops reach NumPy only through this module (`from .._backend import np`), so that a CuPy backend for
`device="cuda"` means teaching this module about CuPy, not editing every op: NumPy's functions
dispatch to CuPy arrays through `__array_function__`.
"""

import warnings

import numpy as np

__all__ = ["np", "device", "to_device", "missing_device_error", "as_strided", "broadcast_view"]


# The device types PyTorch knows, in the order its error lists them: ember computes on "cpu" only, but
# naming another is refused where it is used (to_device), as PyTorch does, not when it is written down.
_DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
    "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip


class device:
    """Where a tensor's memory lives. Only `cpu` is available without CuPy."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type  # PyTorch's meaning of a bare index
        elif ":" in type:
            text = type
            type, _, index = text.partition(":")
            if not index.isdigit() and type in _DEVICE_TYPES:
                raise RuntimeError(f"Invalid device string: '{text}'")
            index = int(index) if index.isdigit() else index
        if type not in _DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {type}"
            )
        self.type = type
        self.index = index

    def __repr__(self):
        return (
            f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"
        )

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        """`with torch.device(d):` makes `d` the default for new tensors: the CPU, the only device here,
        already is; any other device raises as `set_default_device` does."""
        set_default_device(self)
        return self

    def __exit__(self, *exc_info):
        return False


CPU = device("cpu")


def set_default_device(value):
    """`torch.set_default_device`: only the CPU exists here, so this checks the choice (a clear error
    for "cuda" now, rather than at the first tensor) and otherwise changes nothing."""
    to_device(value)


def get_default_device():
    """The device new tensors are made on: always the CPU (`set_default_device` accepts only "cpu")."""
    return CPU


def to_device(value):
    """Check a `device=` argument: ember computes on the CPU only."""
    if value is None:
        return CPU
    d = device(value) if not isinstance(value, device) else value
    if d.type != "cpu":
        raise missing_device_error(d, by_index=isinstance(value, int))
    return CPU


_ON_THE_CPU = "ember computes on the CPU (NumPy): use device='cpu' or drop the device argument"


def missing_device_error(d, by_index=False):
    """What a PyTorch built without `d`'s backend raises for it (class and first words, so that code
    catching it works the same), followed by what to do instead."""
    if by_index:
        return RuntimeError(f"Cannot access accelerator device when none is available: {_ON_THE_CPU}.")
    if d.type in ("cuda", "xpu"):
        return AssertionError(
            f"Torch not compiled with {d.type.upper()} enabled: {_ON_THE_CPU} (torch.{d.type}.is_available() is False)."
        )
    if d.type == "mps":
        return RuntimeError(f"PyTorch is not linked with support for mps devices: {_ON_THE_CPU}.")
    return RuntimeError(f"ember has no '{d.type}' device: {_ON_THE_CPU}.")


def as_strided(array, shape, strides, writeable=True):
    """A view of `array`'s memory with another shape and strides (expand, windows, diagonals).

    NumPy's own `as_strided` costs ~7 us a call (it goes through `__array_interface__`); a view built
    on a contiguous array's buffer costs ~0.7 us. Like NumPy's, the view is writable only if `array`
    is (and `writeable` is true). An ndarray subclass may take over (`_as_strided_view`): ember.compile's
    recorded arrays do, so that the view is recorded like any other NumPy call."""
    if type(array) is not np.ndarray:
        take_over = getattr(array, "_as_strided_view", None)
        if take_over is not None:
            return take_over(as_strided, shape, strides, writeable)
    if not array.flags.c_contiguous:
        return np.lib.stride_tricks.as_strided(array, shape, strides, writeable=writeable)
    view = np.ndarray(shape, array.dtype, array, 0, strides)
    if not writeable:
        view.flags.writeable = False
    return view


def broadcast_view(array, shape, writeable=False):
    """`array` broadcast to `shape` as a view with stride 0 on the broadcast dims (np.broadcast_to
    without its Python wrapper; `expand` asks for a writable one, as PyTorch's expand is)."""
    lead = len(shape) - array.ndim
    strides = (0,) * lead + tuple(
        0 if size == 1 and target != 1 else stride
        for size, target, stride in zip(array.shape, shape[lead:], array.strides)
    )
    return as_strided(array, shape, strides, writeable)


# PyTorch computes log(-1) or 1/0 silently (nan, inf); NumPy would warn from inside ember's ops.
# Only warnings raised from ember's own modules are silenced: the user's NumPy calls keep theirs.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember\.")
