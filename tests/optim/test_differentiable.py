"""`differentiable=True`: the optimizer step is recorded in the graph, so gradients flow through it
to the initial parameters, the gradients, the state and tensor hyper-parameters (meta-learning),
compared with PyTorch's."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.2, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 0.05}),
    ("RMSprop", {"lr": 0.05, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.3}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.1}),
    ("Adadelta", {"rho": 0.5, "maximize": True}),
    ("Adamax", {"lr": 0.1}),
    ("Adamax", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("RAdam", {"lr": 0.1}),
    ("RAdam", {"lr": 0.1, "betas": (0.9, 0.9), "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.1}),
    ("ASGD", {"lr": 0.1, "t0": 0, "lambd": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {"lr": 0.1}),
    ("Rprop", {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (0.01, 0.2), "maximize": True}),
]


def _inner_loop(lib, name, options, steps, tensor_options=()):
    """A MAML-style inner loop: `steps` differentiable updates of a clone of `w`, then a meta loss."""
    rng = np.random.default_rng(0)
    w = lib.tensor(rng.standard_normal(4), requires_grad=True)
    data = lib.tensor(rng.standard_normal((3, 4)))
    hyper = {key: lib.tensor(value, dtype=lib.float64, requires_grad=True) for key, value in tensor_options}
    param = w.clone()
    optimizer = getattr(lib.optim, name)([param], differentiable=True, **options, **hyper)
    for _ in range(steps):
        loss = ((data @ param).tanh() ** 2).sum()
        (param.grad,) = lib.autograd.grad(loss, param, create_graph=True)
        optimizer.step()
    (data @ param).sin().sum().backward()
    return [param.detach().numpy(), w.grad.numpy()] + [hyper[key].grad.numpy() for key, _ in tensor_options]


def _assert_all_close(ours, theirs):
    for got, want in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name, options", CASES)
def test_gradients_flow_through_one_step_as_in_torch(name, options):
    _assert_all_close(_inner_loop(ember, name, options, 1), _inner_loop(torch, name, options, 1))


@pytest.mark.parametrize(
    "name, options",
    # (torch itself cannot backward through two steps of these: it saves state it then changes in place)
    [
        case
        for case in CASES
        if "amsgrad" not in case[1] and "centered" not in case[1] and case[0] not in ("Adamax", "Rprop")
    ],
)
def test_gradients_flow_through_two_steps_as_in_torch(name, options):
    _assert_all_close(_inner_loop(ember, name, options, 2), _inner_loop(torch, name, options, 2))


@pytest.mark.parametrize("name, options", [case for case in CASES if case[0] in ("NAdam", "RAdam", "ASGD")])
def test_gradients_flow_through_six_steps_as_in_torch(name, options):
    """Long enough for RAdam with beta2=0.9 to switch on its rectified step, and ASGD with t0=0 to
    average; NAdam's float32 momentum product rounds its step sizes as in PyTorch."""
    _assert_all_close(_inner_loop(ember, name, options, 6), _inner_loop(torch, name, options, 6))


def test_rprop_refuses_a_second_backward_through_its_steps_as_torch_does():
    """PyTorch's differentiable Rprop saves its step sizes and then changes them in place."""
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _inner_loop(lib, "Rprop", {"lr": 0.1}, 2)


@pytest.mark.parametrize("name, steps", [("SGD", 1), ("Adam", 2), ("AdamW", 2), ("NAdam", 1), ("RAdam", 2)])
def test_a_tensor_learning_rate_gets_a_gradient(name, steps):
    options = {"momentum": 0.5} if name == "SGD" else {"betas": (0.9, 0.9)} if name == "RAdam" else {}
    ours = _inner_loop(ember, name, options, steps, [("lr", 0.05)])
    _assert_all_close(ours, _inner_loop(torch, name, options, steps, [("lr", 0.05)]))
    assert ours[-1] != 0


STATE = {
    "SGD": ({"lr": 0.9, "momentum": 0.5}, {"momentum_buffer": None}),
    "Adam": ({"lr": 0.9, "amsgrad": True}, {"step": 10.0, "exp_avg": None, "exp_avg_sq": None, "max_exp_avg_sq": None}),
    "RMSprop": (
        {"lr": 0.3, "momentum": 0.4, "centered": True},
        {"step": 3.0, "square_avg": None, "momentum_buffer": None, "grad_avg": None},
    ),
    "Adagrad": ({"lr": 0.4, "lr_decay": 0.2}, {"step": 2.0, "sum": None}),
    "NAdam": ({"lr": 0.3}, {"step": 2.0, "mu_product": 0.7, "exp_avg": None, "exp_avg_sq": None}),
    "RAdam": ({"lr": 0.3, "betas": (0.9, 0.9)}, {"step": 6.0, "exp_avg": None, "exp_avg_sq": None}),
    "Rprop": ({"lr": 0.3}, {"step": 2.0, "prev": None, "step_size": None}),
}


