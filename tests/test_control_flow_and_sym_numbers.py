"""torch.cond / torch.while_loop (run eagerly) and the torch.sym_* number helpers, against PyTorch."""

import numpy as np
import pytest

import ember

from .ops.differential import outcome

torch = pytest.importorskip("torch")


def _same(snippet):
    ours, theirs = outcome(snippet, ember), outcome(snippet, torch)
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        assert type(ours).__name__ == type(theirs).__name__ or (
            isinstance(ours, RuntimeError) and isinstance(theirs, RuntimeError)  # torch's is a RuntimeError subclass
        ), f"ember gave {ours!r}, torch gave {theirs!r}"
        return
    ours, theirs = (result if isinstance(result, tuple) else (result,) for result in (ours, theirs))
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs):
        if hasattr(reference, "numpy"):
            assert str(mine.dtype).replace("ember", "torch") == str(reference.dtype)
            np.testing.assert_allclose(mine.detach().numpy(), reference.detach().numpy())
        else:
            assert type(mine) is type(reference) and mine == reference


COND_CASES = {
    "python_bool": lambda t: t.cond(True, lambda a: a + 1, lambda a: a - 1, (t.ones(3),)),
    "zero_tensor_takes_false": lambda t: t.cond(t.tensor(0), lambda a: a + 1, lambda a: a - 1, [t.ones(3)]),
    "computed_predicate": lambda t: t.cond(
        t.arange(3.0).sum() > 2, lambda a, b: a * b, lambda a, b: a - b, (t.ones(2), t.full((2,), 3.0))
    ),
    "no_operands": lambda t: t.cond(False, lambda: t.ones(2), lambda: t.zeros(2)),
    "tuple_result": lambda t: t.cond(True, lambda a: (a, a * 2), lambda a: (a, a), (t.ones(2),)),
    "two_element_predicate": lambda t: t.cond(t.tensor([True, False]), lambda a: a, lambda a: a, (t.ones(1),)),
}


@pytest.mark.parametrize("name", COND_CASES)
def test_cond_matches_torch(name):
    _same(COND_CASES[name])


def test_gradients_flow_through_the_branch_cond_took():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        lib.cond(x.sum() > 0, lambda v: (v * v).sum(), lambda v: v.sum(), (x,)).backward()
        return x.grad

    _same(run)


LOOP_CASES = {
    "tensors": lambda t: t.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), (t.tensor(0), t.tensor(1.0))),
    "list_input_gives_tuple": lambda t: t.while_loop(lambda i: i < 3, lambda i: (i + 1,), [t.tensor(0)]),
    "single_output_not_in_a_tuple": lambda t: t.while_loop(lambda i: i < 3, lambda i: i + 1, (t.tensor(0),)),
    "never_runs": lambda t: t.while_loop(lambda i: i > 3, lambda i: (i + 1,), (t.tensor(0),)),
    "shape_changes": lambda t: t.while_loop(
        lambda i, s: i < 3, lambda i, s: (i + 1, s.sum()), (t.tensor(0), t.ones(2))
    ),
    "dtype_changes": lambda t: t.while_loop(
        lambda i, s: i < 3, lambda i, s: (i + 1, s.double()), (t.tensor(0), t.ones(2))
    ),
    "output_count_changes": lambda t: t.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1,), (t.tensor(0), t.ones(2))),
}


@pytest.mark.parametrize("name", LOOP_CASES)
def test_while_loop_matches_torch(name):
    _same(LOOP_CASES[name])


def test_operands_and_carried_inputs_must_be_sequences_with_a_clear_error():
    with pytest.raises(TypeError, match="operands must be a tuple or list"):
        ember.cond(True, lambda a: a, lambda a: a, ember.ones(2))
    with pytest.raises(TypeError, match=r"carried_inputs must be a tuple or list.*\(x,\)"):
        ember.while_loop(lambda i: i < 3, lambda i: i + 1, ember.tensor(0))


SYM_CASES = {
    "int_truncates": lambda t: (t.sym_int(3.7), t.sym_int(-3.7), t.sym_int(True)),
    "float": lambda t: (t.sym_float(2), t.sym_float(True)),
    "max_promotes_to_float": lambda t: (t.sym_max(1, 2.5), t.sym_max(3, 2.5), t.sym_max(2, 7)),
    "min_promotes_to_float": lambda t: (t.sym_min(1, 2.5), t.sym_min(True, 2), t.sym_min(np.int64(4), 9)),
    "max_of_a_string": lambda t: t.sym_max("a", 1),
    "max_of_a_tensor": lambda t: t.sym_max(t.tensor(1), 2),
    "not": lambda t: (t.sym_not(True), t.sym_not(0)),
    "ite": lambda t: (t.sym_ite(True, 1, 2), t.sym_ite(False, 1.0, 2.0)),
    "ite_needs_a_bool": lambda t: t.sym_ite(1, 2, 3),
    "ite_needs_one_type": lambda t: t.sym_ite(True, 2, 3.0),
    "sum": lambda t: (t.sym_sum([1, 2, 3]), t.sym_sum(1, 2.5), t.sym_sum([])),
    "sqrt": lambda t: t.sym_sqrt(4),
    "constrain_range_inside": lambda t: t.sym_constrain_range(3, min=0, max=5),
    "constrain_range_outside": lambda t: t.sym_constrain_range(7, min=0, max=5),
    "constrain_range_for_size_negative": lambda t: t.sym_constrain_range_for_size(-1),
}


@pytest.mark.parametrize("name", SYM_CASES)
def test_sym_number_helpers_match_torch(name):
    _same(SYM_CASES[name])
