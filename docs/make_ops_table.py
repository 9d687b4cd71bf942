"""Write docs/ops.md: every public op of `ember.ops` with its forms and what the op table proves.

    python docs/make_ops_table.py            # rewrites docs/ops.md
    python docs/make_ops_table.py --check    # exits 1 if docs/ops.md is out of date

Everything comes from introspection, nothing is typed by hand:
- the ops are the functions of `ember.ops.__all__` (not classes or private helpers); an `x_` name
  whose `x` is also an op is `x`'s in-place form;
- the function form is `ember.<name>`; the method form is a name of `ember.ops.TENSOR_METHODS` (or
  of `Tensor` itself); the operators are the `Tensor` dunders whose source calls `_ops.<name>(`;
- "differentiable" and "double backward" come from the op-table cases (`tests/ops/table_*.py`):
  each case's `ember_fn` is run with every `ember` op function wrapped, and the outermost ops it
  calls with a tensor that requires grad are credited with the case's `grad` (float64 gradcheck)
  and `gradgrad` (gradgradcheck) flags. "yes" means a case checks it, "no" that every case
  covering the op turns the check off, "—" that no case covers the op (untested here, not
  necessarily unsupported).
"""
import argparse
import functools
import importlib
import inspect
import pathlib
import re
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ember  # noqa: E402
from ember import ops  # noqa: E402

OUTPUT = ROOT / "docs" / "ops.md"

# Python's operator syntax for the Tensor dunders (a language fact, not a list of ember's ops).
OPERATOR_SYNTAX = {
    "__add__": "a + b", "__sub__": "a - b", "__mul__": "a * b", "__truediv__": "a / b",
    "__floordiv__": "a // b", "__mod__": "a % b", "__pow__": "a ** b", "__matmul__": "a @ b",
    "__neg__": "-a", "__abs__": "abs(a)", "__invert__": "~a", "__and__": "a & b", "__or__": "a | b",
    "__xor__": "a ^ b", "__lshift__": "a << b", "__rshift__": "a >> b", "__eq__": "a == b",
    "__ne__": "a != b", "__lt__": "a < b", "__le__": "a <= b", "__gt__": "a > b", "__ge__": "a >= b",
    "__getitem__": "a[i]", "__setitem__": "a[i] = v", "__iadd__": "a += b", "__isub__": "a -= b",
    "__imul__": "a *= b", "__itruediv__": "a /= b", "__ifloordiv__": "a //= b", "__imod__": "a %= b",
    "__ipow__": "a **= b", "__iand__": "a &= b", "__ior__": "a |= b", "__ixor__": "a ^= b",
}


def operators_by_op():
    """op name -> the operator spellings whose dunder calls it."""
    found = {}
    for dunder, syntax in OPERATOR_SYNTAX.items():
        method = vars(ember.Tensor).get(dunder)
        if method is None:
            continue
        for name in re.findall(r"_ops\.(\w+)\(", inspect.getsource(method)):
            found.setdefault(name, []).append(syntax)
    return found


def is_method(name):
    return name in ops.TENSOR_METHODS or callable(getattr(ember.Tensor, name, None))


class CallRecorder:
    """Wraps every op function wherever ember binds it and records the outermost ops called."""

    def __init__(self, names):
        self.depth = 0
        self.called = set()
        self.functions = {}  # function -> its names (aliases such as mul/multiply share one function)
        for name in sorted(names):
            self.functions.setdefault(getattr(ops, name), []).append(name)

    def _wrap(self, function, aliases):
        @functools.wraps(function)
        def recorded(*args, **kwargs):
            if self.depth == 0 and _takes_grad(args, kwargs):
                self.called.update(aliases)
            self.depth += 1
            try:
                return function(*args, **kwargs)
            finally:
                self.depth -= 1
        return recorded

    def install(self):
        wrappers = {function: self._wrap(function, aliases) for function, aliases in self.functions.items()}
        for module in [module for key, module in sys.modules.items() if key.split(".")[0] == "ember"]:
            for attribute, value in list(vars(module).items()):
                if inspect.isfunction(value) and value in wrappers:
                    setattr(module, attribute, wrappers[value])

    def record(self, function, *args):
        self.called = set()
        self.depth = 0
        function(*args)
        return self.called


