"""Forward values against NumPy, float64 gradcheck and gradgradcheck, and torch differential tests,
for every case of every `table_*.py` in this folder."""

import importlib
import pathlib

import numpy as np
import pytest

import ember
from ember.autograd import Function, gradcheck, gradgradcheck

from ..conftest import assert_close


def _all_cases():
    cases = []
    for path in sorted(pathlib.Path(__file__).parent.glob("table_*.py")):
        module = importlib.import_module(f"tests.ops.{path.stem}")
        cases.extend(module.CASES)
    return cases


CASES = _all_cases()
VARIANTS = [pytest.param(case, index, id=f"{case.name}-{index}") for case in CASES for index in range(len(case.shapes))]


def _ember_inputs(case, arrays):
    wanted = case.differentiable_inputs
    tensors = []
    for position, array in enumerate(arrays):
        tensor = ember.tensor(array)
        floating = tensor.is_floating_point() or tensor.is_complex()
        requires = floating and (wanted is None or position in wanted)
        tensors.append(tensor.requires_grad_(requires))
    return tensors


def _random_like(rng, tensor):
    """Standard normal values of the tensor's shape (both parts random for a complex tensor)."""
    values = rng.standard_normal(tuple(tensor.shape))
    return values + 1j * rng.standard_normal(tuple(tensor.shape)) if tensor.is_complex() else values


def _as_tuple(result):
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def _arrays(case, index):
    rng = np.random.default_rng(1234 + index)
    return case.inputs(case.shapes[index], rng)


def test_every_case_has_a_reference_for_its_values():
    """Cases without a NumPy reference are checked against torch instead; one of the two must exist."""
    assert [case.name for case in CASES if case.numpy_fn is None and case.torch_fn is None] == []


@pytest.mark.parametrize("case,index", [v for v in VARIANTS if v.values[0].numpy_fn is not None])
def test_forward_matches_numpy(case, index):
    arrays = _arrays(case, index)
    result = case.ember_fn(*_ember_inputs(case, arrays))
    expected = case.numpy_fn(*[np.array(a) for a in arrays])
    results, expecteds = _as_tuple(result), _as_tuple(expected)
    for got, want in zip(results, expecteds):
        assert_close(got, want, rtol=1e-6, atol=1e-8, what=f"{case.name} forward")


