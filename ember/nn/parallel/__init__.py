"""ember.nn.parallel: `DistributedDataParallel` (over ember.distributed) and `DataParallel`."""

from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
