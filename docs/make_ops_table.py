"""Write docs/ops.md: every public op of `ember.ops` with its forms and what the op table proves.

    python docs/make_ops_table.py            # rewrites docs/ops.md
    python docs/make_ops_table.py --check    # exits 1 if docs/ops.md is out of date
    python docs/make_ops_table.py --untested # differentiable ops (with a primitive) no gradcheck case covers

Everything comes from the ops' declarations, nothing is typed by hand:
- the ops, their method and in-place forms, `out=`, aliases and the primitives they apply (with
  PyTorch's node names and whether each declares a `jvp`) are the rows of
  `ember.ops._declare.DECLARATIONS` (`@op(...)` beside each op);
- the operators are Tensor's `_OPERATORS` table (which dunder is which op);
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
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import ember  # noqa: E402
from ember import ops  # noqa: E402
import ember.fft  # noqa: E402 - a lazy namespace whose transforms are declared ops (rows fft.*)
import ember.sparse  # noqa: E402 - likewise (rows sparse.*)
from ember.autograd.function import Function  # noqa: E402
from ember._torch_function import op_behind  # noqa: E402
from ember.ops._declare import DECLARATIONS  # noqa: E402

OUTPUT = ROOT / "docs" / "ops.md"

# Python's operator syntax for the Tensor dunders (a language fact, not a list of ember's ops).
OPERATOR_SYNTAX = {
    "__add__": "a + b",
    "__sub__": "a - b",
    "__mul__": "a * b",
    "__truediv__": "a / b",
    "__floordiv__": "a // b",
    "__mod__": "a % b",
    "__pow__": "a ** b",
    "__matmul__": "a @ b",
    "__neg__": "-a",
    "__abs__": "abs(a)",
    "__invert__": "~a",
    "__and__": "a & b",
    "__or__": "a | b",
    "__xor__": "a ^ b",
    "__lshift__": "a << b",
    "__rshift__": "a >> b",
    "__eq__": "a == b",
    "__ne__": "a != b",
    "__lt__": "a < b",
    "__le__": "a <= b",
    "__gt__": "a > b",
    "__ge__": "a >= b",
    "__getitem__": "a[i]",
    "__setitem__": "a[i] = v",
    "__iadd__": "a += b",
    "__isub__": "a -= b",
    "__imul__": "a *= b",
    "__itruediv__": "a /= b",
    "__ifloordiv__": "a //= b",
    "__imod__": "a %= b",
    "__ipow__": "a **= b",
    "__iand__": "a &= b",
    "__ior__": "a |= b",
    "__ixor__": "a ^= b",
    "__rand__": "number & a",
    "__ror__": "number | a",
    "__rxor__": "number ^ a",
}


def operators_by_op():
    """op name -> the operator spellings Tensor binds to it."""
    from ember._tensor import _OPERATORS

    found = {}
    for dunder, name in _OPERATORS.items():
        if dunder in OPERATOR_SYNTAX:
            found.setdefault(name, []).append(OPERATOR_SYNTAX[dunder])
    return found


class CallRecorder:
    """Wraps every op function wherever ember binds it and records the outermost ops called."""

    def __init__(self, names):
        self.depth = 0
        self.called = set()
        self.functions = {}  # function -> its names (aliases such as mul/multiply share one function)
        self.originals = {name: names[name].function for name in names}
        for name in sorted(names):
            self.functions.setdefault(names[name].function, []).append(name)

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
                if inspect.isfunction(value) and op_behind(value) in wrappers:  # a published name too
                    setattr(module, attribute, wrappers[op_behind(value)])
        # Methods and operators reach ops through ops.TENSOR_METHODS and Tensor's _OPERATORS (and
        # keep them on the class once used): wrap those too, so `x.exp()` and `a * b` are credited.
        from ember._tensor import _OPERATORS

        for name, function in list(ops.TENSOR_METHODS.items()):
            if function in wrappers:
                ops.TENSOR_METHODS[name] = wrappers[function]
                if vars(ember.Tensor).get(name) is function:
                    setattr(ember.Tensor, name, wrappers[function])
        for dunder, name in _OPERATORS.items():
            function = self.originals.get(name)
            if function in wrappers:
                setattr(ember.Tensor, dunder, wrappers[function])

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
    """The declared ops, without the rows of made in-place variants (they fold into their op's row)."""
    return {name: declaration for name, declaration in DECLARATIONS.items() if declaration.inplace_of is None}


def op_table_cases():
    sys.path.insert(0, str(ROOT))
    cases = []
    for path in sorted((ROOT / "tests" / "ops").glob("table_*.py")):
        cases.extend(importlib.import_module(f"tests.ops.{path.stem}").CASES)
    return cases


def case_inputs(case, shapes, seed):
    """The case's inputs as the op-table driver makes them (float and complex inputs require grad)."""
    arrays = case.inputs(shapes, np.random.default_rng(seed))
    tensors = []
    for position, array in enumerate(arrays):
        tensor = ember.tensor(array)
        wanted = case.differentiable_inputs is None or position in case.differentiable_inputs
        tensors.append(tensor.requires_grad_((tensor.is_floating_point() or tensor.is_complex()) and wanted))
    return tensors


def coverage(names):
    """op name -> (gradcheck verdict, gradgradcheck verdict): True, False, or None (no case)."""
    recorder = CallRecorder(names)
    recorder.install()
    cases = op_table_cases()  # after install: a case that binds `ember.exp` itself gets the recorded one
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


def node_names(declaration):
    return ", ".join(dict.fromkeys(f"`{primitive._backward_cls.__name__}`" for primitive in declaration.primitives))


def forward_ad(declaration):
    """yes: every primitive the op applies declares a jvp; no: one does not; —: no primitive."""
    if not declaration.primitives:
        return "—"
    return "yes" if all(primitive.jvp is not Function.jvp for primitive in declaration.primitives) else "no"


def public_function(name):
    """What `ember.<name>` is, for dotted names too (`fft.rfft` is `ember.fft.rfft`)."""
    value = ember
    for part in name.split("."):
        value = getattr(value, part, None)
    return value


def rows(declarations):
    operators = operators_by_op()
    exported = {
        name for name, declaration in declarations.items() if op_behind(public_function(name)) is declaration.function
    }
    grad, gradgrad, case_count = coverage(declarations)
    table = []
    for name in sorted(declarations):
        declaration = declarations[name]
        function = f"`ember.{name}`" if name in exported else ""
        if declaration.alias_of:
            function += f" (alias of {declaration.alias_of})"
        method_forms = [f"`x.{name}()`"] if declaration.method else []
        method_forms += [f"`{syntax}`" for syntax in operators.get(name, [])]
        inplace_forms = [f"`x.{name}_()`"] if declaration.inplace else []
        inplace_forms += [f"`{syntax}`" for syntax in operators.get(name + "_", [])]
        table.append(
            (
                name,
                function,
                ", ".join(method_forms),
                ", ".join(inplace_forms),
                "yes" if declaration.out else "",
                node_names(declaration),
                forward_ad(declaration),
                verdict(grad.get(name)),
                verdict(gradgrad.get(name)),
            )
        )
    return table, case_count


def render():
    declarations = public_ops()
    table, case_count = rows(declarations)
    tested = sum(1 for row in table if row[7] == "yes")
    twice = sum(1 for row in table if row[8] == "yes")
    tangents = sum(1 for row in table if row[6] == "yes")
    lines = [
        "# ember ops",
        "",
        "Generated by `python docs/make_ops_table.py` from the ops' declarations (`@op` rows of "
        f"`ember.ops._declare`) and the {case_count} op-table cases in `tests/ops/table_*.py`; do not edit by hand.",
        "",
        "- **Function**: `ember.<name>(...)`. **Method**: `x.<name>(...)` and the operators that call the op. "
        "**In-place**: `x.<name>_(...)` (changes `x`, bumps its version) and augmented assignment. "
        "**out=**: the function takes `out=`.",
        "- **Node**: PyTorch's name of the graph node of each primitive the op applies (`grad_fn.name()`); "
        "empty for ops composed of other ops or without a gradient. **Forward AD**: every such primitive "
        "declares a `jvp`.",
        "- **Differentiable**: *yes* — an op-table case runs float64 `gradcheck` on it (and compares "
        "gradients with torch); *no* — the cases covering it turn the check off; *—* — no op-table case "
        "covers it (it may still have a gradient: integer and boolean results never do).",
        "- **Double backward**: *yes* — `gradgradcheck` passes in an op-table case; *no* — the case says "
        "the op is not twice differentiable (or too slow to check); *—* — not covered.",
        "",
        f"{len(table)} ops: {tested} checked by gradcheck, {twice} also by gradgradcheck; "
        f"{tangents} with a jvp for every primitive they apply.",
        "",
        "| Op | Function | Method / operator | In-place | out= | Node | Forward AD | Differentiable | "
        "Double backward |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in table]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if docs/ops.md is out of date")
    parser.add_argument(
        "--untested", action="store_true", help="print the ops that apply a primitive but no op-table case gradchecks"
    )
    arguments = parser.parse_args()
    if arguments.untested:
        declarations = public_ops()
        grad, _, _ = coverage(declarations)
        print(
            "\n".join(
                sorted(
                    name for name, declaration in declarations.items() if declaration.primitives and not grad.get(name)
                )
            )
        )
        return 0
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
