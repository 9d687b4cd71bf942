"""The `__torch_function__` protocol (ember/_torch_function.py, ember.overrides): Tensor subclasses
keep their class through ops, a subclass's own `__torch_function__` takes calls over, tensor-like
objects that are not tensors take part, and plain tensors are left as they were. Differential tests
run the same code under ember and torch."""

import copy
import pickle

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember import nn
from ember.overrides import handle_torch_function, has_torch_function


class Tagged(ember.Tensor):
    """A subclass that only carries its class (module level, so that it pickles)."""


def subclasses(lib):
    """A plain subclass and a logging one (it records the name of every call offered to it)."""

    class Plain(lib.Tensor):
        pass

    class Logging(lib.Tensor):
        log = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.log.append(getattr(func, "__name__", repr(func)))
            return super().__torch_function__(func, types, args, kwargs or {})

    return Plain, Logging


# Each scenario: lib, a subclass instance `s` (ones(2, 3)), a plain tensor `t` -> a result.
SCENARIOS = {
    "operator": lambda lib, s, t: s * 2 + 1,
    "reflected operator": lambda lib, s, t: 2 - s,
    "plain tensor on the left": lambda lib, s, t: t * s,
    "method": lambda lib, s, t: s.exp(),
    "reduction": lambda lib, s, t: s.sum(),
    "function": lambda lib, s, t: lib.add(t, s),
    "list argument": lambda lib, s, t: lib.cat([t, s]),
    "nn.functional": lambda lib, s, t: lib.nn.functional.relu(s),
    "module": lambda lib, s, t: lib.nn.Linear(3, 4)(s),
    "getitem": lambda lib, s, t: s[0],
    "tuple of tensors": lambda lib, s, t: s.chunk(2, dim=1)[1],
    "named tuple": lambda lib, s, t: lib.max(s, 0).values,
    "iteration": lambda lib, s, t: list(s)[1],
    "data property": lambda lib, s, t: s.data,
    "transpose property": lambda lib, s, t: s.T,
    "in-place": lambda lib, s, t: s.mul_(2),
    "detach": lambda lib, s, t: s.detach(),
    "like function": lambda lib, s, t: lib.zeros_like(s),
    "creation from data": lambda lib, s, t: lib.tensor([1.0, 2.0]),
    "item": lambda lib, s, t: s.sum().item(),
    "shape": lambda lib, s, t: s.shape,
}


def _run(lib, scenario):
    plain, logging = subclasses(lib)
    lib.manual_seed(0)
    results = {}
    for kind in (plain, logging):
        s = lib.ones(2, 3).as_subclass(kind)
        results[kind.__name__] = type(SCENARIOS[scenario](lib, s, lib.ones(2, 3))).__name__
    return results, logging.log


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_result_classes_match_torch(torch, scenario):
    assert _run(ember, scenario)[0] == _run(torch, scenario)[0]


# Where the `func` a call offers differs by name only (ember passes its own function objects).
_SAME_CALL = {"getitem": "__getitem__"}


@pytest.mark.parametrize(
    "scenario",
    [
        "operator",
        "method",
        "reduction",
        "function",
        "list argument",
        "nn.functional",
        "module",
        "data property",
        "detach",
        "like function",
        "creation from data",
        "item",
        "in-place",
    ],
)
def test_calls_offered_match_torch(torch, scenario):
    ours = [_SAME_CALL.get(name, name) for name in _run(ember, scenario)[1]]
    assert ours == _run(torch, scenario)[1]


def test_as_subclass_is_an_alias_in_the_graph(torch):
    for lib in (ember, torch):
        plain, _ = subclasses(lib)
        x = lib.ones(2, requires_grad=True)
        s = x.as_subclass(plain)
        assert type(s) is plain and s._base is x and not s.is_leaf
        assert type(s.grad_fn).__name__ == "AliasBackward0"
        (s * s * 3).sum().backward()
        assert x.grad.tolist() == [6.0, 6.0] and type(x.grad) is lib.Tensor
        y = lib.zeros(2)
        view = y.as_subclass(plain)
        view.add_(1)  # same memory and version counter
        assert y.tolist() == [1.0, 1.0] and y._version == view._version == 1
        with lib.no_grad():
            assert x.as_subclass(plain).grad_fn is None
        assert x.detach().as_subclass(plain).is_leaf
    with pytest.raises(TypeError, match="subclass of Tensor"):
        ember.ones(1).as_subclass(int)


def test_gradients_through_a_subclass_equal_plain_ones():
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    s = x.as_subclass(Tagged)
    loss = (F.softmax(s @ s.T, dim=1) * s.sum(1)).sum()
    assert type(loss) is Tagged
    (grad,) = ember.autograd.grad(loss, x)
    plain = x.detach().requires_grad_()
    (expected,) = ember.autograd.grad((F.softmax(plain @ plain.T, dim=1) * plain.sum(1)).sum(), plain)
    np.testing.assert_allclose(grad.numpy(), expected.numpy(), rtol=1e-12)
    assert ember.autograd.gradcheck(lambda a: (a.as_subclass(Tagged).tanh() * 2).sum(), (x,))


