"""Where ember's Python time goes, counted in bytecodes executed per function: a profile that does not
move with the machine's load (timings here drift by 2x), for comparing two versions of the code.

    python bytecode_profile.py ops    # per element-wise op of bench_op_overhead (fwd+bwd)
    python bytecode_profile.py hvp    # per step of bench_hvp

Bytecodes are not equally expensive and NumPy's own work is not counted; use it to see which
Python function a change made cheaper, and the timed benchmarks for the speed itself.
"""

import collections
import sys

import ember


def op_chain():
    x = ember.ones(1, requires_grad=True)

    def work():
        y = x
        for _ in range(250):
            y = (y * 1.0001 + 0.5).tanh().sin()
        y.backward()
        x.grad = None

    return work, 1000


def hvp_step():
    import bench_hvp

    params, vector, x, y = bench_hvp.make_data()
    return bench_hvp.library_hvp(ember, params, vector, x, y), 1


WORKLOADS = {"ops": op_chain, "hvp": hvp_step}


def count_bytecodes(work):
    """{(file, function): bytecodes executed} for one call of `work`."""
    counts = collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            counts[(frame.f_code.co_filename, frame.f_code.co_name)] += 1
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return counts


def main(name="ops", rows=20):
    work, units = WORKLOADS[name]()
    work()  # warm up: first calls import and build caches
    counts = count_bytecodes(work)
    print(f"bytecodes per {'op' if units > 1 else 'step'}: {sum(counts.values()) / units:.0f}")
    for (filename, function), count in counts.most_common(rows):
        where = filename.split("/ember/", 1)[-1] if "/ember/" in filename else filename.rsplit("/", 1)[-1]
        print(f"  {count / units:9.1f}  {function}  ({where})")


if __name__ == "__main__":
    main(*sys.argv[1:2])
