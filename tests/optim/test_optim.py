"""Optimizers against PyTorch: the same parameters and the same gradient sequence give the same updates."""

import numpy as np
import pytest

import ember
import ember.optim as optim
from tests.conftest import assert_close

SHAPES = [(3, 4), (5,), ()]
STEPS = 6

# (optimizer name, list of option dicts): every option that changes the maths, alone and combined.
CONFIGS = {
    "SGD": [
        dict(lr=0.1),
        dict(lr=0.1, momentum=0.9),
        dict(lr=0.05, momentum=0.9, dampening=0.3),
        dict(lr=0.05, momentum=0.9, nesterov=True),
        dict(lr=0.1, weight_decay=0.1),
        dict(lr=0.1, momentum=0.5, weight_decay=0.01, maximize=True),
        dict(lr=0.1, momentum=0.8, nesterov=True, weight_decay=0.05, maximize=True),
    ],
    "Adam": [
        dict(),
        dict(lr=0.01),
        dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6),
        dict(lr=0.01, weight_decay=0.1),
        dict(lr=0.01, amsgrad=True),
        dict(lr=0.01, maximize=True, amsgrad=True, weight_decay=0.01),
        dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.1),
    ],
    "AdamW": [
        dict(),
        dict(lr=0.01, weight_decay=0.1),
        dict(lr=0.01, amsgrad=True),
        dict(lr=0.01, betas=(0.5, 0.7), maximize=True),
    ],
    "RMSprop": [
        dict(),
        dict(lr=0.01, alpha=0.9),
        dict(lr=0.01, centered=True),
        dict(lr=0.01, momentum=0.9),
        dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1),
        dict(lr=0.01, maximize=True, eps=1e-4),
    ],
    "Adagrad": [
        dict(),
        dict(lr=0.1, lr_decay=0.1),
        dict(lr=0.1, initial_accumulator_value=0.5),
        dict(lr=0.1, weight_decay=0.1, eps=1e-6),
        dict(lr=0.1, maximize=True, lr_decay=0.01),
    ],
    "Adadelta": [dict(), dict(lr=0.5, rho=0.5, eps=1e-4), dict(weight_decay=0.1), dict(rho=0.95, maximize=True)],
    "Adamax": [
        dict(),
        dict(lr=0.01, betas=(0.3, 0.5)),
        dict(lr=0.01, weight_decay=0.1),
        dict(lr=0.01, maximize=True, eps=1e-3),
    ],
    "NAdam": [
        dict(),
        dict(lr=0.01, momentum_decay=0.01),
        dict(lr=0.01, weight_decay=0.1),
        dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
        dict(lr=0.01, betas=(0.6, 0.7), maximize=True),
    ],
    "RAdam": [
        dict(),
        dict(lr=0.01, betas=(0.5, 0.6)),
        dict(lr=0.01, weight_decay=0.1),
        dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True),
    ],
    "ASGD": [
        dict(),
        dict(lr=0.05, t0=3),
        dict(lr=0.05, lambd=0.1, alpha=0.5, t0=2, weight_decay=0.1),
        dict(lr=0.05, maximize=True, t0=0),
    ],
    "Rprop": [dict(), dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2)), dict(lr=0.05, maximize=True)],
    "Adafactor": [
        dict(),
        dict(lr=0.05, beta2_decay=-0.5),
        dict(eps=(1e-6, 1e-2), d=2.0),
        dict(weight_decay=0.1, maximize=True),
    ],
}
CASES = [(name, options) for name, option_list in CONFIGS.items() for options in option_list]


def _case_id(case):
    name, options = case
    return name + "-" + "-".join(f"{key}={value}" for key, value in options.items())