def test_an_override_takes_calls_over_and_not_implemented_passes_on():
    class Doubling(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is ember.add:
                return "add taken over"
            return super().__torch_function__(func, types, args, kwargs)

    class Refusing(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    d = ember.ones(2).as_subclass(Doubling)
    assert ember.add(d, 1) == "add taken over"
    assert type(ember.sub(d, 1)) is Doubling
    r = ember.ones(2).as_subclass(Refusing)
    assert ember.add(d, r) == "add taken over"  # Refusing declined; Doubling answered
    with pytest.raises(TypeError, match=r"no implementation found for 'ember.mul'.*Refusing"):
        ember.mul(r, 2)
    with pytest.raises(TypeError, match=r"ember.Tensor.exp.*Refusing"):
        r.exp()


def test_a_subclass_is_consulted_before_its_superclass():
    order = []

    class Base(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append(cls.__name__)
            return (
                NotImplemented
                if cls is Base and len(order) == 1
                else super().__torch_function__(func, types, args, kwargs)
            )

    class Derived(Base):
        pass

    base, derived = ember.ones(1).as_subclass(Base), ember.ones(1).as_subclass(Derived)
    ember.add(base, derived)
    assert order == ["Derived"]
    assert ember.overrides.has_torch_function((base,)) and not has_torch_function((ember.ones(1), 1.0))


def test_a_tensor_like_object_takes_part(torch):
    """The docs' pattern: an object that is not a tensor answers the functions it implements."""
    for lib in (ember, torch):

        class Scalar:
            def __init__(self, value):
                self.value = value

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if func is lib.mean:
                    return float(args[0].value)
                return NotImplemented

        assert lib.mean(Scalar(3)) == 3.0
        with pytest.raises(TypeError, match="add"):
            lib.add(Scalar(1), lib.ones(1))
        assert lib.overrides.is_tensor_like(Scalar(1)) and not lib.overrides.is_tensor_like([1])


def test_a_function_of_ones_own_takes_part():
    def shifted(a):
        if has_torch_function((a,)):
            return handle_torch_function(shifted, (a,), a)
        return a + 1

    seen = []

    class Watching(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    result = shifted(ember.zeros(2).as_subclass(Watching))
    assert type(result) is Watching and result.tolist() == [1.0, 1.0] and seen[0] is shifted
    assert type(shifted(ember.zeros(2))) is ember.Tensor


def test_parameter_and_switching_dispatch_off(torch):
    for lib in (ember, torch):
        parameter = lib.nn.Parameter(lib.ones(2))
        assert type(parameter * 2) is lib.Tensor and type(parameter.data) is lib.Tensor
        assert lib.nn.Parameter.__torch_function__ is lib._C._disabled_torch_function_impl
        plain, _ = subclasses(lib)
        s = lib.ones(2).as_subclass(plain)
        with lib._C.DisableTorchFunctionSubclass():
            assert type(s + 1) is lib.Tensor and type(lib.exp(s)) is lib.Tensor
        assert type(s + 1) is plain


def test_methods_a_subclass_defines_are_kept_and_plain_tensors_are_untouched():
    class Named(ember.Tensor):
        def __repr__(self):
            return "Named!"

        def exp(self):
            return "own exp"

    n = ember.ones(1).as_subclass(Named)
    assert repr(n) == "Named!" and n.exp() == "own exp" and type(n.log()) is Named
    assert "exp" not in vars(Tagged) or vars(Tagged)["exp"] is not ember.Tensor.exp
    assert type(ember.ones(1) + 1) is ember.Tensor and ember.Tensor.exp is vars(ember.Tensor)["exp"]


def test_subclass_repr_copy_pickle_and_legacy_constructor(torch):
    s = ember.tensor([1.0, 2.0]).as_subclass(Tagged)
    s.note = "kept"
    assert repr(s) == "Tagged([1., 2.])"
    for clone in (copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert type(clone) is Tagged and clone.note == "kept" and clone.tolist() == [1.0, 2.0]
    x = ember.ones(2, requires_grad=True)
    assert type(Tagged(x).grad_fn).__name__ == type(torch.Tensor(torch.ones(2, requires_grad=True)).grad_fn).__name__


def test_nn_module_runs_on_a_subclass_and_trains():
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
    optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    inputs = ember.randn(8, 3).as_subclass(Tagged)
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        loss = F.mse_loss(model(inputs), ember.ones(8, 1))
        assert type(loss) is Tagged
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(type(p) is nn.Parameter and type(p.grad) is ember.Tensor for p in model.parameters())


def test_a_subclass_new_can_call_the_legacy_constructor(torch):
    """The pattern of PyTorch's docs for subclasses that carry data: `__new__` returns
    `super().__new__(cls, x)` and `__init__` keeps the extra argument."""
    for lib in (ember, torch):

        class WithMeta(lib.Tensor):
            @staticmethod
            def __new__(cls, x, meta, *args, **kwargs):
                return super().__new__(cls, x, *args, **kwargs)

            def __init__(self, x, meta):
                self.meta = meta

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = WithMeta(x, "calibrated")
        assert type(w) is WithMeta and w.meta == "calibrated" and type(w * 2) is WithMeta
        assert type(w.grad_fn).__name__ == "AliasBackward0" and w._base is x
        (w * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
        made = lib.Tensor._make_subclass(WithMeta, lib.ones(2), True)
        assert type(made) is WithMeta and made.is_leaf and made.requires_grad


def test_overridable_and_ignored_functions():
    overridable = ember.overrides.get_overridable_functions()
    assert ember.add in overridable[ember] and F.relu in overridable[F] and ember.fft.fft in overridable[ember.fft]
    assert ember.Tensor.add in overridable[ember.Tensor] and ember.Tensor.data.__get__ in overridable[ember.Tensor]
    ignored = ember.overrides.get_ignored_functions()
    assert ember.zeros in ignored and ember.tensor in ignored and ember.add not in ignored
    assert ember.zeros not in overridable[ember]
