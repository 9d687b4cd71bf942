"""ember.compile: replays equal eager bit for bit; breaks fall back with a notice; guards re-record."""

import gc
import re
import tracemalloc
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.compiler import CompileWarning, GraphBreak


def same(a, b):
    a = a.detach().numpy() if isinstance(a, ember.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, ember.Tensor) else np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), f"compiled {a} != eager {b}"


def test_function_replays_and_matches_eager():
    def f(x, y):
        return (x * y).sin() + y.exp().sum(0)

    compiled = ember.compile(f)
    x, y = ember.randn(3, 4), ember.randn(3, 4)
    for _ in range(3):
        same(compiled(x, y), f(x, y))
    assert len(compiled.variants) == 1 and compiled._recordings == 1


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.tanh() * 2 - 1,
        lambda x: F.softmax(x, 1),
        lambda x: F.log_softmax(x, 0).mean(),
        lambda x: x.sum(1, keepdim=True) / x.abs().max(),
        lambda x: x @ x.T,
        lambda x: x[1:, ::2].relu(),
        lambda x: F.layer_norm(x, (4,)),
        lambda x: x.reshape(4, 3).transpose(0, 1).contiguous().cumsum(0),
        lambda x: ember.cat([x, x * 2], 1).var(1),
        lambda x: ember.where(x > 0, x, x * 0.1).pow(2),
    ],
)
def test_ops_forward_and_backward_match_eager(op):
    def step(x):
        x.grad = None
        out = op(x)
        out.sum().backward()
        return out.detach(), x.grad.clone()

    compiled = ember.compile(step)
    for seed in range(3):
        ember.manual_seed(seed)
        x = ember.randn(3, 4, requires_grad=True)
        eager_out, eager_grad = step(x)
        out, grad = compiled(x)
        same(out, eager_out)
        same(grad, eager_grad)
    assert compiled.eager_reason is None and compiled.variants


def _training(optimizer_class, model_factory, data, steps, compile_it, **options):
    ember.manual_seed(0)
    model = model_factory()
    optimizer = ember.optim.Adam(model.parameters(), lr=0.01)
    scheduler = ember.optim.lr_scheduler.StepLR(optimizer, 4, 0.5)

    def step(x, y):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    run = ember.compile(step) if compile_it else step
    ember.manual_seed(1)
    losses = []
    for index in range(steps):
        x, y = data[index % len(data)]
        losses.append(run(x, y).item())
        scheduler.step()
    return losses, [p.detach().numpy().copy() for p in model.parameters()], run


class _Rnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(6, 8, batch_first=True)
        self.head = nn.Linear(8, 5)

    def forward(self, x):
        out, _ = self.rnn(x.reshape(x.shape[0], 4, 6))
        return self.head(out[:, -1])


