"""ember.compile against eager ember, PyTorch eager (and torch.compile) and hand-written NumPy.

Each workload is the step of the eager benchmark of the same name (same data, same library code),
compiled with `lib.compile(step)`. Printed per workload: the time per step of each implementation,
the ratios of compiled ember to PyTorch eager and to NumPy, and the compile time (the calls until the
first replay, less the eager time of as many steps). `--torch-compile` adds PyTorch's inductor
(slow to compile: minutes for all the workloads) where it works on this machine.

`--one-thread` measures CPU time with one thread everywhere (see common.measure_one_thread_cpu_time):
the figures to trust on a machine other processes are using. `--pairs N` adds, per reference, the
median ratio over N steps run in alternating pairs with it (common.median_pair_ratio): the steadiest
ratio where the host steals CPU time, and the one the table shows. Only with `--one-thread`: with
thread pools, each library's spinning workers slow the other's step.

    python bench_compile.py [--torch-compile] [--one-thread] [--pairs N] [workload ...]
"""

import os
import sys

import numpy as np

import bench_custom_function
import bench_hvp
import bench_lenet
import bench_mlp
import bench_op_overhead
import common
from common import format_seconds, measure_side_by_side, try_import_torch


# ----------------------------------------------------------------- a character-level Transformer
VOCAB, CONTEXT, BATCH, WIDTH, HEADS, LAYERS = 65, 32, 32, 64, 4, 2


