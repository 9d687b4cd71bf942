"""One rank fails in the way argv[1] names while the other waits in an all_reduce."""

import datetime
import os
import sys
import time

import ember
import ember.distributed as dist

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=3))
how = sys.argv[1]
if dist.get_rank() == 1:
    if how == "raises":
        raise ValueError("bad batch on purpose")
    if how == "dies":
        os._exit(3)
    if how == "hangs":
        time.sleep(60)
dist.all_reduce(ember.ones(3))