@pytest.mark.parametrize("case,index", [v for v in VARIANTS if v.values[0].grad])
def test_gradcheck(case, index):
    tensors = _ember_inputs(case, _arrays(case, index))
    assert gradcheck(case.ember_fn, tensors, eps=1e-6, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("case,index", [v for v in VARIANTS if v.values[0].gradgrad])
def test_gradgradcheck(case, index):
    tensors = _ember_inputs(case, _arrays(case, index))
    assert gradgradcheck(case.ember_fn, tensors, eps=1e-6, atol=1e-5, rtol=1e-4)


# Nodes whose tangent is known to be wrong, with why (remove an entry when it is fixed).
KNOWN_WRONG_TANGENTS = {
    "CopySlices": "forward AD does not carry a tangent through an in-place write into a tensor (setitem): "
    "the written tensor keeps its old tangent",
    "IndexPutBackward0": "as CopySlices, for a write with an index tensor: the overwritten elements keep "
    "their old tangent in some layouts",
}


def _graph_nodes(outputs):
    """(names of primitives that declare no jvp, names of all nodes) in the outputs' graph."""
    missing, names, seen = set(), set(), set()
    stack = [output.grad_fn for output in outputs if isinstance(output, ember.Tensor) and output.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(node.name())
        cls = getattr(node, "_forward_cls", None)
        if cls is not None and cls.jvp is Function.jvp:
            missing.add(node.name())
        stack.extend(next_node for next_node, _ in node.next_functions)
    return missing, names


@pytest.mark.parametrize("case,index", [v for v in VARIANTS if v.values[0].grad])
def test_forward_ad_matches_finite_differences(case, index):
    """Each primitive's declared jvp, through gradcheck's forward mode; a case whose graph has a
    primitive that declares no jvp yet is skipped, naming it."""
    tensors = _ember_inputs(case, _arrays(case, index))
    missing, names = _graph_nodes(_as_tuple(case.ember_fn(*tensors)))
    if missing:
        pytest.skip(f"no jvp declared for {sorted(missing)}")
    for name in names & set(KNOWN_WRONG_TANGENTS):
        pytest.xfail(KNOWN_WRONG_TANGENTS[name])
    assert gradcheck(
        case.ember_fn, tensors, eps=1e-6, atol=1e-5, rtol=1e-4, check_forward_ad=True, check_backward_ad=False
    )


@pytest.mark.parametrize("case,index", [v for v in VARIANTS if v.values[0].grad])
def test_recorded_and_unrecorded_backward_agree(case, index):
    """A first-order backward may run its formula on arrays (nothing to record); with create_graph the
    tensor formula runs instead. Both must give the same gradients."""
    tensors = _ember_inputs(case, _arrays(case, index))
    outputs = [r for r in _as_tuple(case.ember_fn(*tensors)) if isinstance(r, ember.Tensor) and r.requires_grad]
    wanted = [t for t in tensors if t.requires_grad]
    if not outputs or not wanted:
        return
    rng = np.random.default_rng(7)
    seeds = [ember.tensor(_random_like(rng, r)) for r in outputs]
    unrecorded = ember.autograd.grad(outputs, wanted, seeds, retain_graph=True, allow_unused=True)
    recorded = ember.autograd.grad(outputs, wanted, seeds, create_graph=True, allow_unused=True)
    for position, (plain, graphed) in enumerate(zip(unrecorded, recorded)):
        assert (plain is None) == (graphed is None), f"{case.name}: input {position}"
        if plain is not None:
            assert_close(
                plain,
                graphed.detach().numpy(),
                rtol=1e-12,
                atol=1e-12,
                what=f"{case.name} gradient of input {position}",
            )


@pytest.mark.parametrize("case,index", [v for v in VARIANTS if v.values[0].torch_fn is not None])
def test_matches_torch(case, index, torch):
    arrays = _arrays(case, index)
    ours = _ember_inputs(case, arrays)
    theirs = [torch.tensor(a).requires_grad_(t.requires_grad) for a, t in zip(arrays, ours)]
    result = case.ember_fn(*ours)
    expected = case.torch_fn(torch, *theirs)
    results, expecteds = _as_tuple(result), _as_tuple(expected)
    for got, want in zip(results, expecteds):
        assert got.dtype.name == str(want.dtype).replace("torch.", ""), (
            f"{case.name}: dtype {got.dtype} vs {want.dtype}"
        )
        assert_close(
            got, want.detach().resolve_conj().numpy(), rtol=1e-6, atol=1e-8, what=f"{case.name} value vs torch"
        )
    differentiable = [r for r in results if r.requires_grad]
    if not differentiable:
        return
    rng = np.random.default_rng(99)
    # A real loss reading every part: for complex outputs, Re(sum(w * r)) with complex weights.
    weights = [_random_like(rng, r) for r in differentiable]
    sum(
        ((r * ember.tensor(w)).sum().real for r, w in zip(differentiable, weights)),
        ember.tensor(0.0, dtype=ember.float64),
    ).backward()
    torch_results = [w for w in expecteds if w.requires_grad]
    sum(((r * torch.tensor(w)).sum().real for r, w in zip(torch_results, weights))).backward()
    for position, (mine, reference) in enumerate(zip(ours, theirs)):
        if mine.requires_grad:
            assert_close(
                mine.grad,
                reference.grad.resolve_conj().numpy(),
                rtol=1e-6,
                atol=1e-8,
                what=f"{case.name} gradient of input {position} vs torch",
            )