def transformer_step(lib, seed=0):
    """One Adam step of a 2-layer, 4-head, d=64 causal Transformer written with Linear/LayerNorm/softmax."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(seed)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
            self.qkv, self.project = nn.Linear(WIDTH, 3 * WIDTH), nn.Linear(WIDTH, WIDTH)
            self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH))
            self.register_buffer("mask", lib.triu(lib.ones(CONTEXT, CONTEXT, dtype=lib.bool), 1))

        def forward(self, x):
            batch, length, width = x.shape
            q, k, v = self.qkv(self.norm1(x)).split(width, 2)
            q, k, v = (t.reshape(batch, length, HEADS, width // HEADS).transpose(1, 2) for t in (q, k, v))
            scores = (q @ k.transpose(-2, -1)) * (1.0 / (width // HEADS) ** 0.5)
            attention = F.softmax(scores.masked_fill(self.mask, float("-inf")), -1)
            x = x + self.project((attention @ v).transpose(1, 2).reshape(batch, length, width))
            return x + self.mlp(self.norm2(x))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed, self.position = nn.Embedding(VOCAB, WIDTH), nn.Embedding(CONTEXT, WIDTH)
            self.blocks = nn.Sequential(*[Block() for _ in range(LAYERS)])
            self.norm, self.head = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, VOCAB)

        def forward(self, tokens):
            x = self.embed(tokens) + self.position(lib.arange(tokens.shape[1]))
            return self.head(self.norm(self.blocks(x)))

    model = Model()
    optimizer = lib.optim.Adam(model.parameters(), lr=3e-4)
    rng = np.random.default_rng(seed)
    tokens = lib.from_numpy(rng.integers(0, VOCAB, (BATCH, CONTEXT + 1)))
    inputs, targets = tokens[:, :-1], tokens[:, 1:]

    def step():
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs).reshape(-1, VOCAB), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


# ----------------------------------------------------------------- workloads
def _op_overhead(lib):
    return bench_op_overhead.library_step(lib)


def _hvp(lib):
    return bench_hvp.library_hvp(lib, *bench_hvp.make_data())


def _hvp_by_hand(lib):
    return bench_hvp.library_double_backward(lib, *bench_hvp.make_data())


def _custom_function(lib):
    return bench_custom_function.library_step(lib, *bench_custom_function.make_data())


def _custom_function_seed_made_once(lib):
    return bench_custom_function.library_step(lib, *bench_custom_function.make_data(), seed_made_once=True)


def _mlp(lib):
    return bench_mlp.library_step(lib, *bench_mlp.make_data())


def _lenet(lib):
    return bench_lenet.library_step(lib, *bench_lenet.make_data())


WORKLOADS = {
    # name: (title, library step maker, NumPy step (or None), repeats, per-step divisor, target)
    "ops": (
        "op overhead, per element-wise op (fwd+bwd)",
        _op_overhead,
        lambda: bench_op_overhead.numpy_step,
        20,
        4 * bench_op_overhead.CHAIN,
        "<= 0.2x PyTorch, <= 1.0x NumPy",
    ),
    "hvp": (
        "Hessian-vector product, 100-100-1 tanh MLP (autograd.functional.hvp)",
        _hvp,
        lambda: bench_hvp.numpy_hvp(*bench_hvp.make_data()),
        50,
        1,
        "<= 0.3x PyTorch",
    ),
    "hvp-by-hand": (
        "Hessian-vector product, 100-100-1 tanh MLP (grad of <grad, v>)",
        _hvp_by_hand,
        lambda: bench_hvp.numpy_hvp(*bench_hvp.make_data()),
        50,
        1,
        "<= 0.3x PyTorch",
    ),
    "custom": (
        "custom Function z = w*x+b, 1000x1000",
        _custom_function,
        lambda: bench_custom_function.numpy_step(*bench_custom_function.make_data()),
        20,
        1,
        "<= 1.0x NumPy",
    ),
    "custom-seed-made-once": (
        "custom Function z = w*x+b, 1000x1000, seed gradient made once outside the step",
        _custom_function_seed_made_once,
        lambda: bench_custom_function.numpy_step(*bench_custom_function.make_data()),
        20,
        1,
        "<= 1.0x NumPy (the NumPy step makes its seed inside)",
    ),
    "mlp": (
        "MLP 784-512-512-10 step",
        _mlp,
        lambda: bench_mlp.numpy_step(*bench_mlp.make_data()),
        20,
        1,
        "<= 0.9x NumPy",
    ),
    "lenet": (
        "LeNet-5 step",
        _lenet,
        lambda: bench_lenet.numpy_step(*bench_lenet.make_data()),
        10,
        1,
        "<= 1.2x PyTorch",
    ),
    "transformer": (
        "char Transformer step (2 layers, d=64, 4 heads, ctx 32, batch 32)",
        transformer_step,
        None,
        10,
        1,
        "<= 1.0x PyTorch",
    ),
}


def compile_time(step, eager_seconds, calls=3):
    """Seconds spent compiling: `calls` first calls, less what as many eager steps take."""
    start = common.clock()
    for _ in range(calls):
        step()
    return max(0.0, common.clock() - start - calls * eager_seconds)


def run_workload(name, with_torch_compile, pairs=0):
    import ember

    title, make, make_numpy, repeats, divisor, target = WORKLOADS[name]
    steps = {}
    if make_numpy is not None:
        steps["numpy"] = make_numpy()
    torch = try_import_torch()
    if torch is not None:
        steps["torch"] = make(torch)
    steps["ember"] = make(ember)
    compiled = ember.compile(make(ember))
    eager_estimate = measure_side_by_side({"ember": steps["ember"]}, 3, warmup=1)["ember"]
    compile_seconds = {"ember.compile": compile_time(compiled, eager_estimate)}
    if compiled.eager_reason:
        print(f"  ember.compile fell back to eager: {compiled.eager_reason[0]}")
    steps["ember.compile"] = compiled
    if torch is not None and with_torch_compile:
        try:
            torch_compiled = torch.compile(make(torch))
            torch_eager = measure_side_by_side({"torch": steps["torch"]}, 3, warmup=1)["torch"]
            compile_seconds["torch.compile"] = compile_time(torch_compiled, torch_eager)
            steps["torch.compile"] = torch_compiled
        except Exception as error:  # inductor needs a C compiler and more; report and go on
            print(f"  torch.compile failed: {type(error).__name__}: {str(error)[:200]}")
    times = measure_side_by_side(steps, repeats, warmup=2)
    row = {"workload": title, "target": target}
    print(f"\n{title}")
    for label, seconds in times.items():
        extra = f"   (compile {format_seconds(compile_seconds[label])})" if label in compile_seconds else ""
        print(f"  {label:<14} {format_seconds(seconds / divisor):>12}{extra}")
        row[label] = seconds / divisor
    ours = times["ember.compile"]
    for reference in ("numpy", "torch", "ember", "torch.compile"):
        if reference in times:
            row[f"compiled/{reference}"] = ours / times[reference]
            print(f"  ember.compile/{reference}: {ours / times[reference]:.2f}x")
            if pairs:
                ratio = common.median_pair_ratio(compiled, steps[reference], pairs)
                print(f"  ember.compile/{reference}, median of {pairs} alternating pairs: {ratio:.2f}x")
                row[f"compiled/{reference}"] = ratio  # (the table shows the steadier figure)
    row["compile"] = compile_seconds
    print(f"  target: {target}")
    return row


def print_table(rows):
    print(
        "\n| workload | NumPy | PyTorch | ember | ember.compile | compiled/PyTorch | compiled/NumPy | compiled/ember | torch.compile | compile time (ember / torch) | target |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for row in rows:

        def cell(key):
            return format_seconds(row[key]) if key in row else "—"

        def ratio(key):
            return f"{row[key]:.2f}x" if key in row else "—"

        compile_cell = " / ".join(format_seconds(value) for value in row["compile"].values())
        print(
            f"| {row['workload']} | {cell('numpy')} | {cell('torch')} | {cell('ember')} | {cell('ember.compile')} | "
            f"{ratio('compiled/torch')} | {ratio('compiled/numpy')} | {ratio('compiled/ember')} | "
            f"{cell('torch.compile')} | {compile_cell} | {row['target']} |"
        )


if __name__ == "__main__":
    arguments = sys.argv[1:]
    with_torch_compile = "--torch-compile" in arguments
    if "--one-thread" in arguments:
        if os.environ.get("OPENBLAS_NUM_THREADS") != "1":  # (read when NumPy loads: start again with it)
            environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
            os.execve(sys.executable, [sys.executable, *sys.argv], environment)
        common.measure_one_thread_cpu_time()
    pairs = int(arguments[arguments.index("--pairs") + 1]) if "--pairs" in arguments else 0
    if pairs and "--one-thread" not in arguments:
        # (measured: the Transformer at 0.62x PyTorch by pairs where rounds gave 1.23x)
        sys.exit("--pairs needs --one-thread: steps in turns with thread pools slow each other (spinning workers)")
    names = [name for name in arguments if name in WORKLOADS] or list(WORKLOADS)
    print_table([run_workload(name, with_torch_compile, pairs) for name in names])
