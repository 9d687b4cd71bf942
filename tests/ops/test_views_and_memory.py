"""Views share memory and the version counter with their base; strides, offsets and contiguity are
PyTorch's; in-place changes through views are recorded (CopySlices) and views see later changes."""

import numpy as np
import pytest

import ember

from ..conftest import assert_close
from .differential import assert_same, raises_like

VIEWS = {
    "select": lambda x: x[1],
    "slice_step": lambda x: x[:, 1::2],
    "none_and_ellipsis": lambda x: x[None, ..., 2],
    "view": lambda x: x.view(4, 3),
    "reshape_contiguous": lambda x: x.reshape(2, 6),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "t": lambda x: x.t(),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.unsqueeze(0).permute(2, 0, 1),
    "squeeze": lambda x: x.unsqueeze(1).squeeze(1),
    "expand": lambda x: x[:1].expand(3, 4),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "diagonal": lambda x: x.diagonal(1),
    "unfold": lambda x: x.unfold(1, 2, 2),
    "split": lambda x: x.split(2)[1],
    "unbind": lambda x: x.unbind(1)[3],
    "movedim": lambda x: x.movedim(1, 0),
    "chained": lambda x: x.t()[1:, ::2].unsqueeze(0),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_metadata_matches_torch(name, torch):
    ours = VIEWS[name](ember.arange(12.0).reshape(3, 4))
    theirs = VIEWS[name](torch.arange(12.0).reshape(3, 4))
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert_close(ours, theirs.numpy())


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_write_through_view_shows_in_base(name):
    base = ember.zeros(3, 4)
    view = VIEWS[name](base)
    if name == "expand":
        view = view[0]  # the expanded view itself overlaps in memory (writes to it are refused)
    assert np.shares_memory(view.numpy(), base.numpy())
    view.fill_(7.0)
    assert (base.numpy() == 7.0).sum() == view.numel()
    assert base._version == view._version == 1
    base.add_(1.0)
    assert view._version == 2 and (view.numpy() == 8.0).all()


def test_data_ptr_and_offsets():
    x = ember.arange(12.0).reshape(3, 4)
    assert x[1].data_ptr() == x.data_ptr() + 4 * x.element_size()
    assert x[1:, 2:].storage_offset() == 6
    assert x.clone().data_ptr() != x.data_ptr()
    assert x.t().contiguous().is_contiguous() and not x.t().is_contiguous()
    assert x.contiguous() is x


@pytest.mark.parametrize(
    "build",
    [
        lambda lib, x: x.view(12),
        lambda lib, x: x.t().reshape(12),  # reshape copies: not a view
        lambda lib, x: x.clone(),
        lambda lib, x: x.t().contiguous(),
        lambda lib, x: x[[0, 1]],
    ],
)
def test_views_versus_copies_match_torch(build, torch):
    ours_base, theirs_base = ember.zeros(3, 4), torch.zeros(3, 4)
    ours, theirs = build(ember, ours_base), build(torch, theirs_base)
    ours.fill_(1.0)
    theirs.fill_(1.0)
    assert_close(ours_base, theirs_base.numpy(), what="base after writing to the result")
    assert (ours._base is ours_base) == (theirs._base is theirs_base)


def test_clone_has_own_memory_and_version():
    x = ember.ones(3)
    y = x.clone()
    y.add_(1)
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0 and y._version == 1


def test_detach_shares_memory_and_version_but_data_does_not_share_version():
    x = ember.ones(3, requires_grad=True)
    detached = x.detach()
    detached.zero_()
    assert x.sum().item() == 0.0 and x._version == 1
    x.data.fill_(2.0)
    assert x.tolist() == [2.0, 2.0, 2.0] and x._version == 1


# ----------------------------------------------------------------------------- in-place through views with autograd
SCENARIOS = {
    "select_mul_": lambda lib, x: _chain(x, lambda y: y[0].mul_(2)),
    "base_changed_after_view": lambda lib, x: _stale(x, lambda y: y.mul_(3), lambda y: y[0]),
    "sibling_view_changed": lambda lib, x: _stale(x, lambda y: y[0].mul_(10), lambda y: y[:, 1]),
    "nested_view_changed": lambda lib, x: _nested(x),
    "view_of_view_inplace": lambda lib, x: _chain(x, lambda y: y.t()[1].add_(x[0, :3])),
    "flat_view_zero_": lambda lib, x: _chain(x, lambda y: y.view(12)[3:5].zero_()),
    "diagonal_mul_": lambda lib, x: _chain(x, lambda y: y.diagonal().mul_(3)),
    "setitem_then_view": lambda lib, x: _chain(x, lambda y: y.__setitem__((slice(None), 0), x[:, 1] * x[:, 2])),
    "expand_view_then_base_change": lambda lib, x: _stale(x, lambda y: y.mul_(2), lambda y: y[:1].expand(2, 4)),
    "twice_through_same_view": lambda lib, x: _twice(x),
}


def _chain(x, change):
    y = x * 1.0
    change(y)
    return (y * y).sum()


def _stale(x, change, make_view):
    y = x * 1.0
    view = make_view(y)
    change(y)
    return (view * view).sum()


def _nested(x):
    y = x * 1.0
    outer = y[:2]
    inner = outer[0]
    inner.mul_(2)
    return (outer * outer).sum()


def _twice(x):
    y = x * 1.0
    view = y[1]
    view.mul_(2)
    view.add_(x[2])
    return (y * view.sum()).sum()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_inplace_through_views_gradients_match_torch(name, torch):
    results = []
    for lib in (ember, torch):
        x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        loss = SCENARIOS[name](lib, x)
        loss.backward()
        results.append((loss.item(), x.grad.numpy().copy()))
    assert results[0][0] == pytest.approx(results[1][0])
    assert_close(results[0][1], results[1][1], what=f"{name}: gradient")


def test_copy_slices_node_and_view_grad_fn():
    x = ember.ones(3, 4, requires_grad=True)
    y = x.clone()
    view = y[0]
    y[0] = 2.0
    assert type(y.grad_fn).__name__ == "CopySlices"
    assert view.grad_fn is not None and view.grad_fn.next_functions[0][0] is y.grad_fn


def test_double_backward_through_copy_slices(torch):
    results = []
    for lib in (ember, torch):
        x = lib.arange(1.0, 13.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
        y = x.clone()
        y[0] = x[1] * x[2]
        y[:, 1].mul_(x[:, 3])
        (grad,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        grad.pow(2).sum().backward()
        results.append(x.grad.numpy().copy())
    assert_close(results[0], results[1])


@pytest.mark.parametrize(
    "change",
    [
        lambda x: x.add_(1),
        lambda x: x[0].add_(1),
        lambda x: x.view(-1).zero_(),
        lambda x: x.t().mul_(2),
        lambda x: x.__setitem__(0, 1.0),
        lambda x: x.__setitem__([0], 1.0),
    ],
)
def test_inplace_on_leaf_or_its_view_raises(change, torch):
    def modify(lib):
        change(lib.ones(3, 4, requires_grad=True))

    error = raises_like(modify, torch)
    assert "leaf" in str(error)


def test_view_created_in_no_grad_refuses_its_grad_fn_once_its_base_changed(torch):
    """Its history is ambiguous then (PyTorch's rule); before any change, it simply has none."""

    def build(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 1.0
        with lib.no_grad():
            view = y[0]
        assert view.grad_fn is None
        y.mul_(2)
        assert "grad_fn=<Invalid>" in repr(view)
        view.grad_fn

    raises_like(build, torch, "A view was created in no_grad mode and its base or another view of its base")


def test_view_created_in_no_grad_is_not_changed_in_place_with_grad_mode_on(torch):
    def build(lib):
        y = lib.ones(3, requires_grad=True) * 1.0
        with lib.no_grad():
            view = y[:2]
            view.add_(1)  # inside no_grad: allowed, not recorded
        view.add_(1)

    raises_like(build, torch, "A view was created in no_grad mode and is being modified inplace with grad mode")


def test_saved_view_is_checked_against_base_changes(torch):
    def build(lib):
        x = lib.ones(3, 4, requires_grad=True)
        y = x * 1.0
        z = y[0].sin()  # saves the view y[0]
        y.add_(1)
        z.sum().backward()

    raises_like(build, torch, "modified by an inplace operation")


def test_views_of_views_keep_one_base():
    x = ember.zeros(4, 4)
    inner = x[1:].t()[0].unsqueeze(0)
    assert inner._base is x
    inner.fill_(3.0)
    assert x[1:, 0].tolist() == [3.0, 3.0, 3.0]


def test_expand_is_a_stride_zero_view(torch):
    assert_same(lambda lib: lib.ones(3, 1).expand(3, 4).stride(), torch)
    raises_like(lambda lib: lib.ones(3, 1).expand(3, 4).mul_(2), torch, "single memory location")