class _Attention(nn.Module):
    """A transformer-ish block: Linear projections, softmax attention, LayerNorm, MLP."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(6, 16)
        self.qkv = nn.Linear(16, 48)
        self.norm = nn.LayerNorm(16)
        self.mlp = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        h = self.embed(x.reshape(x.shape[0], 4, 6))
        q, k, v = self.qkv(h).chunk(3, -1)
        weights = F.softmax(q @ k.transpose(-2, -1) / 4.0, -1)
        h = self.norm(h + weights @ v)
        h = h + self.mlp(h)
        return self.head(h.mean(1))


MODELS = {
    "mlp": lambda: nn.Sequential(nn.Linear(24, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 5)),
    "conv": lambda: nn.Sequential(
        nn.Unflatten(1, (1, 4, 6)),
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(24, 5),
    ),
    "rnn": _Rnn,
    "attention": _Attention,
}


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_training_loop_matches_eager(model, optimizer):
    rng = np.random.default_rng(0)
    data = [
        (ember.tensor(rng.standard_normal((8, 24)).astype(np.float32)), ember.tensor(rng.integers(0, 5, 8)))
        for _ in range(3)
    ]
    if optimizer == "sgd":
        options = dict(optimizer_class=ember.optim.SGD, lr=0.05, momentum=0.9)
    else:
        options = dict(optimizer_class=ember.optim.Adam, lr=0.01)
    eager_losses, eager_params, _ = _training(
        model_factory=MODELS[model], data=data, steps=12, compile_it=False, **options
    )
    losses, params, run = _training(model_factory=MODELS[model], data=data, steps=12, compile_it=True, **options)
    assert losses == eager_losses
    for a, b in zip(params, eager_params):
        assert a.tobytes() == b.tobytes()
    assert run.eager_reason is None
    assert run._recordings <= 5  # first step, then one per learning-rate change of the scheduler


def _assert_compiled_module_trains_like_eager(make_net, loss_of, steps):
    """Train `make_net()` eagerly and through `ember.compile` (Adam, the same seeded batches): the
    losses and weights must be the same bits, from one recording."""

    def train(compile_it):
        ember.manual_seed(0)
        net = make_net()
        optimizer = ember.optim.Adam(net.parameters(), lr=0.01)
        run = ember.compile(net) if compile_it else net
        rng = np.random.default_rng(0)
        losses = []
        for _ in range(steps):
            x = ember.tensor(rng.standard_normal((8, 24)).astype(np.float32))
            y = ember.tensor(rng.integers(0, 5, 8))
            optimizer.zero_grad()
            loss = loss_of(run, x, y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, [p.detach().numpy().tobytes() for p in net.parameters()], run

    eager_losses, eager_params, _ = train(False)
    losses, params, compiled = train(True)
    assert losses == eager_losses and params == eager_params
    call = compiled.__dict__["_compiled_call"]
    assert call.eager_reason is None and call._recordings == 1


@pytest.mark.parametrize("model", sorted(MODELS))
def test_compiled_module_trains_like_eager(model):
    """`ember.compile(model)` inside an eager training loop: the forward is replayed and its result's
    grad_fn replays the recorded backward."""
    _assert_compiled_module_trains_like_eager(MODELS[model], lambda run, x, y: F.cross_entropy(run(x), y), steps=6)


class _LogitsAndLoss(nn.Module):
    """Returns `(logits, loss)`, as nanoGPT's and minGPT's models do: two results that need autograd."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(24, 16), nn.GELU(), nn.Dropout(0.2), nn.Linear(16, 5))

    def forward(self, x, y):
        logits = self.body(x)
        return logits, F.cross_entropy(logits, y)


@pytest.mark.parametrize("through_logits", [False, True])
def test_compiled_module_with_two_differentiable_results_trains_like_eager(through_logits):
    def loss_of(run, x, y):
        logits, loss = run(x, y)
        if through_logits:  # both results carry gradient into the shared backward
            loss = loss + logits.square().mean()
        return loss

    _assert_compiled_module_trains_like_eager(_LogitsAndLoss, loss_of, steps=5)


def test_two_differentiable_results_share_one_replayed_grad_fn():
    layer = nn.Linear(3, 2)
    compiled = ember.compile(lambda x: (layer(x), layer(x).sum()), verify=0)  # verify would return eager results
    x = ember.ones(4, 3)
    compiled(x)
    first, second = compiled(x)
    assert first.grad_fn is second.grad_fn and first.grad_fn.name() == "_ReplayedBackward"
    (grad,) = ember.autograd.grad(second, [layer.weight])
    assert np.array_equal(grad.numpy(), np.full((2, 3), 4.0, dtype=np.float32))


def test_compiled_module_grad_fn_refuses_double_backward():
    layer = nn.Linear(3, 1)
    compiled = ember.compile(layer)
    x = ember.ones(2, 3)
    compiled(x)
    out = compiled(x).sum()
    (grad,) = ember.autograd.grad(out, [layer.weight], create_graph=True)
    with pytest.raises(RuntimeError):
        ember.autograd.grad(grad.sum(), [layer.weight])


def test_frozen_parameter_re_records():
    layer = nn.Linear(3, 2)
    compiled = ember.compile(layer)
    for frozen in (False, False, True, True):
        layer.weight.requires_grad_(not frozen)
        layer.zero_grad()
        compiled(ember.ones(4, 3)).sum().backward()
        assert (layer.weight.grad is None) == frozen and layer.bias.grad is not None
    assert compiled.__dict__["_compiled_call"]._recordings == 2


