"""What a process started by `python -m ember.distributed.run` sees (a torchrun-style script)."""

import os
import sys

import torch  # ember, through the launcher's compatibility hook
import torch.distributed as dist

from _report import report  # noqa: E402  (beside this script)

dist.init_process_group(backend="gloo", init_method="env://")
names = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
report(
    dist.get_rank(),
    {
        "size": dist.get_world_size(),
        "torch": torch.__name__,
        "is_ember": "ember" in sys.modules and torch.Tensor is sys.modules["ember"].Tensor,
        "env": {name: os.environ.get(name) for name in names},
    },
)
dist.destroy_process_group()
