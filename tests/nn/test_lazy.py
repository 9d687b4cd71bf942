"""Lazy modules: shapes inferred from the first batch, then the module is the eager layer it stands for."""

import copy

import numpy as np
import pytest

import ember
from ember import nn

CASES = [  # lazy class, its arguments, the eager layer built with the inferred size, an input
    (nn.LazyLinear, (4,), lambda: nn.Linear(3, 4), (2, 3)),
    (nn.LazyConv1d, (4, 3), lambda: nn.Conv1d(2, 4, 3), (1, 2, 7)),
    (nn.LazyConv2d, (4, 3), lambda: nn.Conv2d(2, 4, 3), (1, 2, 6, 6)),
    (nn.LazyConv3d, (4, 2), lambda: nn.Conv3d(2, 4, 2), (1, 2, 3, 3, 3)),
    (nn.LazyConvTranspose1d, (4, 3), lambda: nn.ConvTranspose1d(2, 4, 3), (1, 2, 5)),
    (nn.LazyConvTranspose2d, (4, 3), lambda: nn.ConvTranspose2d(2, 4, 3), (1, 2, 4, 4)),
    (nn.LazyConvTranspose3d, (4, 2), lambda: nn.ConvTranspose3d(2, 4, 2), (1, 2, 3, 3, 3)),
    (nn.LazyBatchNorm1d, (), lambda: nn.BatchNorm1d(3), (4, 3)),
    (nn.LazyBatchNorm2d, (), lambda: nn.BatchNorm2d(3), (2, 3, 4, 4)),
    (nn.LazyBatchNorm3d, (), lambda: nn.BatchNorm3d(3), (2, 3, 2, 2, 2)),
    (nn.LazyInstanceNorm1d, (), lambda: nn.InstanceNorm1d(3, affine=True, track_running_stats=True), (2, 3, 4)),
    (nn.LazyInstanceNorm2d, (), lambda: nn.InstanceNorm2d(3, affine=True, track_running_stats=True), (2, 3, 4, 4)),
]


@pytest.mark.parametrize("lazy_class, args, eager, shape", CASES, ids=[case[0].__name__ for case in CASES])
def test_first_forward_makes_the_eager_layer_with_its_initialization(lazy_class, args, eager, shape):
    x = ember.randn(*shape)
    ember.manual_seed(5)
    lazy = lazy_class(*args)
    assert lazy.has_uninitialized_params()
    output = lazy(x)
    ember.manual_seed(5)
    reference = eager()
    assert type(lazy) is type(reference) and repr(lazy) == repr(reference)
    assert not isinstance(lazy, nn.modules.lazy.LazyModuleMixin)
    for (name, ours), (_, theirs) in zip(lazy.state_dict().items(), reference.state_dict().items()):
        if name.endswith("num_batches_tracked"):
            continue
        if not name.startswith("running"):
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=name)
    np.testing.assert_allclose(output.detach().numpy(), reference(x).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_uninitialized_parameters_refuse_to_compute():
    layer = nn.LazyLinear(4)
    assert repr(layer.weight) == "<UninitializedParameter>" and isinstance(layer.weight, nn.Parameter)
    assert layer.weight.dtype is ember.float32 and layer.weight.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        layer.weight.shape
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        layer.weight + 1
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        sum(p.numel() for p in layer.parameters())


def test_an_optimizer_made_before_the_first_forward_trains_the_materialized_parameters():
    model = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    x, y = ember.randn(16, 5), ember.randn(16, 1)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] and model[0].weight.shape == (8, 5)


def test_a_state_dict_materializes_the_parameters_to_its_shapes():
    source = nn.Linear(3, 4)
    lazy = nn.LazyLinear(4)
    assert all(repr(value) == "<UninitializedParameter>" for value in lazy.state_dict().values())
    lazy.load_state_dict(source.state_dict())
    assert lazy.weight.shape == (4, 3) and type(lazy.weight) is nn.Parameter
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), source.weight.detach().numpy())
    x = ember.randn(2, 3)
    np.testing.assert_array_equal(lazy(x).detach().numpy(), source(x).detach().numpy())
    assert type(lazy) is nn.Linear


def test_deepcopy_before_the_first_forward():
    lazy = nn.LazyLinear(2)
    twin = copy.deepcopy(lazy)
    twin(ember.ones(1, 3))
    assert twin.weight.shape == (2, 3) and lazy.has_uninitialized_params()


def test_reprs_and_classes_match_torch():
    torch = pytest.importorskip("torch")
    for name, args, shape in [
        ("LazyLinear", (4,), (2, 3)),
        ("LazyConv2d", (4, 3), (1, 2, 5, 5)),
        ("LazyBatchNorm2d", (), (2, 3, 4, 4)),
    ]:
        ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(ours) == repr(theirs)
        ours(ember.ones(*shape))
        theirs(torch.ones(*shape))
        assert repr(ours) == repr(theirs) and type(ours).__name__ == type(theirs).__name__
        assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
            (k, tuple(v.shape)) for k, v in theirs.state_dict().items()
        ]