def test_dropout_draws_fresh_masks_and_follows_the_seed():
    compiled = ember.compile(lambda x: F.dropout(x, 0.5))
    x = ember.ones(1000)
    ember.manual_seed(3)
    masks = [compiled(x) for _ in range(4)]
    assert not np.array_equal(masks[2].numpy(), masks[3].numpy())
    ember.manual_seed(3)
    eager = [F.dropout(x, 0.5) for _ in range(4)]
    for a, b in zip(masks, eager):
        same(a, b)


def test_branch_on_a_tensor_value_is_guarded():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x * 3

    compiled = ember.compile(f)
    for sign in (1, -1, 1, -1):
        same(compiled(ember.ones(3) * sign), f(ember.ones(3) * sign))
    assert len(compiled.variants) == 2


def _branch_after_update(x):
    x.add_(1)
    if x.sum() > 0:  # read after the argument was changed in place: a miss could not undo it
        return x * 2
    return x * 3


def test_branch_after_an_update_falls_back_once_with_a_notice():
    compiled = ember.compile(_branch_after_update)
    with pytest.warns(CompileWarning, match="after an in-place update"):
        compiled(ember.ones(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same(compiled(-ember.ones(3) * 5), (-ember.ones(3) * 5 + 1) * 3)  # eager now, no second notice
    assert compiled.eager_reason


def test_value_read_before_any_update_is_a_guard():
    def f(x, target):
        return F.cross_entropy(x, target, ignore_index=2)

    compiled = ember.compile(f)
    x = ember.randn(4, 3)
    first = ember.tensor([0, 1, 1, 0])
    with_ignored = ember.tensor([0, 2, 1, 0])
    same(compiled(x, first), f(x, first))
    same(compiled(x, with_ignored), f(x, with_ignored))  # another branch: re-recorded
    same(compiled(x, first), f(x, first))
    assert compiled.eager_reason is None and len(compiled.variants) == 2


def test_fullgraph_raises_naming_the_line():
    with pytest.raises(GraphBreak, match="test_compile.py:"):
        ember.compile(_branch_after_update, fullgraph=True)(ember.ones(2))


def test_hooks_fall_back():
    layer = nn.Linear(3, 3)
    layer.register_forward_hook(lambda module, inputs, output: None)
    compiled = ember.compile(layer)
    with ember.no_grad(), pytest.warns(CompileWarning, match="hooks"):
        compiled(ember.ones(2, 3))


def test_numpy_of_a_computed_tensor_is_a_break():
    def f(x):
        y = x * 2
        return ember.tensor(np.sort(y.numpy()))

    compiled = ember.compile(f)
    with pytest.warns(CompileWarning, match="numpy"):
        compiled(ember.ones(3))


@pytest.mark.parametrize(
    "draw",
    [
        lambda rng, shape: rng.random(shape),  # NumPy's C code fills an np.empty it asked for
        lambda rng, shape: rng.standard_normal(shape, out=np.zeros(shape)),  # and an array given as out=
    ],
    ids=["fills_np_empty", "fills_out"],
)
def test_numpy_generator_draws_inside_the_call_are_a_break_not_a_frozen_or_garbage_replay(draw):
    def step(x, rng):
        return x * ember.tensor(draw(rng, tuple(x.shape)))

    compiled = ember.compile(step)
    x = ember.ones(4)
    rng_eager, rng_compiled = np.random.default_rng(5), np.random.default_rng(5)
    with pytest.warns(CompileWarning, match="filled by code the recorder does not see"):
        first = compiled(x, rng_compiled)
    same(first, step(x, rng_eager))
    for _ in range(3):  # every call draws afresh, as eager does
        same(compiled(x, rng_compiled), step(x, rng_eager))
    with pytest.raises(GraphBreak, match="test_compile.py:"):
        ember.compile(step, fullgraph=True)(x, np.random.default_rng(5))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float64", "bool", "int64", "complex64"])
def test_arrays_made_inside_the_call_replay_in_every_dtype(dtype):
    """The check of new arrays (above) reads their bytes, whatever the dtype (bfloat16 has no buffer
    format) and the shape (empty ones too): no break, and the replay equals eager."""
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")  # (the other Pythons' suite runs without it)
    dtype = getattr(ember, dtype)

    def f(x):
        return x + ember.ones(3, dtype=dtype), ember.zeros(2, 0, dtype=dtype)

    compiled = ember.compile(f, fullgraph=True)
    x = ember.zeros(3, dtype=dtype)
    for _ in range(3):
        for got, expected in zip(compiled(x), f(x)):
            if dtype is ember.bfloat16:  # (NumPy has no bfloat16: compared widened, which is exact)
                got, expected = got.float(), expected.float()
            same(got, expected)
    assert compiled.variants and compiled.eager_reason is None


def test_a_tensor_subclass_is_a_break():
    """A replay would skip the subclass's __torch_function__ and return plain tensors: the call runs
    eagerly, whether the subclass comes in as an argument or is made inside; fullgraph raises."""

    class Counting(ember.Tensor):
        calls = 0

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            Counting.calls += 1
            return super().__torch_function__(func, types, args, kwargs)

    def step(x):
        return (x * 2).exp().sum()

    compiled = ember.compile(step)
    for _ in range(3):
        compiled(ember.ones(3))  # recorded and replayed for plain tensors
    with pytest.warns(CompileWarning, match="__torch_function__"):
        result = compiled(ember.ones(3).as_subclass(Counting))
    for _ in range(2):
        result = compiled(ember.ones(3).as_subclass(Counting))
    assert type(result) is Counting and Counting.calls == 9
    made_inside = ember.compile(lambda x: step(x.as_subclass(Counting)))
    with pytest.warns(CompileWarning, match="__torch_function__"):
        assert type(made_inside(ember.ones(3))) is Counting
    with pytest.raises(GraphBreak, match="__torch_function__"):
        ember.compile(step, fullgraph=True)(ember.ones(3).as_subclass(Counting))


def test_module_attribute_change_is_a_break():
    class Counter(nn.Module):
        def forward(self, x):
            self.calls = getattr(self, "calls", 0) + 1
            return x + 1

    with pytest.warns(CompileWarning, match="setting Counter.calls"):
        ember.compile(Counter())(ember.ones(2))


def test_guard_misses_re_record_shapes_modes_and_globals():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    compiled = ember.compile(model)
    with ember.no_grad():
        for batch in (2, 3, 2):
            x = ember.randn(batch, 4)
            model.eval()
            same(compiled(x), model(x))
        model.train()
        ember.manual_seed(5)
        train_out = compiled(x)
        ember.manual_seed(5)
        same(train_out, model(x))
    assert len(compiled.__dict__["_compiled_call"].variants) == 3


def test_learning_rate_changes_take_effect():
    weight = nn.Parameter(ember.ones(3))
    optimizer = ember.optim.SGD([weight], lr=0.1)

    def step():
        optimizer.zero_grad()
        (weight * weight).sum().backward()
        optimizer.step()

    compiled = ember.compile(step)
    expected = np.ones(3, np.float32)
    for lr in (0.1, 0.1, 0.1, 0.5, 0.5, 0.01):
        optimizer.param_groups[0]["lr"] = lr
        compiled()
        expected = expected - np.float32(lr) * (2 * expected)
        assert weight.detach().numpy().tobytes() == expected.tobytes()


def test_scheduler_stepping_inside_the_call_is_a_break():
    weight = nn.Parameter(ember.ones(3))
    optimizer = ember.optim.SGD([weight], lr=0.1)
    scheduler = ember.optim.lr_scheduler.ExponentialLR(optimizer, 0.5)

    def step():
        optimizer.zero_grad()
        weight.sum().backward()
        optimizer.step()
        scheduler.step()

    with pytest.warns(CompileWarning, match="ExponentialLR.step"):
        ember.compile(step)()


def test_verify_compares_replays_with_eager():
    def f(x):
        return (x.exp() + 1).log()

    compiled = ember.compile(f, verify=3)
    x = ember.randn(5)
    for _ in range(4):
        same(compiled(x), f(x))


def test_explain_lists_breaks_and_guards():
    report = ember.compile.explain(_branch_after_update)(ember.ones(2))
    assert report.graph_break_count == 1 and "in-place update" in str(report)
    clean = ember.compile.explain(lambda x: x + 1)(ember.ones(2))
    assert clean.graph_break_count == 0 and any("shape" in guard for guard in clean.guards)


def test_disable_switch(monkeypatch):
    monkeypatch.setenv("EMBER_DISABLE_COMPILE", "1")

    def f(x):
        return x

    assert ember.compile(f) is f
    monkeypatch.setenv("EMBER_DISABLE_COMPILE", "0")
    monkeypatch.setenv("TORCHDYNAMO_DISABLE", "1")
    assert ember.compile(f) is f


def test_torch_compile_is_ember_compile():
    import ember.compat

    torch = ember.compat.install()
    try:
        assert torch.compile is ember.compile
        assert torch.compiler.is_compiling() is False
    finally:
        ember.compat.uninstall()


def test_no_recorded_array_leaks_into_state():
    model = nn.Linear(3, 2)
    optimizer = ember.optim.Adam(model.parameters())

    def step(x):
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()

    compiled = ember.compile(step)
    for _ in range(3):
        compiled(ember.ones(4, 3))
    arrays = [p._data for p in model.parameters()] + [p._grad._data for p in model.parameters()]
    arrays += [s._data for state in optimizer.state.values() for s in state.values()]
    assert all(type(array) is np.ndarray for array in arrays)


def _live_tensors():
    gc.collect()
    # issubclass on the type: isinstance would ask each object for __class__, and some objects of other
    # libraries (real torch's deprecated aliases) warn when asked
    return sum(issubclass(type(item), ember.Tensor) for item in gc.get_objects())


def test_memory_does_not_grow_over_10000_replays():
    """Objects and tensors stay as many over 10,000 replays, and the bytes traced (NumPy reports its
    buffers to tracemalloc) stay flat over a traced stretch of them: tracing every replay would take
    minutes, and a leak repeats on every replay, so a stretch shows it."""
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    optimizer = ember.optim.Adam(model.parameters(), lr=0.01)

    def step(x, y):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    compiled = ember.compile(step)
    x, y = ember.randn(4, 4), ember.tensor([0, 1, 2, 1])
    for _ in range(50):
        compiled(x, y)
    recordings = compiled._recordings
    tensors = _live_tensors()
    objects = len(gc.get_objects())
    for _ in range(9_800):
        compiled(x, y)
    assert _live_tensors() <= tensors, "replays leave tensors alive"
    assert len(gc.get_objects()) <= objects + 50, "replays leave Python objects alive"
    tracemalloc.start()
    try:
        for _ in range(10):
            compiled(x, y)
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0]
        for _ in range(200):
            compiled(x, y)
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - traced
    finally:
        tracemalloc.stop()
    assert growth < 1024, f"{growth} bytes more traced after 200 replays (a leak of about {growth // 200} per replay)"
    assert compiled.eager_reason is None and compiled._recordings == recordings  # all were replays


def _peak_traced_bytes(step, *args):
    """Peak bytes traced during one call, above the level just before it (NumPy buffers included).
    Tracing is on for the calls before it, so that what they left (the gradients) is traced too."""
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    step(*args)
    return tracemalloc.get_traced_memory()[1] - before


def test_replay_peak_memory_is_at_most_eager():
    """Large weights, a tiny batch: a replay that kept the old gradients alive beside the new ones
    (eager's zero_grad drops them) would peak a whole set of gradients higher."""

    def make_step():
        ember.manual_seed(0)
        model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 4))
        optimizer = ember.optim.SGD(model.parameters(), lr=0.01)

        def step(x, y):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            return loss

        return step

    x, y = ember.randn(2, 256), ember.tensor([0, 3])
    eager, compiled = make_step(), ember.compile(make_step(), verify=0)
    tracemalloc.start()
    try:
        for _ in range(3):
            eager(x, y)
            compiled(x, y)
        recordings = compiled._recordings
        eager_peak = _peak_traced_bytes(eager, x, y)
        replay_peak = _peak_traced_bytes(compiled, x, y)
    finally:
        tracemalloc.stop()
    assert compiled._recordings == recordings and compiled.eager_reason is None
    gradients = 4 * (256 * 256 + 256 + 4 * 256 + 4)
    assert replay_peak <= eager_peak + 4096, f"replay peak {replay_peak} > eager peak {eager_peak} ({gradients=})"