def _takes_grad(args, kwargs):
    """Whether a tensor that requires grad is among the arguments (or in a list of them): only such
    calls are on the differentiated path (not `ember.tensor([0, 2])` making an index)."""
    for value in list(args) + list(kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        if any(isinstance(item, ember.Tensor) and item.requires_grad for item in items):
            return True
    return False


def public_ops():
    """`ember.ops.__all__` without classes, objects and private helpers (e.g. `normalize_dim`)."""
    return {name for name in ops.__all__
            if inspect.isfunction(getattr(ops, name)) and "._" not in getattr(ops, name).__module__}


def op_table_cases():
    sys.path.insert(0, str(ROOT))
    cases = []
    for path in sorted((ROOT / "tests" / "ops").glob("table_*.py")):
        cases.extend(importlib.import_module(f"tests.ops.{path.stem}").CASES)
    return cases


def case_inputs(case, shapes, seed):
    """The case's inputs as the op-table driver makes them (float inputs require grad)."""
    arrays = case.inputs(shapes, np.random.default_rng(seed))
    tensors = []
    for position, array in enumerate(arrays):
        tensor = ember.tensor(array)
        wanted = case.differentiable_inputs is None or position in case.differentiable_inputs
        tensors.append(tensor.requires_grad_(tensor.is_floating_point() and wanted))
    return tensors


def coverage(names):
    """op name -> (gradcheck verdict, gradgradcheck verdict): True, False, or None (no case)."""
    cases = op_table_cases()
    recorder = CallRecorder(names)
    recorder.install()
    grad, gradgrad = {}, {}
    for case in cases:
        called = set()
        for index, shapes in enumerate(case.shapes):
            called |= recorder.record(case.ember_fn, *case_inputs(case, shapes, 1234 + index))
        for name in called:
            grad[name] = grad.get(name, False) or case.grad
            gradgrad[name] = gradgrad.get(name, False) or (case.grad and case.gradgrad)
    return grad, gradgrad, len(cases)


def verdict(value):
    return {True: "yes", False: "no", None: "—"}[value]


def rows(names):
    """One row per op; in-place `x_` names fold into `x`'s row."""
    operators = operators_by_op()
    grad, gradgrad, case_count = coverage(names)
    bases = sorted(name for name in names if not (name.endswith("_") and name[:-1] in names))
    table = []
    for name in bases:
        function = f"`ember.{name}`" if getattr(ember, name, None) is getattr(ops, name) else ""
        method_forms = [f"`x.{name}()`"] if is_method(name) and not name.endswith("_") else []
        method_forms += [f"`{syntax}`" for syntax in operators.get(name, [])]
        inplace = name if name.endswith("_") else name + "_"
        inplace_forms = [f"`x.{inplace}()`"] if (inplace in names or is_method(inplace)) else []
        inplace_forms += [f"`{syntax}`" for syntax in operators.get(inplace, []) if inplace != name]
        table.append((name, function, ", ".join(method_forms), ", ".join(inplace_forms),
                      verdict(grad.get(name)), verdict(gradgrad.get(name))))
    return table, case_count


def render():
    names = public_ops()
    table, case_count = rows(names)
    tested = sum(1 for row in table if row[4] == "yes")
    twice = sum(1 for row in table if row[5] == "yes")
    lines = [
        "# ember ops",
        "",
        "Generated by `python docs/make_ops_table.py` from `ember.ops.__all__`, `ember.ops.TENSOR_METHODS` and "
        f"the {case_count} op-table cases in `tests/ops/table_*.py`; do not edit by hand.",
        "",
        "- **Function**: `ember.<name>(...)`. **Method**: `x.<name>(...)` and the operators that call the op. "
        "**In-place**: `x.<name>_(...)` (changes `x`, bumps its version) and augmented assignment.",
        "- **Differentiable**: *yes* — an op-table case runs float64 `gradcheck` on it (and compares "
        "gradients with torch); *no* — the cases covering it turn the check off; *—* — no op-table case "
        "covers it (it may still have a gradient: integer and boolean results never do).",
        "- **Double backward**: *yes* — `gradgradcheck` passes in an op-table case; *no* — the case says "
        "the op is not twice differentiable (or too slow to check); *—* — not covered.",
        "",
        f"{len(table)} ops: {tested} checked by gradcheck, {twice} also by gradgradcheck.",
        "",
        "| Op | Function | Method / operator | In-place | Differentiable | Double backward |",
        "|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in table]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/ops.md is out of date")
    arguments = parser.parse_args()
    text = render()
    if arguments.check:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT} is out of date: run python docs/make_ops_table.py")
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
