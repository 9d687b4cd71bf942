"""What anomaly detection costs: near zero when off, a stack walk per op when on.

Workload: the per-op chain of bench_op_overhead (1,000 element-wise ops on a 1-element float32
tensor, forward + backward), where bookkeeping dominates and any per-op cost would show most.

When off, anomaly detection adds two reads of a thread-local flag per op (one in Function.apply,
one in the engine). The script times that read on its own and prints it as a share of one op.
"""

import timeit

import ember
from ember.autograd import anomaly

from common import measure, format_seconds

CHAIN = 250  # x 4 ops = 1,000 ops
OPS = CHAIN * 4
FLAG_READS_PER_OP = 2


def chain_step():
    x = ember.ones(1, requires_grad=True)

    def step():
        y = x
        for _ in range(CHAIN):
            y = (y * 1.0001 + 0.5).tanh().sin()
        y.backward()
        x.grad = None

    return step


def time_per_op(enabled, check_nan=True):
    with ember.autograd.set_detect_anomaly(enabled, check_nan=check_nan):
        return measure(chain_step(), repeats=15) / OPS


def flag_read_seconds():
    """One read of the flag, as Function.apply does it (`module.state.enabled`), loop cost removed."""
    number = 1_000_000
    reads = timeit.timeit("anomaly.state.enabled", globals={"anomaly": anomaly}, number=number)
    empty = timeit.timeit("anomaly", globals={"anomaly": anomaly}, number=number)
    return max(reads - empty, 0.0) / number


def main():
    off = time_per_op(False)
    on_no_nan = time_per_op(True, check_nan=False)
    on = time_per_op(True)
    flag = flag_read_seconds() * FLAG_READS_PER_OP
    print("Anomaly detection overhead, per op (forward + backward of a 1-element element-wise op)")
    print(f"  off                          {format_seconds(off):>12}")
    print(f"  on, check_nan=False          {format_seconds(on_no_nan):>12}   ({on_no_nan / off:.1f}x off)")
    print(f"  on, check_nan=True           {format_seconds(on):>12}   ({on / off:.1f}x off)")
    print(
        f"  cost of the checks when off  {flag * 1e9:>9.1f} ns   ({100 * flag / off:.2f}% of an op: "
        f"{FLAG_READS_PER_OP} flag reads)"
    )


if __name__ == "__main__":
    main()