def test_gradients_accumulated_across_calls_match_eager():
    """Without zero_grad the call reads the old .grad, so the replay must keep it (not drop it early)."""

    def make():
        ember.manual_seed(0)
        model = nn.Linear(3, 2)

        def step(x):
            model(x).pow(2).sum().backward()
            return model.weight.grad

        return model, step

    (eager_model, eager), (compiled_model, step) = make(), make()
    compiled = ember.compile(step)
    x = ember.randn(5, 3)
    for _ in range(4):
        same(compiled(x), eager(x))
        same(compiled_model.bias.grad, eager_model.bias.grad)
    assert compiled.eager_reason is None


SETTINGS = {"scale": 2.0}


def test_verify_catches_a_python_value_that_is_not_guarded():
    """A number inside a mutable global is read by Python, not guarded: verify= is what catches it."""

    def f(x):
        return x * SETTINGS["scale"]

    compiled = ember.compile(f, verify=5)
    compiled(ember.ones(2))
    compiled(ember.ones(2))
    SETTINGS["scale"] = 3.0
    try:
        with pytest.raises(ember.compiler.CompileVerificationError, match="differs from eager"):
            compiled(ember.ones(2))
    finally:
        SETTINGS["scale"] = 2.0


OPTIMIZERS = {
    "SGD-nesterov": (ember.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "Adam-amsgrad": (ember.optim.Adam, dict(lr=0.01, amsgrad=True, weight_decay=0.01)),
    "AdamW": (ember.optim.AdamW, dict(lr=0.01)),
    "RMSprop": (ember.optim.RMSprop, dict(lr=0.01, momentum=0.5, centered=True)),
    "Adagrad": (ember.optim.Adagrad, dict(lr=0.1)),
    "Adadelta": (ember.optim.Adadelta, dict()),
    "Adamax": (ember.optim.Adamax, dict(lr=0.01)),
    "NAdam": (ember.optim.NAdam, dict(lr=0.01)),
    "RAdam": (ember.optim.RAdam, dict(lr=0.01)),
    "ASGD": (ember.optim.ASGD, dict(lr=0.01)),
    "Rprop": (ember.optim.Rprop, dict(lr=0.01)),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_every_optimizer_compiled_matches_eager(name):
    """Replayed or run eagerly after a break, never different: the optimizers' steps are Python
    around NumPy, and whatever they read or change must be recorded, guarded or a break."""
    optimizer_class, options = OPTIMIZERS[name]
    rng = np.random.default_rng(0)
    data = [
        (ember.tensor(rng.standard_normal((8, 24)).astype(np.float32)), ember.tensor(rng.integers(0, 5, 8)))
        for _ in range(3)
    ]
    factory = MODELS["mlp"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CompileWarning)
        eager = _training(optimizer_class, factory, data, 8, False, **options)
        compiled = _training(optimizer_class, factory, data, 8, True, **options)
    assert compiled[0] == eager[0]
    for a, b in zip(compiled[1], eager[1]):
        assert a.tobytes() == b.tobytes()


def test_replay_reuses_buffers_that_die_and_still_copies_the_callers_gradient():
    """A replay writes `w * x + b` into the product and gives `.grad` the gradients a user's backward
    made without copying them (eager must copy: it cannot know nobody else holds them); the
    gradient the caller passed is still copied into `b.grad`, as in PyTorch."""
    from ember._examples import MultiplyAdd

    rng = np.random.default_rng(3)
    w0, x0, b0 = (rng.standard_normal((512, 512)).astype(np.float32) for _ in range(3))  # 1 MiB each
    w, x, b = (ember.tensor(a, requires_grad=True) for a in (w0, x0, b0))
    ones = ember.ones(512, 512)

    def step():
        z = MultiplyAdd.apply(w, x, b)
        z.backward(ones)
        grads = w.grad, x.grad, b.grad
        w.grad = x.grad = b.grad = None
        return z, grads

    compiled = ember.compile(step, verify=2)
    for _ in range(4):
        z, (grad_w, grad_x, grad_b) = compiled()
        np.testing.assert_array_equal(z.detach().numpy(), w0 * x0 + b0)
        np.testing.assert_array_equal(grad_w.numpy(), x0)
        np.testing.assert_array_equal(grad_x.numpy(), w0)
        assert grad_b._data is not ones._data and not np.shares_memory(grad_b._data, ones._data)
        np.testing.assert_array_equal(grad_b.numpy(), np.ones((512, 512), np.float32))
    source = compiled.variants[0].source
    assert "out=" in source, source  # the sum written into the product
    assert (
        sum(line.strip().startswith("v") and line.split("=")[1].strip().startswith("v") for line in source.splitlines())
        == 2
    ), source


def test_replay_skips_calls_whose_results_nothing_reads():
    """Eager work whose result is never used (a buffer made and dropped, a no-op cast) is not replayed;
    what is read still is."""

    def f(x):
        ember.empty(5, 7)  # made and dropped
        y = x.float()  # already float32: astype(copy=False) gives x back
        return (y * 3).sum()

    compiled = ember.compile(f)
    x = ember.randn(4, 6)
    for _ in range(3):
        same(compiled(x), f(x))
    source = compiled.variants[0].source
    calls = [line for line in source.splitlines() if "(" in line and " = " in line and line.strip().startswith("v")]
    assert len(calls) == 2, source  # the product and its sum, nothing else


def test_weight_gradient_made_transposed_is_handed_over_without_a_copy():
    """Linear forms a weight's gradient as (out, in) and hands it back transposed twice; eager's
    AccumulateGrad takes that view as it is (the whole of a GEMM's result), and so does a replay.
    Each `.grad` is the whole of its memory, C-contiguous, as eager's."""
    rng = np.random.default_rng(4)
    model = nn.Linear(300, 200)
    x = ember.tensor(rng.standard_normal((64, 300)).astype(np.float32))

    def step():
        model.zero_grad()
        model(x).square().sum().backward()
        return model.weight.grad, model.bias.grad

    eager = [grad.numpy().copy() for grad in step()]
    compiled = ember.compile(step, verify=2)
    for _ in range(4):
        grads = compiled()
        for grad, expected in zip(grads, eager):
            array = grad._data
            assert array.flags.c_contiguous and (array.base is None or array.base.nbytes == array.nbytes)
            assert grad.numpy().tobytes() == expected.tobytes()
    assert not np.shares_memory(grads[0]._data, grads[1]._data)
    replay = compiled.variants[0]
    called = [replay.__globals__[name] for name in re.findall(r"\b(f\d+)\(", replay.source)]
    assert np.ndarray.copy not in called, replay.source


def _multiplies(replay):
    """The argument lists of the replay's np.multiply calls, as source text."""
    names = {name for name, value in replay.__globals__.items() if value is np.multiply}
    return [args for name, args in re.findall(r"\b(f\d+)\(([^)]*)\)", replay.source) if name in names]


def test_product_with_ones_the_replay_made_reads_one_array():
    """`ones_like(z) * x` (a seed gradient scaling an operand) becomes `x * 1`: the same product per
    element, bit for bit, NaN, infinities, signed zeros and subnormals included."""
    from ember._examples import MultiplyAdd

    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -3.5, 2.0], np.float32)
    w, x, b = (ember.tensor(np.resize(np.roll(special, k), (4, 8)), requires_grad=True) for k in range(3))

    def step():
        z = MultiplyAdd.apply(w, x, b)
        z.backward(ember.ones_like(z))
        grads = w.grad, x.grad, b.grad
        w.grad = x.grad = b.grad = None
        return z, grads

    compiled = ember.compile(step, verify=3)
    for _ in range(4):
        z, grads = compiled()
        for grad, expected in zip(grads, (x, w, ember.ones(4, 8))):
            assert grad.numpy().tobytes() == expected.detach().numpy().tobytes()
    products = _multiplies(compiled.variants[0])
    assert len(products) == 3, products  # w * x, and the two gradients
    ones = [args for args in products if re.fullmatch(r"v\d+, c\d+", args)]
    assert len(ones) == 2, compiled.variants[0].source
    for args in ones:
        assert compiled.variants[0].__globals__[args.split(", ")[1]] == 1