def _pair(torch, name, options, dtype=np.float32, groups=False):
    """Same initial parameters in ember and torch, and an optimizer of each kind over them."""
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(shape).astype(dtype) for shape in SHAPES]
    ours = [ember.tensor(array, requires_grad=True) for array in arrays]
    theirs = [torch.tensor(array, requires_grad=True) for array in arrays]
    if groups:  # two groups, the second overriding the learning rate
        ours = [{"params": ours[:1]}, {"params": ours[1:], "lr": 0.003}]
        theirs = [{"params": theirs[:1]}, {"params": theirs[1:], "lr": 0.003}]
    return getattr(optim, name)(ours, **options), getattr(torch.optim, name)(theirs, **options)


def _params(optimizer):
    return [param for group in optimizer.param_groups for param in group["params"]]


def _run(torch, ours, theirs, steps=STEPS, dtype=np.float32, skip=None):
    """Feed both optimizers the same random gradients; compare parameters after every step."""
    rng = np.random.default_rng(2)
    for step in range(steps):
        for index, (mine, other) in enumerate(zip(_params(ours), _params(theirs))):
            if skip is not None and (step, index) in skip:
                mine.grad, other.grad = None, None
                continue
            grad = rng.standard_normal(mine.shape).astype(dtype)
            mine.grad, other.grad = ember.tensor(grad), torch.tensor(grad)
        ours.step()
        theirs.step()
        for index, (mine, other) in enumerate(zip(_params(ours), _params(theirs))):
            tolerance = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
            assert_close(mine, other.detach().numpy(), what=f"parameter {index} after step {step + 1}", **tolerance)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_updates_match_torch(torch, case):
    name, options = case
    ours, theirs = _pair(torch, name, options)
    _run(torch, ours, theirs)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_float64_updates_match_torch_closely(torch, name):
    ours, theirs = _pair(torch, name, CONFIGS[name][-1], dtype=np.float64)
    _run(torch, ours, theirs, dtype=np.float64)
    assert _params(ours)[0].dtype is ember.float64


@pytest.mark.parametrize("name", list(CONFIGS))
def test_param_groups_and_missing_gradients_match_torch(torch, name):
    """Per-group options apply; a parameter whose grad is None is left alone and gets no state."""
    ours, theirs = _pair(torch, name, CONFIGS[name][1], groups=True)
    _run(torch, ours, theirs, skip={(0, 1), (2, 2), (3, 0)})
    assert ours.param_groups[1]["lr"] == 0.003


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_state_dict_matches_torch(torch, case):
    name, options = case
    ours, theirs = _pair(torch, name, options)
    _run(torch, ours, theirs, steps=2)
    mine, other = ours.state_dict(), theirs.state_dict()
    assert mine["param_groups"] == other["param_groups"]
    assert sorted(mine["state"]) == sorted(other["state"])
    for index, buffers in other["state"].items():
        assert sorted(mine["state"][index]) == sorted(buffers)
        for key, value in buffers.items():
            assert_close(mine["state"][index][key], value.numpy(), what=f"state[{index}][{key!r}]")
            assert mine["state"][index][key].dtype.name == str(value.dtype).replace("torch.", "")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_state_dict_round_trip_through_save_continues_identically(tmp_path, case):
    """Save after 3 steps, load into a fresh optimizer over copies: the next steps agree exactly."""
    name, options = case
    rng = np.random.default_rng(3)
    params = [ember.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True) for shape in SHAPES]
    optimizer = getattr(optim, name)(params, **options)
    gradients = [[rng.standard_normal(shape).astype(np.float32) for shape in SHAPES] for _ in range(6)]

    def steps(opt, ps, grads):
        for step_grads in grads:
            for param, grad in zip(ps, step_grads):
                param.grad = ember.tensor(grad)
            opt.step()

    steps(optimizer, params, gradients[:3])
    ember.save(optimizer.state_dict(), tmp_path / "opt.pt")
    copies = [ember.tensor(param.detach().numpy().copy(), requires_grad=True) for param in params]
    restored = getattr(optim, name)(copies, lr=123.0)
    restored.load_state_dict(ember.load(tmp_path / "opt.pt"))
    assert restored.param_groups[0]["lr"] == optimizer.param_groups[0]["lr"]
    steps(optimizer, params, gradients[3:])
    steps(restored, copies, gradients[3:])
    for original, copy in zip(params, copies):
        np.testing.assert_array_equal(original.detach().numpy(), copy.detach().numpy())


