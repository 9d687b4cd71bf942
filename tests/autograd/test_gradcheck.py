"""gradcheck, gradgradcheck and check_function: they pass correct code and explain broken code."""

import numpy as np
import pytest

import ember
from ember.autograd import Function, once_differentiable, gradcheck, gradgradcheck, check_function
from ember.autograd.gradcheck import GradcheckError
from ember._examples import MultiplyAdd


def _double(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return ember.tensor(rng.standard_normal(shape), dtype=ember.float64, requires_grad=True)


class SwappedGradients(MultiplyAdd):
    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_tensors
        return grad_output * w, grad_output * x, grad_output


class ForgotGradOutputElementwise(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x


class ForgotGradOutputScalar(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x * x).sum()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x


class WrongSign(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return -grad_output * x.cos()


class WrongFactor(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x


class NoGradient(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, grad_output):
        return None


def test_gradcheck_passes_correct_functions():
    w, x, b = _double(3, seed=1), _double(3, seed=2), _double(3, seed=3)
    assert gradcheck(MultiplyAdd.apply, (w, x, b))
    assert gradgradcheck(MultiplyAdd.apply, (w, x, b))
    assert gradcheck(lambda a: (a.exp() @ a.t()).sum(1), (_double(2, 3),))


def test_gradcheck_works_on_non_contiguous_inputs():
    base = _double(3, 4).detach()
    x = base.t().requires_grad_()
    assert not x.is_contiguous()
    assert gradcheck(lambda a: a.sin() * 2, (x,))


@pytest.mark.parametrize(
    "function,cause",
    [
        (SwappedGradients, "wrong gradient returned for input 0.*equals the gradient of input 1"),
        (ForgotGradOutputElementwise, "forgot to multiply by grad_output"),
        (ForgotGradOutputScalar, "forgot to multiply by grad_output"),
        (WrongSign, "wrong sign"),
        (WrongFactor, "constant factor.*= 2"),
        (NoGradient, "returned None or zeros for input 0"),
    ],
)
def test_failures_name_the_likely_cause(function, cause):
    inputs = (_double(3, seed=1), _double(3, seed=2), _double(3, seed=3))[
        : 1 if function not in (SwappedGradients,) else 3
    ]
    with pytest.raises(GradcheckError, match=cause):
        gradcheck(function.apply, inputs)
    assert gradcheck(function.apply, inputs, raise_exception=False) is False


def test_failure_message_shows_input_output_and_worst_elements():
    x = _double(2, 2)
    with pytest.raises(GradcheckError) as error:
        gradcheck(ForgotGradOutputElementwise.apply, (x,))
    message = str(error.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0")
    assert "input 0 (shape [2, 2])" in message and "output 0 has shape [2, 2]" in message
    assert "analytical" in message and "numerical" in message
    rows = [line for line in message.splitlines() if line.strip().startswith("(")]
    assert len(rows) == 5 and "(" in rows[0].split()[0]  # element indices in the input's shape


def test_float32_inputs_warn():
    # small fixed values: float32 central differences of larger random ones can miss the 1e-2 tolerance
    x = ember.tensor([0.01, -0.02, 0.03], requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(lambda a: a * 2, (x,), atol=1e-2, rtol=1e-2)


def test_no_input_requires_grad():
    with pytest.raises(ValueError, match="requires_grad=True"):
        gradcheck(lambda a: a * 2, (ember.ones(2, dtype=ember.float64),))


def test_check_forward_ad_uses_jvp():
    class ExpWithJvp(Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            ctx.save_for_forward(result)
            return result

        @staticmethod
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return grad * result

        @staticmethod
        def jvp(ctx, tangent):
            (result,) = ctx.saved_tensors
            return tangent * result * 2  # wrong on purpose

    x = _double(3)
    assert gradcheck(ExpWithJvp.apply, (x,))
    with pytest.raises(GradcheckError, match="forward mode mismatch"):
        gradcheck(ExpWithJvp.apply, (x,), check_forward_ad=True)
    assert gradcheck(lambda a: (a * a).sin().sum(0), (_double(2, 2),), check_forward_ad=True)


def test_gradgradcheck_names_the_grad_output_input():
    class BadSecondDerivative(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            # right value, but computed through detach: the second derivative is lost
            return grad * 3 * x.detach() ** 2

    x = _double(3)
    assert gradcheck(BadSecondDerivative.apply, (x,))
    with pytest.raises(GradcheckError, match="gradgradcheck.*input 0"):
        gradgradcheck(BadSecondDerivative.apply, (x,))


# ---------------------------------------------------------------- check_function
def _statuses(report):
    return {check: status for check, status, _ in report.results}


def test_check_function_passes_the_books_multiply_add():
    report = check_function(MultiplyAdd, _double(3, seed=1), _double(3, seed=2), _double(3, seed=3))
    assert report and report.passed
    statuses = _statuses(report)
    assert statuses["gradcheck"] == "ok" and statuses["gradgradcheck"] == "ok"
    assert statuses["number of gradients"] == "ok" and statuses["backward called twice"] == "ok"
    assert "all checks passed" in str(report)


def test_check_function_reports_wrong_gradient_count():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(GradcheckError, match="backward returned 1 value, but forward took 2 inputs"):
        check_function(TooFew, _double(2), _double(2))


def test_check_function_reports_gradient_for_a_non_tensor_and_a_wrong_shape():
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.factor = factor
            return x * factor

        @staticmethod
        def backward(ctx, grad):
            return (grad * ctx.factor).sum(0), grad

    report = check_function(Scale, _double(2, 3), 2.0, raise_exception=False)
    assert not report
    statuses = _statuses(report)
    assert statuses["gradient 0"] == "FAIL" and statuses["gradient 1"] == "FAIL"
    text = str(report)
    assert "does not match input 0's shape [2, 3]" in text and "must be None" in text


def test_check_function_reports_backward_that_cannot_run_twice_or_modifies_grad_output():
    class Consumes(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.scale = 2.0
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            scale = ctx.scale
            del ctx.scale
            return grad * scale

    class InPlace(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            grad.mul_(2)
            return grad

    report = check_function(Consumes, _double(3), raise_exception=False)
    assert _statuses(report)["backward called twice"] == "FAIL"
    report = check_function(InPlace, _double(3), raise_exception=False)
    assert _statuses(report)["grad_output untouched"] == "FAIL"


def test_check_function_skips_gradgradcheck_for_once_differentiable():
    class NumpyExp(Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return ember.tensor(grad.numpy() * result.detach().numpy())

    report = check_function(NumpyExp, _double(3))
    statuses = _statuses(report)
    assert statuses["gradcheck"] == "ok" and statuses["gradgradcheck"] == "skipped"
    assert "once_differentiable" in str(report)


def test_check_function_notes_gradients_nobody_asked_for():
    x, y = _double(3), _double(3).detach()
    report = check_function(MultiplyAdd, x, y, _double(3))
    assert _statuses(report)["gradient 1"] == "note"
    assert "needs_input_grad[1] is False" in str(report)


def test_check_function_failure_carries_the_report():
    with pytest.raises(GradcheckError) as error:
        check_function(SwappedGradients, _double(3, seed=1), _double(3, seed=2), _double(3, seed=3))
    text = str(error.value)
    assert "check_function(SwappedGradients): FAILED" in text and "wrong gradient returned for input 0" in text


def test_gradcheck_agrees_with_torch_on_pass_and_fail(torch):
    class TorchSwapped(torch.autograd.Function):
        @staticmethod
        def forward(ctx, w, x):
            ctx.save_for_backward(w, x)
            return w * x

        @staticmethod
        def backward(ctx, grad):
            w, x = ctx.saved_tensors
            return grad * w, grad * x

    class EmberSwapped(Function):
        forward = staticmethod(TorchSwapped.forward)
        backward = staticmethod(TorchSwapped.backward)

    arrays = [np.random.default_rng(i).standard_normal(3) for i in range(2)]
    torch_inputs = [torch.tensor(a, requires_grad=True) for a in arrays]
    ember_inputs = [ember.tensor(a, requires_grad=True) for a in arrays]
    assert torch.autograd.gradcheck(TorchSwapped.apply, torch_inputs, raise_exception=False) is False
    assert gradcheck(EmberSwapped.apply, ember_inputs, raise_exception=False) is False
    assert torch.autograd.gradcheck(lambda w, x: w * x, torch_inputs)
    assert gradcheck(lambda w, x: w * x, ember_inputs)


class _DoubledSparseGradient(Function):
    """to_dense whose backward sends back twice the gradient, as a sparse tensor."""

    @staticmethod
    def forward(ctx, x):
        return x.to_dense()

    @staticmethod
    def backward(ctx, grad):
        return (grad * 2).to_sparse()


@pytest.mark.parametrize("masked", [True, False])
def test_gradcheck_checks_sparse_inputs_through_their_stored_values(masked):
    x = ember.tensor([[0.0, 1.5], [-2.0, 0.0]], dtype=ember.float64).to_sparse().requires_grad_()
    assert gradcheck(lambda s: s.to_dense() * 3, (x,), masked=masked)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(_DoubledSparseGradient.apply, (x,), masked=masked)


class _Jittery(Function):
    """A backward that changes between calls (it counts them): not reentrant."""

    calls = 0

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        _Jittery.calls += 1
        return grad * (2 + 1e-7 * _Jittery.calls)


def test_a_backward_that_differs_between_runs_is_named_with_the_difference():
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    with pytest.raises(
        GradcheckError, match=r"(?s)not reentrant.*gradient of input 0 \(shape \[3\]\) differs by up to"
    ):
        gradcheck(_Jittery.apply, (x,))
    assert gradcheck(_Jittery.apply, (x,), nondet_tol=1e-3, atol=1e-3)


def test_zero_grad_outputs_must_give_zero_gradients():
    def offset(x):
        y = x.clone()
        y.register_hook(lambda grad: grad + 1e-2)
        return y

    x = ember.ones(1, dtype=ember.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output: with zero grad_outputs"):
        gradcheck(offset, (x,), atol=1e-1)


def test_undefined_output_gradients_must_be_handled():
    class NeedsGrad(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            if grad is None:
                raise RuntimeError("no gradient")
            return grad * 2

    x = ember.ones(2, dtype=ember.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="check_undefined_grad=False"):
        with pytest.raises(GradcheckError, match="(?s)handle undefined output grads.*RuntimeError: no gradient"):
            gradcheck(NeedsGrad.apply, (x,))
    assert gradcheck(NeedsGrad.apply, (x,), check_undefined_grad=False)


def test_inputs_and_outputs_are_validated_as_pytorch_does():
    expanded = ember.ones(1, dtype=ember.float64, requires_grad=True).expand(2, 2)
    with pytest.raises(RuntimeError, match="stride 0.*strides \\[0, 0\\]"):
        gradcheck(lambda x: x * 1, (expanded,), raise_exception=False)
    x = ember.ones(1, dtype=ember.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="(?s)expected to be zero: .*output 0 changes"):
        gradcheck(lambda x: ember.tensor([x.item()]), (x,))
    with pytest.raises(AssertionError, match="same shape when inputs are perturbed on index 0"):
        gradcheck(lambda x: ember.cat([x, x]) if bool((x >= 1).all()) else x, (x,))
    with pytest.raises(AssertionError, match="at least one of check_forward_ad or check_backward_ad"):
        gradcheck(lambda x: x, (x,), check_backward_ad=False)