def test_product_with_ones_changed_in_place_or_widening_x_is_not_rewritten():
    """Ones written since they were made (here doubled in place) or broadcasting `x` to a larger shape
    are multiplied as recorded; ones broadcast to `x`'s shape, or float64 ones times `x` cast to
    float64 (ember casts first), are products with 1."""

    def f(x):
        seed = ember.ones_like(x)
        seed.mul_(2)
        wider = ember.ones(3, 4, dtype=ember.float64) * x
        return seed * x, ember.ones(3, 4) * x, wider, ember.ones(2, 3, 4) * x, ember.ones(4) * x

    compiled = ember.compile(f, verify=2)
    x = ember.randn(3, 4)
    _assert_replays_equal_eager(compiled, f, x, calls=3)
    products = _multiplies(compiled.variants[0])
    assert sum(bool(re.fullmatch(r"v\d+, c\d+", args)) for args in products) == 3, compiled.variants[0].source


def _assert_replays_equal_eager(compiled, f, x, calls):
    """Each of `calls` calls of `compiled(x)` gives, result by result, the bits of eager `f(x)`."""
    for _ in range(calls):
        for got, expected in zip(compiled(x), f(x)):
            same(got, expected)


def _made_once(replay):
    """The arrays a replay takes from its constants instead of making them (`vK = cN` lines)."""
    names = re.findall(r"^ +v\d+ = (c\d+)$", replay.source, re.M)
    return [replay.__globals__[name] for name in names if isinstance(replay.__globals__[name], np.ndarray)]


