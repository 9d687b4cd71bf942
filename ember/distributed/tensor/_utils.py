"""Helpers PyTorch keeps beside DTensor; they need a DTensor's mesh, so they raise in ember."""

from .._unsupported import no_dtensor as _no_dtensor


def compute_local_shape_and_global_offset(global_shape, mesh, placements, *args, **kwargs):
    """This rank's local shape and global offset under a mesh layout: raises (ember has no DeviceMesh)."""
    raise _no_dtensor("compute_local_shape_and_global_offset")
