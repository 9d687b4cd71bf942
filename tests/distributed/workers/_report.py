"""How a worker rank hands its findings to the test: one JSON file per rank (stdout of several ranks
interleaves)."""

import json
import os


def report(rank, findings):
    with open(os.path.join(os.environ["EMBER_TEST_REPORTS"], f"rank{rank}.json"), "w") as file:
        json.dump(dict(findings, rank=rank), file)