def test_small_arrays_made_from_constants_are_made_once():
    """`arange(4)` and `ones(4)` read but never written are made once, read-only, and shared by every
    replay; one written in place, one returned, and a large one are made by each replay."""

    def f(x):
        scaled = x * ember.arange(4.0)  # made once
        shifted = scaled + ember.ones(4)  # made once
        accumulated = ember.zeros(4)
        accumulated.add_(x[0])  # written: made each time
        returned = ember.full((4,), 2.0)  # part of the result: made each time
        large = ember.ones(200, 100) @ ember.ones(100, 1)  # the first is above the size kept
        return shifted.sum() + accumulated.sum() + large.sum(), returned

    compiled = ember.compile(f, verify=2)
    x = ember.randn(3, 4)
    _assert_replays_equal_eager(compiled, f, x, calls=4)
    made_once = _made_once(compiled.variants[0])
    assert sorted(array.shape for array in made_once) == [(4,), (4,), (100, 1)]  # (200, 100) is 80 KB
    assert [array.tolist() for array in made_once if array.dtype == np.float64] == [[0.0, 1.0, 2.0, 3.0]]
    assert not any(array.flags.writeable for array in made_once)
    result = compiled(x)[1]
    result.add_(1)  # the caller owns what it is handed
    same(compiled(x)[1], ember.full((4,), 2.0))


def test_ones_filled_by_a_random_draw_are_not_taken_for_ones():
    """A draw into an array (`Generator.random(out=...)`) is a write the passes see: the product
    stays a product of two arrays, and it draws afresh on each replay."""
    from ember.ops import creation

    def f(x):
        noise = ember.ones(4, dtype=ember.float64)
        creation.default_generator.rng.random(out=noise._data)
        return noise * x

    creation.default_generator.rng.random()  # the engine made before recording, not inside it
    compiled = ember.compile(f, verify=0)
    x = ember.ones(4, dtype=ember.float64)
    results = [compiled(x) for _ in range(4)]
    assert len(compiled.variants) == 1
    for result in results[1:]:
        assert not np.array_equal(result.numpy(), np.ones(4))
    assert not np.array_equal(results[-1].numpy(), results[-2].numpy())
