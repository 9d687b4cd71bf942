"""nn.utils.prune against torch.nn.utils.prune: the same masks from the same weights (L1, Ln
structured, repeated pruning through a PruningContainer, global pruning, custom masks), the same
re-parametrization (weight_orig, weight_mask, the pre-hook, state_dict keys) and gradients, and
removal."""

import numpy as np
import pytest

import ember
from ember.nn.utils import prune

from ..conftest import assert_close


@pytest.fixture
def torch_prune(torch):
    import torch.nn.utils.prune

    return torch.nn.utils.prune


def _pair(torch, shapes=((4, 6), (3, 4))):
    """An ember and a torch MLP with the same (tie-free) weights."""
    rng = np.random.default_rng(7)
    ours = ember.nn.Sequential(ember.nn.Linear(6, 4), ember.nn.ReLU(), ember.nn.Linear(4, 3))
    theirs = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3))
    for index in (0, 2):
        for name in ("weight", "bias"):
            values = rng.standard_normal(getattr(ours[index], name).shape).astype(np.float32)
            getattr(ours[index], name).data = ember.tensor(values)
            getattr(theirs[index], name).data = torch.tensor(values)
    return ours, theirs


def _compare(ours, theirs, torch):
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for key, value in theirs.state_dict().items():
        assert_close(ours.state_dict()[key], value.numpy(), what=key)
    x = np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32)
    ours_out, theirs_out = ours(ember.tensor(x)), theirs(torch.tensor(x))
    assert_close(ours_out, theirs_out, what="forward")
    ours_out.square().sum().backward()
    theirs_out.square().sum().backward()
    for (name, mine), (_, reference) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(mine.grad, reference.grad, rtol=1e-4, atol=1e-5, what=f"{name} gradient")


STEPS = {
    "l1_fraction": lambda p, m: p.l1_unstructured(m[0], "weight", amount=0.3),
    "l1_count_bias": lambda p, m: p.l1_unstructured(m[2], "bias", amount=1),
    "ln_rows": lambda p, m: p.ln_structured(m[0], "weight", amount=0.5, n=2, dim=0),
    "ln_columns_l1": lambda p, m: p.ln_structured(m[2], "weight", amount=2, n=1, dim=1),
    "ln_inf": lambda p, m: p.ln_structured(m[0], "weight", amount=1, n=float("inf"), dim=-1),
    "twice": lambda p, m: (p.l1_unstructured(m[0], "weight", 0.25), p.l1_unstructured(m[0], "weight", 0.25)),
    "l1_then_ln": lambda p, m: (p.l1_unstructured(m[0], "weight", 5), p.ln_structured(m[0], "weight", 1, 2, 0)),
    "identity": lambda p, m: p.identity(m[0], "weight"),
    "custom": lambda p, m: p.custom_from_mask(m[2], "bias", mask=p_mask(m)),
    "global": lambda p, m: p.global_unstructured(
        [(m[0], "weight"), (m[2], "weight")], pruning_method=p.L1Unstructured, amount=0.4
    ),
    "global_after_l1": lambda p, m: (
        p.l1_unstructured(m[0], "weight", 0.5),
        p.global_unstructured([(m[0], "weight"), (m[2], "weight")], pruning_method=p.L1Unstructured, amount=10),
    ),
    "remove": lambda p, m: (p.l1_unstructured(m[0], "weight", 0.5), p.remove(m[0], "weight")),
}


def p_mask(module):
    """The bias mask [1, 0, 1] in the module's own library."""
    return module[2].bias.new_tensor([1.0, 0.0, 1.0])


@pytest.mark.parametrize("step", list(STEPS))
def test_pruning_matches_torch(torch, torch_prune, step):
    ours, theirs = _pair(torch)
    STEPS[step](prune, ours)
    STEPS[step](torch_prune, theirs)
    assert prune.is_pruned(ours) == torch_prune.is_pruned(theirs)
    _compare(ours, theirs, torch)


def test_reparametrization_and_removal():
    layer = ember.nn.Linear(5, 4)
    prune.l1_unstructured(layer, "weight", amount=0.5)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in layer.named_buffers()] == ["weight_mask"]
    assert int(layer.weight_mask.sum()) == 10 and not isinstance(layer.weight, ember.nn.Parameter)
    with ember.no_grad():
        layer.weight_orig.fill_(2.0)
    layer(ember.ones(1, 5))  # the pre-hook recomputes weight from weight_orig and the mask
    assert layer.weight.sum().item() == 20.0
    prune.remove(layer, "weight")
    assert isinstance(layer.weight, ember.nn.Parameter) and not prune.is_pruned(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]
    with pytest.raises(ValueError, match="has to be pruned"):
        prune.remove(layer, "weight")


def test_random_methods_prune_the_asked_amount():
    layer = ember.nn.Linear(10, 8)
    prune.random_unstructured(layer, "weight", amount=0.25)
    assert int((layer.weight_mask == 0).sum()) == 20
    conv = ember.nn.Conv2d(3, 6, 3)
    prune.random_structured(conv, "weight", amount=2, dim=0)
    pruned_channels = (conv.weight_mask.sum(dim=(1, 2, 3)) == 0).sum()
    assert int(pruned_channels) == 2


@pytest.mark.parametrize(
    "call",
    [
        lambda p, m: p.l1_unstructured(m[0], "weight", amount=1.5),
        lambda p, m: p.l1_unstructured(m[0], "weight", amount=-1),
        lambda p, m: p.l1_unstructured(m[0], "weight", amount="half"),
        lambda p, m: p.l1_unstructured(m[0], "weight", amount=100),
        lambda p, m: p.ln_structured(m[0], "bias", amount=1, n=2, dim=0),
        lambda p, m: p.global_unstructured([(m[0], "weight")], pruning_method=p.LnStructured, amount=1, n=2, dim=0),
    ],
)
def test_bad_arguments_raise_as_torch(torch, torch_prune, call):
    def error(library, model):
        try:
            call(library, model)
        except Exception as caught:  # noqa: BLE001 - the class is compared
            return type(caught).__name__
        return None

    ours, theirs = _pair(torch)
    assert error(prune, ours) == error(torch_prune, theirs) is not None