def test_load_state_dict_copies_and_casts_buffers():
    param = ember.zeros(3, requires_grad=True)
    optimizer = optim.SGD([param], lr=0.1, momentum=0.9)
    param.grad = ember.ones(3)
    optimizer.step()
    state = optimizer.state_dict()
    state["state"][0]["momentum_buffer"] = state["state"][0]["momentum_buffer"].double()
    target = ember.zeros(3, requires_grad=True)
    other = optim.SGD([target], lr=0.1, momentum=0.9)
    other.load_state_dict(state)
    buffer = other.state[target]["momentum_buffer"]
    assert buffer.dtype is ember.float32
    buffer.add_(1)
    assert optimizer.state[param]["momentum_buffer"].tolist() == [1.0, 1.0, 1.0]


def test_load_state_dict_rejects_mismatched_groups():
    a, b = ember.zeros(2, requires_grad=True), ember.zeros(2, requires_grad=True)
    state = optim.SGD([a, b], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="doesn't match the size"):
        optim.SGD([a], lr=0.1).load_state_dict(state)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(state)


def test_zero_grad_sets_to_none_by_default():
    param = ember.ones(2, requires_grad=True)
    optimizer = optim.SGD([param], lr=0.1)
    (param * 2).sum().backward()
    optimizer.zero_grad()
    assert param.grad is None


def test_zero_grad_set_to_none_false_zeroes_in_place():
    param = ember.ones(2, requires_grad=True)
    optimizer = optim.SGD([param], lr=0.1)
    (param * 2).sum().backward()
    grad = param.grad
    optimizer.zero_grad(set_to_none=False)
    assert param.grad is grad and grad.tolist() == [0.0, 0.0]
    (param * 3).sum().backward()
    assert param.grad.tolist() == [3.0, 3.0]


def test_zero_grad_detaches_a_gradient_with_history():
    param = ember.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="reference cycle"):
        (param**2).sum().backward(create_graph=True)
    assert param.grad.grad_fn is not None
    optim.SGD([param], lr=0.1).zero_grad(set_to_none=False)
    assert param.grad.grad_fn is None and not param.grad.requires_grad and param.grad.tolist() == [0.0, 0.0]


def test_step_bumps_the_version_so_stale_graphs_refuse_to_backward():
    param = ember.ones(3, requires_grad=True)
    loss = (param * param).sum()  # saves param for backward
    version = param._version
    param.grad = ember.ones(3)
    optim.SGD([param], lr=0.1).step()
    assert param._version == version + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_step_with_closure_returns_loss_and_runs_with_grad_enabled():
    param = ember.tensor([1.0, 2.0], requires_grad=True)
    optimizer = optim.SGD([param], lr=0.5)
    modes = []

    def closure():
        modes.append(ember.is_grad_enabled())
        optimizer.zero_grad()
        loss = (param**2).sum()
        loss.backward()
        return loss

    with ember.no_grad():
        loss = optimizer.step(closure)
    assert loss.item() == 5.0
    assert param.tolist() == [0.0, 0.0]
    assert modes == [True] and ember.is_grad_enabled()


def test_step_runs_without_recording_a_graph():
    param = ember.ones(2, requires_grad=True)
    param.grad = ember.ones(2)
    optim.Adam([param]).step()
    assert param.grad_fn is None and param.is_leaf


def test_add_param_group_and_defaults():
    a, b = ember.zeros(2, requires_grad=True), ember.zeros(3, requires_grad=True)
    optimizer = optim.SGD([a], lr=0.1, momentum=0.9)
    optimizer.add_param_group({"params": b, "lr": 0.01})
    assert optimizer.param_groups[1]["params"] == [b]
    assert optimizer.param_groups[1]["lr"] == 0.01 and optimizer.param_groups[1]["momentum"] == 0.9
    with pytest.raises(ValueError, match="more than one parameter group"):
        optimizer.add_param_group({"params": [a]})


