"""`torch.distributed.device_mesh` by name: DeviceMesh arranges ranks for DTensor, which ember lacks.

`isinstance(x, DeviceMesh)` is False for everything, and creating a mesh raises NotImplementedError.
"""

from ._unsupported import no_dtensor as _no_dtensor

__all__ = ["init_device_mesh", "DeviceMesh"]


class DeviceMesh:
    """An n-dimensional grid of ranks for DTensor placements; cannot be created in ember."""

    def __init__(self, *args, **kwargs):
        raise _no_dtensor("DeviceMesh")


def init_device_mesh(device_type, mesh_shape, *, mesh_dim_names=None, backend_override=None):
    raise _no_dtensor("init_device_mesh")
