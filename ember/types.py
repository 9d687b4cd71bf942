"""`ember.types` (torch.types): the type aliases that annotated PyTorch code imports."""

import os
from typing import IO, Union

from ._backend import device
from ._size import Size
from ._storage import TypedStorage, UntypedStorage
from ._tensor import Tensor

__all__ = ["Number", "Device", "FileLike", "Storage", "Size", "Tensor", "IntLikeType", "FloatLikeType", "BoolLikeType"]

Number = int | float | bool
Device = Union[device, str, int, None]
FileLike = Union[str, os.PathLike, IO[bytes]]
Storage = Union[TypedStorage, UntypedStorage]
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
