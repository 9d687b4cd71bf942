"""`ember.accelerator` (PyTorch's device-agnostic accelerator API): ember computes on the CPU, which
PyTorch does not count as an accelerator, so scripts written as
`device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"`
choose the CPU."""

__all__ = [
    "is_available",
    "current_accelerator",
    "device_count",
    "current_device_index",
    "set_device_index",
    "synchronize",
]


def is_available():
    return False


def current_accelerator(check_available=False):
    """None: there is no accelerator."""
    return None


def device_count():
    return 0


def current_device_index():
    return -1


def set_device_index(device):
    raise RuntimeError(
        "ember.accelerator.set_device_index: ember has no accelerator (it computes on the CPU "
        "with NumPy); keep tensors on 'cpu'"
    )


def synchronize(device=None):
    """Nothing runs asynchronously on the CPU."""
