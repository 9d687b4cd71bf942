"""Run every benchmark in one process (side by side, so ratios are comparable) and print a table."""

import datetime
import platform

import bench_custom_function
import bench_hvp
import bench_lenet
import bench_memory
import bench_mlp
import bench_op_overhead


def main():
    print(
        f"ember benchmarks, {datetime.date.today()}, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}"
    )
    rows = []
    for module in (bench_op_overhead, bench_mlp, bench_lenet, bench_custom_function, bench_hvp):
        result = module.run()
        rows.extend(result if isinstance(result, list) else [result])
    rows.append(bench_memory.run())
    print("\n| workload | NumPy | PyTorch | ember | ember/NumPy | ember/PyTorch |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        cells = []
        for key in ("numpy", "torch", "ember"):
            value = row.get(key)
            cells.append("" if value is None else (f"{value:.1f} MB" if "memory" in row["workload"] else _short(value)))
        ratios = [f"{row[key]:.2f}x" if key in row else "" for key in ("ember/numpy", "ember/torch")]
        print(f"| {row['workload']} | " + " | ".join(cells + ratios) + " |")


def _short(seconds):
    return f"{seconds * 1e6:.2f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.3f} ms"


if __name__ == "__main__":
    main()