@pytest.mark.parametrize("name", sorted(STATE))
def test_gradients_reach_the_gradient_and_the_state(name):
    """As PyTorch's own test: p, its grad and each state tensor are inputs; the stepped p and state
    are outputs."""
    options, state_spec = STATE[name]
    rng = np.random.default_rng(3)
    arrays = {key: rng.uniform(0.5, 1.5, 5) for key, value in state_spec.items() if value is None}
    p0, g0, seed = rng.standard_normal(5), rng.standard_normal(5), rng.standard_normal(5)

    def run(lib):
        p = lib.tensor(p0, requires_grad=True)
        grad = lib.tensor(g0, requires_grad=True)
        inputs = {key: lib.tensor(array, requires_grad=True) for key, array in arrays.items()}
        param = p.clone()
        param.grad = grad
        optimizer = getattr(lib.optim, name)([param], differentiable=True, **options)
        state = {
            key: (lib.tensor(value) if value is not None else inputs[key].clone()) for key, value in state_spec.items()
        }
        optimizer.state[param].update(state)
        optimizer.step()
        outputs = [param] + [optimizer.state[param][key] for key in arrays]
        total = sum((output * lib.tensor(seed)).sum() for output in outputs)
        total.backward()
        return [param.detach().numpy(), p.grad.numpy(), grad.grad.numpy()] + [
            inputs[key].grad.numpy() for key in arrays
        ]

    _assert_all_close(run(ember), run(torch))


def test_ember_gradcheck_through_an_adam_step():
    def stepped(p, grad):
        param = p.clone()
        param.grad = grad
        optimizer = ember.optim.Adam([param], lr=0.5, differentiable=True)
        optimizer.step()
        return param

    p = ember.randn(4, dtype=ember.float64, requires_grad=True)
    grad = ember.randn(4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(stepped, (p, grad))


def test_a_leaf_parameter_is_refused_in_the_step_as_in_torch():
    for lib in (torch, ember):
        param = lib.zeros(3, requires_grad=True)
        param.grad = lib.ones(3)
        optimizer = lib.optim.SGD([param], lr=0.1, differentiable=True)
        with pytest.raises(RuntimeError, match="leaf"):
            optimizer.step()


def test_non_leaf_parameters_need_differentiable_true():
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="non-leaf"):
            lib.optim.SGD([lib.zeros(3, requires_grad=True).clone()], lr=0.1)


def test_plain_steps_still_record_nothing():
    param = ember.zeros(3, requires_grad=True)
    param.grad = ember.ones(3)
    ember.optim.Adam([param]).step()
    assert param.grad_fn is None and param.is_leaf


@pytest.mark.parametrize(
    "name, options, when",
    [
        ("Adam", {"fused": True, "differentiable": True}, "init"),
        ("SGD", {"fused": True, "foreach": True}, "init"),
        ("Adam", {"lr": "tensor", "foreach": True}, "init"),
        ("Adam", {"betas": (0.9, 0)}, "init"),
        ("NAdam", {"capturable": True}, "step"),
        ("ASGD", {"capturable": True, "differentiable": True}, "step"),
        ("Rprop", {"foreach": True, "differentiable": True}, "step"),
        ("RAdam", {"foreach": True, "differentiable": True}, "step"),
    ],
)
def test_implementation_options_are_refused_where_torch_refuses_them(name, options, when):
    """foreach, fused and capturable change nothing in ember, but their combinations that PyTorch's
    CPU build refuses are refused the same way, at the same moment (building, or the first step)."""
    errors = []
    for lib in (torch, ember):
        kwargs = {key: (lib.tensor(0.01) if value == "tensor" else value) for key, value in options.items()}
        param = lib.zeros(3, requires_grad=True)
        param = param.clone() if options.get("differentiable") else param
        try:
            optimizer = getattr(lib.optim, name)([param], **kwargs)
            assert when == "step"
            param.grad = lib.ones(3)
            optimizer.step()
        except (RuntimeError, ValueError, AssertionError) as error:
            errors.append(type(error))
    assert len(errors) == 2 and errors[0] is errors[1]


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "ASGD", "Rprop", "SGD"])
def test_foreach_and_capturable_alone_are_accepted_when_torch_accepts_them(name):
    param = ember.zeros(3, requires_grad=True)
    optimizer = getattr(ember.optim, name)([param], foreach=True)
    param.grad = ember.ones(3)
    optimizer.step()
    assert param.abs().sum().item() > 0
