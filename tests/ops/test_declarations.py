"""An op is declared once (its Primitive class and its @op row); Tensor methods, in-place variants,
docs/ops.md and the op-table coverage are derived from that declaration. These tests keep the
derived parts honest."""

import pathlib
import subprocess
import sys

import pytest

import ember
from ember.autograd.function import Function, Primitive
from ember.ops._declare import DECLARATIONS
from ember._torch_function import op_behind

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Public ops that apply a primitive but that no op-table case gradchecks, each with its reason. An op
# that gains a case must leave this list (the test below fails until it does).
UNTESTED = {
    "poisson": "a random draw: gradcheck's repeated forward calls would draw anew; its zero gradient is "
    "checked in tests/test_api_coverage_a.py",
    "_standard_gamma": "a random draw (see poisson); its gradient is PyTorch's approximation, compared with "
    "torch's and with finite differences of the CDF in tests/distributions/test_sampling.py",
    "_sample_dirichlet": "a random draw with no derivative of its own, as in PyTorch",
    "_standard_gamma_grad": "PyTorch's fitted approximation, without a derivative (as in PyTorch); its values "
    "are compared with torch's in tests/ops/test_random_draws.py",
    "_dirichlet_grad": "likewise (tests/ops/test_random_draws.py)",
    "geqrf": "PyTorch defines no derivative for it (backward raises, checked in tests/ops/test_householder.py); "
    "its values are compared with torch's in the op table",
    "unique": "PyTorch defines no derivative for it (backward raises, checked against torch in "
    "tests/ops/test_counting_and_scans.py, as are its values)",
    "unique_consecutive": "likewise (tests/ops/test_counting_and_scans.py)",
}


def _run_tool(*arguments):
    return subprocess.run(
        [sys.executable, str(ROOT / "docs" / "make_ops_table.py"), *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )


def test_docs_ops_md_is_generated_from_the_current_declarations():
    result = _run_tool("--check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_differentiable_op_has_an_op_table_case_or_a_stated_reason():
    result = _run_tool("--untested")
    assert result.returncode == 0, result.stderr
    untested = set(result.stdout.split())
    assert sorted(untested - set(UNTESTED)) == [], "add an OpCase in tests/ops/table_*.py (or a reason to UNTESTED)"
    assert sorted(set(UNTESTED) - untested) == [], "these ops have cases now: remove them from UNTESTED"


def test_every_declared_primitive_is_a_primitive_with_a_pytorch_node_name():
    for name, declaration in DECLARATIONS.items():
        for primitive in declaration.primitives:
            assert issubclass(primitive, Primitive), (name, primitive)
            node = primitive._backward_cls.__name__
            assert node[0].isupper() and not node.startswith("_"), (name, node)


def test_declared_methods_and_inplace_variants_are_tensor_methods():
    x = ember.ones(2)
    for name, declaration in DECLARATIONS.items():
        if declaration.method:
            assert callable(getattr(x, name)), name
        if declaration.inplace:
            assert DECLARATIONS[name + "_"].inplace_of == name
            assert callable(getattr(x, name + "_")), name


def test_out_is_read_from_the_signature():
    assert DECLARATIONS["add"].out and DECLARATIONS["matmul"].out
    assert not DECLARATIONS["relu"].out  # torch.relu has no out= either


def test_aliases_share_their_ops_function_and_primitives():
    multiply = DECLARATIONS["multiply"]
    assert multiply.alias_of == "mul" and multiply.function is op_behind(ember.mul)
    assert multiply.primitives == DECLARATIONS["mul"].primitives


def test_tensor_methods_resolve_on_the_class_before_any_use():
    code = (
        "import ember; assert 'log1p' not in vars(ember.Tensor); "
        "from ember._torch_function import op_behind; "
        "assert ember.Tensor.log1p is op_behind(ember.log1p); assert 'log1p' in dir(ember.Tensor)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert result.returncode == 0, result.stderr


def test_an_operator_is_the_op_itself_after_its_first_use():
    """Operators bind on first use, so afterwards `a | b` costs a call of the op, no extra frame (not
    even the published `ember.bitwise_or`'s, which first offers the call to __torch_function__)."""
    a = ember.tensor([1, 2])
    assert (a | a).tolist() == [1, 2]
    assert vars(ember.Tensor)["__or__"] is op_behind(ember.bitwise_or)
    a.exp()
    assert vars(ember.Tensor)["exp"] is op_behind(ember.exp)


def test_unknown_attributes_still_raise_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'no_such_op'"):
        ember.ones(1).no_such_op
    with pytest.raises(AttributeError):
        ember.Tensor.no_such_op


def test_declaration_keywords_are_checked():
    with pytest.raises(TypeError, match="can only be declared by a Primitive"):

        class UserFunction(Function, wraps_numbers=True):
            pass

    with pytest.raises(TypeError, match="unknown declaration keywords"):

        class Misspelt(Primitive, node="MisspeltBackward0", backwards_on_arrays=True):
            pass


def test_a_primitive_without_jvp_says_where_to_add_it():
    class Halve(Primitive, node="HalveBackward0"):
        @staticmethod
        def forward(ctx, a):
            return a * 0.5

        @staticmethod
        def backward(ctx, grad):
            return grad * 0.5

    import ember.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        dual = fwAD.make_dual(ember.ones(2), ember.ones(2))
        with pytest.raises(NotImplementedError, match="Halve.*HalveBackward0.*add a jvp to its declaration"):
            Halve.apply(dual)