def test_named_parameters_are_accepted():
    a = ember.zeros(2, requires_grad=True)
    optimizer = optim.Adam([("weight", a)])
    assert optimizer.param_groups[0]["param_names"] == ["weight"]
    assert optimizer.param_groups[0]["params"][0] is a


@pytest.mark.parametrize(
    "make_params",
    [
        lambda lib: [],
        lambda lib: [{"params": {lib.zeros(1, requires_grad=True)}}],
        lambda lib: [lib.zeros(1), 3.0],
        lambda lib: lib.zeros(2),
        lambda lib: [{"params": [lib.zeros(1)]}, 3],
    ],
)
def test_bad_params_raise_torch_errors(torch, make_params):
    with pytest.raises(Exception) as expected:
        torch.optim.SGD(make_params(torch), lr=0.1)
    with pytest.raises(type(expected.value)) as actual:
        optim.SGD(make_params(ember), lr=0.1)
    assert str(actual.value) == str(expected.value)


def test_non_leaf_is_refused():
    leaf = ember.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([leaf * 2], lr=0.1)


def test_duplicate_parameters_warn():
    param = ember.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([param, param], lr=0.1)


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("SGD", dict(lr=-1.0), "Invalid learning rate: -1.0"),
        ("Adam", dict(lr=-0.1), "Invalid learning rate: -0.1"),
        ("Adadelta", dict(rho=1.5), "Invalid rho value: 1.5"),
        ("Adadelta", dict(eps=-1.0), "Invalid epsilon value: -1.0"),
        ("Adamax", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
        ("NAdam", dict(momentum_decay=-0.1), "Invalid momentum_decay value: -0.1"),
        ("NAdam", dict(weight_decay=-0.1), "Invalid weight_decay value: -0.1"),
        ("RAdam", dict(betas=(-0.1, 0.9)), "Invalid beta parameter at index 0: -0.1"),
        ("ASGD", dict(lr=-0.5), "Invalid learning rate: -0.5"),
        ("ASGD", dict(weight_decay=-0.5), "Invalid weight_decay value: -0.5"),
        ("Rprop", dict(etas=(1.1, 1.2)), "Invalid eta values: 1.1, 1.2"),
        ("Rprop", dict(etas=(0.5, 0.9)), "Invalid eta values: 0.5, 0.9"),
        ("LBFGS", dict(lr=-1.0), "Invalid learning rate: -1.0"),
        ("SparseAdam", dict(lr=0.0), "Invalid learning rate: 0.0"),
        ("SparseAdam", dict(eps=0.0), "Invalid epsilon value: 0.0"),
        ("SGD", dict(momentum=-0.1), "Invalid momentum value: -0.1"),
        ("SGD", dict(momentum=0.0, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
        ("SGD", dict(momentum=0.9, dampening=0.1, nesterov=True), "Nesterov momentum requires"),
        ("Adam", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
        ("Adam", dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
        ("AdamW", dict(eps=-1e-8), "Invalid epsilon value: -1e-08"),
        ("RMSprop", dict(alpha=-0.5), "Invalid alpha value: -0.5"),
        ("Adagrad", dict(lr_decay=-1), "Invalid lr_decay value: -1"),
        ("Adagrad", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ],
)
def test_invalid_options_raise_like_torch(torch, name, options, message):
    for module in (optim, torch.optim):
        with pytest.raises(ValueError, match=message):
            getattr(module, name)(
                [ember.zeros(1, requires_grad=True)] if module is optim else [torch.zeros(1, requires_grad=True)],
                **options,
            )


def test_foreach_and_fused_are_accepted():
    param = ember.ones(2, requires_grad=True)
    param.grad = ember.ones(2)
    optim.Adam([param], lr=0.5, foreach=True, fused=False).step()
    assert param.tolist() == pytest.approx([0.5, 0.5])


def test_adagrad_creates_state_at_construction(torch):
    param = ember.zeros(2, requires_grad=True)
    optimizer = optim.Adagrad([param], initial_accumulator_value=0.25)
    reference = torch.optim.Adagrad([torch.zeros(2, requires_grad=True)], initial_accumulator_value=0.25)
    assert sorted(optimizer.state_dict()["state"][0]) == sorted(reference.state_dict()["state"][0])
    assert optimizer.state[param]["sum"].tolist() == [0.25, 0.25]


def test_step_hooks_run_around_step_and_can_be_removed():
    param = ember.ones(1, requires_grad=True)
    param.grad = ember.ones(1)
    optimizer = optim.SGD([param], lr=0.1)
    calls = []
    pre = optimizer.register_step_pre_hook(lambda opt, args, kwargs: calls.append(("pre", param.item())))
    optimizer.register_step_post_hook(lambda opt, args, kwargs: calls.append(("post", param.item())))
    optimizer.step()
    pre.remove()
    optimizer.step()
    assert calls == [("pre", 1.0), ("post", pytest.approx(0.9)), ("post", pytest.approx(0.8))]


ALL_OPTIMIZERS = [
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "Adamax",
    "AdamW",
    "ASGD",
    "LBFGS",
    "Muon",
    "NAdam",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "SparseAdam",
]


def test_exports_every_torch_optimizer(torch):
    for name in ALL_OPTIMIZERS:
        assert name in optim.__all__ and name in torch.optim.__all__
        assert issubclass(getattr(optim, name), optim.Optimizer)
    torch_optimizers = {
        name for name in torch.optim.__all__ if isinstance(getattr(torch.optim, name), type) and name != "Optimizer"
    }
    assert torch_optimizers == set(ALL_OPTIMIZERS)


@pytest.mark.parametrize("name", ALL_OPTIMIZERS)
def test_signature_matches_torch(torch, name):
    """Same parameter names, order, kinds and defaults: foreach/capturable/differentiable/fused included."""
    import inspect

    def parameters(cls):
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values()]

    assert parameters(getattr(optim, name)) == parameters(getattr(torch.optim, name))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_repr_matches_torch_line_for_line(torch, case):
    name, options = case
    ours, theirs = _pair(torch, name, options, groups=True)
    assert repr(ours).splitlines() == repr(theirs).splitlines()


@pytest.mark.parametrize(
    "name, options",
    [
        ("LBFGS", dict(history_size=7, line_search_fn="strong_wolfe")),
        ("SparseAdam", dict(betas=(0.8, 0.9), maximize=True)),
    ],
)
def test_repr_of_lbfgs_and_sparse_adam_match_torch(torch, name, options):
    ours = getattr(optim, name)([ember.zeros(2, requires_grad=True)], **options)
    theirs = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **options)
    assert repr(ours).splitlines() == repr(theirs).splitlines()


@pytest.mark.parametrize("name", list(CONFIGS))
def test_tensor_learning_rate_matches_torch(torch, name):
    """A 1-element tensor lr, as PyTorch accepts, gives the same updates as the number."""
    ours, theirs = _pair(torch, name, dict(lr=ember.tensor(0.01)))
    reference = getattr(torch.optim, name)(_params(theirs), lr=torch.tensor(0.01))
    _run(torch, ours, reference)
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        getattr(optim, name)([ember.zeros(1, requires_grad=True)], lr=ember.tensor([0.1, 0.2]))


def test_sparse_adam_refuses_dense_gradients_like_torch(torch):
    ours = ember.zeros(3, requires_grad=True)
    theirs = torch.zeros(3, requires_grad=True)
    ours.grad, theirs.grad = ember.ones(3), torch.ones(3)
    with pytest.raises(RuntimeError, match="does not support dense gradients") as expected:
        torch.optim.SparseAdam([theirs]).step()
    with pytest.raises(RuntimeError, match="please consider Adam instead") as actual:
        optim.SparseAdam([ours]).step()
    assert str(expected.value) in str(actual.value)
    assert ours.tolist() == [0.0, 0.0, 0.0]


def test_sparse_adam_without_gradients_does_nothing(torch):
    param = ember.ones(2, requires_grad=True)
    optimizer = optim.SparseAdam([param])
    assert optimizer.step(lambda: 3.0) == 3.0
    assert optimizer.state_dict()["state"] == {}


def test_state_dict_hooks_run_in_order_and_may_replace_the_dict():
    param = ember.ones(1, requires_grad=True)
    optimizer = optim.SGD([param], lr=0.1, momentum=0.9)
    calls = []
    optimizer.register_state_dict_pre_hook(lambda opt: calls.append("pre"))
    optimizer.register_state_dict_pre_hook(lambda opt: calls.append("first"), prepend=True)
    handle = optimizer.register_state_dict_post_hook(lambda opt, state: {**state, "extra": 1})
    state = optimizer.state_dict()
    assert calls == ["first", "pre"] and state["extra"] == 1
    handle.remove()
    assert "extra" not in optimizer.state_dict()

    loaded = []
    optimizer.register_load_state_dict_pre_hook(
        lambda opt, state: {**state, "param_groups": [{**state["param_groups"][0], "lr": 0.5}]}
    )
    optimizer.register_load_state_dict_post_hook(lambda opt: loaded.append(opt.param_groups[0]["lr"]))
    optimizer.load_state_dict(state)
    assert loaded == [0.5] and optimizer.param_groups[0]["lr"] == 0.5


def test_state_dict_hooks_behave_like_torch(torch):
    def record(lib_optimizer, module):
        seen = []
        lib_optimizer.register_state_dict_post_hook(lambda opt, state: seen.append(sorted(state)))
        lib_optimizer.register_load_state_dict_pre_hook(lambda opt, state: seen.append(sorted(state)))
        lib_optimizer.load_state_dict(lib_optimizer.state_dict())
        return seen

    assert record(optim.Adam([ember.zeros(1, requires_grad=True)]), ember) == record(
        torch.optim.Adam([torch.zeros(1, requires_grad=True)]), torch
    )


def test_subclass_calling_super_step_runs_hooks_once():
    class Counting(optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    param = ember.ones(1, requires_grad=True)
    param.grad = ember.ones(1)
    optimizer = Counting([param], lr=0.1)
    calls = []
    optimizer.register_step_post_hook(lambda *args: calls.append(1))
    optimizer.step()
    assert calls == [1] and param.item() == pytest.approx(0.9)


def test_training_a_linear_fit_converges():
    """End to end with autograd: every optimizer drives a least-squares loss down."""
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal((64, 3)).astype(np.float32))
    y = x @ ember.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    for name, options in [
        ("SGD", dict(lr=0.1, momentum=0.9)),
        ("Adam", dict(lr=0.05)),
        ("AdamW", dict(lr=0.05)),
        ("RMSprop", dict(lr=0.01)),
        ("Adagrad", dict(lr=0.5)),
        ("Adadelta", dict(lr=10.0)),
        ("Adamax", dict(lr=0.05)),
        ("NAdam", dict(lr=0.05)),
        ("RAdam", dict(lr=0.05)),
        ("ASGD", dict(lr=0.1)),
        ("Rprop", dict(lr=0.01)),
    ]:
        weight = ember.zeros(3, 1, requires_grad=True)
        bias = ember.zeros(1, requires_grad=True)
        optimizer = getattr(optim, name)([weight, bias], **options)
        for _ in range(200):
            optimizer.zero_grad()
            loss = ((x @ weight + bias - y) ** 2).mean()
            loss.backward()
            optimizer.step()
        assert loss.item() < 0.05, (name, loss.item())


@pytest.mark.parametrize("name", ["Adam", "NAdam", "ASGD", "Rprop", "Adafactor"])
def test_scalar_state_follows_a_float64_default_dtype_like_torch(torch, name):
    """With float64 as the default dtype, PyTorch keeps step counters (and eta, mu, mu_product) in float64."""
    previous, previous_torch = ember.get_default_dtype(), torch.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        ours, theirs = _pair(torch, name, CONFIGS[name][0])
        _run(torch, ours, theirs, steps=3)
        for index, buffers in theirs.state_dict()["state"].items():
            for key, value in buffers.items():
                assert ours.state_dict()["state"][index][key].dtype.name == str(value.dtype).replace("torch.", ""), key
    finally:
        ember.set_default_dtype(previous)
        torch.set_default_dtype(previous_torch)


def test_all_matches_torch(torch):
    assert sorted(optim.__all__) == sorted(torch.optim.__all__)


@pytest.mark.parametrize("name", ["SGD", "Adam", "NAdam"])
def test_swap_in_steps_other_parameters_and_state_like_torch(torch, name):
    """Inside the block the optimizer steps the swapped-in parameters with the swapped-in state (whose
    tensors it updates in place); afterwards its own parameters, options and state are untouched."""
    options = dict(lr=0.1, momentum=0.9) if name == "SGD" else dict(lr=0.1)
    results = []
    for lib, module in ((ember, optim), (torch, torch.optim)):
        live = [lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)]
        optimizer = getattr(module, name)(live, **options)
        for param in live:
            param.grad = lib.ones(param.shape)
        optimizer.step()
        saved = optimizer.state_dict()
        snapshot = [param.detach().clone() for param in live]
        other = {"a": lib.zeros(2, requires_grad=True), "b": lib.zeros(3, requires_grad=True)}
        for param in other.values():
            param.grad = lib.full(param.shape, 2.0)
        swapin_state = {
            "state": {
                index: {key: (value.clone() if hasattr(value, "clone") else value) for key, value in buffers.items()}
                for index, buffers in saved["state"].items()
            },
            "param_groups": [dict(group, lr=0.5) for group in saved["param_groups"]],
        }
        with module.swap_in_optimizer_params_and_state(optimizer, other, swapin_state):
            optimizer.step()
        assert optimizer.param_groups[0]["lr"] == 0.1 and optimizer.param_groups[0]["params"][0] is live[0]
        assert all((param.detach() == before).all() for param, before in zip(live, snapshot))
        results.append(
            [param.detach().numpy().copy() for param in other.values()]
            + [swapin_state["state"][0][key].numpy().copy() for key in sorted(swapin_state["state"][0])]
        )
        with pytest.raises(RuntimeError, match="different number of parameter groups"):
            with module.swap_in_optimizer_params_and_state(optimizer, other, {"state": {}, "param_groups": []}):
                pass
        with pytest.raises(RuntimeError, match="extra keys"):
            with module.swap_in_optimizer_params_and_state(
                optimizer, other, {"state": {7: {}}, "param_groups": saved["param_groups"]}
            ):
                pass
    for mine, other in zip(*results):
        assert_close(mine, other)


@pytest.mark.parametrize(
    "dtype, scale, size",
    [
        (np.float32, -0.01, 3 * 65536 + 17),  # blocks, a short last one
        (np.float32, np.float64(-0.3), 200_000),  # a NumPy float64 scale computes in float64
        (np.float64, 0.7, 131_073),
        (np.float32, -0.01, 1000),  # small: one expression
    ],
)
def test_add_product_in_blocks_gives_the_bits_of_the_whole_expression(dtype, scale, size):
    rng = np.random.default_rng(0)
    target = (
        rng.standard_normal(size).astype(dtype).reshape(-1, 1) if size % 2 else rng.standard_normal(size).astype(dtype)
    )
    vector = rng.standard_normal(target.shape).astype(dtype) * np.float32(1e-3)
    expected = target.copy()
    expected += scale * vector
    optim.optimizer.add_product_(target, scale, vector)
    assert target.dtype == expected.dtype
    np.testing.assert_array_equal(target, expected)


def test_add_product_of_a_transposed_vector_takes_the_plain_path():
    rng = np.random.default_rng(1)
    target = rng.standard_normal((600, 300)).astype(np.float32)
    vector = rng.standard_normal((300, 600)).astype(np.float32).T
    expected = target + np.float32(-0.5) * vector
    optim.optimizer.add_product_(target, -0.5, vector)
    np.testing.assert_array_equal(target, expected)
