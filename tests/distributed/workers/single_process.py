"""init_process_group without a launcher: argv[1] says which case."""

import os
import sys

import ember
import ember.distributed as dist

from _report import report  # noqa: E402  (beside this script)

case = sys.argv[1]
outcome = {"rank": 0}
try:
    if case == "world_of_one":
        dist.init_process_group("gloo", rank=0, world_size=1)
        t = ember.ones(2)
        dist.all_reduce(t)
        outcome["value"] = t.tolist()
        outcome["initialized"] = dist.is_initialized()
        try:
            dist.init_process_group("gloo", rank=0, world_size=1)
        except RuntimeError as error:
            outcome["twice"] = str(error)
        dist.destroy_process_group()
        outcome["after_destroy"] = dist.is_initialized()
    elif case == "two_without_launcher":
        dist.init_process_group("gloo", rank=0, world_size=2)
    elif case == "no_rank":
        os.environ.pop("RANK", None)
        dist.init_process_group("gloo")
    elif case == "nccl":
        dist.init_process_group("nccl", rank=0, world_size=1)
except Exception as error:
    outcome["error"] = type(error).__name__
    outcome["message"] = str(error)
report(0, outcome)
