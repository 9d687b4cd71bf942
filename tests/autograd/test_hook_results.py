"""A gradient hook that returns the wrong thing is named in the error (PyTorch's classes), and
autograd.grad names the unused input. Differential with torch where installed."""

import pytest

import ember


def _run(library, hook, where):
    """Backward through `x * 2` with `hook` on the output (`nonleaf`), on `x` (`leaf`), or as the node's
    prehook / posthook; returns (exception class name, message) or ('ok', grad dtype, grad shape)."""
    x = library.ones(2, requires_grad=True)
    y = x * 2
    if where == "nonleaf":
        y.register_hook(hook)
    elif where == "leaf":
        x.register_hook(hook)
    elif where == "prehook":
        y.grad_fn.register_prehook(hook)
    else:
        y.grad_fn.register_hook(hook)
    try:
        y.sum().backward()
    except Exception as error:  # noqa: BLE001  (the class is what is compared)
        return type(error).__name__, str(error)
    return "ok", str(x.grad.dtype), list(x.grad.shape)


def wrong_type_hook(grad):
    return "not a tensor"


def wrong_dtype_hook(grad):
    return grad.double()


def wrong_shape_hook(grad):
    return grad.new_ones(3)


def broadcastable_shape_hook(grad):
    return grad.new_ones(1)


def integer_hook(grad):
    return grad.long()


def scaling_hook(grad):
    return grad * 3


TENSOR_HOOKS = [wrong_type_hook, wrong_dtype_hook, wrong_shape_hook, broadcastable_shape_hook, integer_hook]


@pytest.mark.parametrize("where", ["nonleaf", "leaf"])
@pytest.mark.parametrize("hook", TENSOR_HOOKS, ids=lambda hook: hook.__name__)
def test_tensor_hook_errors_name_the_hook(hook, where):
    name, message = _run(ember, hook, where)[:2]
    expected = "TypeError" if hook is wrong_type_hook else "RuntimeError"
    assert name == expected, f"{hook.__name__} on {where}: {name}: {message}"
    assert hook.__name__ in message and "test_hook_results.py" in message, message
    assert "MulBackward" not in message, message


@pytest.mark.parametrize("where", ["nonleaf", "leaf"])
@pytest.mark.parametrize("hook", TENSOR_HOOKS + [scaling_hook], ids=lambda hook: hook.__name__)
def test_tensor_hooks_match_torch(hook, where):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(ember, hook, where), _run(torch, hook, where)
    assert ours[0] == theirs[0], f"ember {ours}, torch {theirs}"
    if ours[0] == "ok":
        assert ours == theirs


def test_dtype_message_is_pytorchs():
    with pytest.raises(
        RuntimeError,
        match=r"hook 'wrong_dtype_hook' has changed the type of value \(was "
        r"torch.FloatTensor got torch.DoubleTensor\)",
    ):
        x = ember.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(wrong_dtype_hook)
        y.sum().backward()


@pytest.mark.parametrize(
    "hook",
    [
        lambda grads: ("s",),
        lambda grads: (grads[0].new_ones(3),),
        lambda grads: (grads[0].double(),),
        lambda grads: (grads[0], grads[0]),
    ],
    ids=["type", "shape", "dtype", "count"],
)
def test_node_prehook_results_are_checked(hook):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(ember, hook, "prehook"), _run(torch, hook, "prehook")
    assert ours[0] == theirs[0], f"ember {ours}, torch {theirs}"
    assert "hook '<lambda>'" in ours[1], ours[1]


@pytest.mark.parametrize(
    "hook",
    [
        lambda inputs, outputs: ("s",),
        lambda inputs, outputs: (inputs[0].double(), None),
        lambda inputs, outputs: (inputs[0].new_ones(3), None),
    ],
    ids=["count", "dtype", "shape"],
)
def test_node_posthook_results_are_checked(hook):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(ember, hook, "posthook"), _run(torch, hook, "posthook")
    assert ours[0] == theirs[0], f"ember {ours}, torch {theirs}"
    assert "<lambda>" in ours[1], ours[1]


def test_unused_input_is_named_by_position_with_the_remedy():
    a, b, c = (ember.ones(2, requires_grad=True) for _ in range(3))
    with pytest.raises(RuntimeError, match=r"at index 2 appears to not have been used.*allow_unused=True"):
        ember.autograd.grad((a * 2 + b).sum(), [a, b, c])


def test_unused_input_message_matches_torch():
    torch = pytest.importorskip("torch")
    messages = []
    for library in (torch, ember):
        a, b = library.ones(2, requires_grad=True), library.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError) as error:
            library.autograd.grad((a * 2).sum(), [a, b])
        messages.append(str(error.value))
    assert messages[1].startswith(messages[0].split(" appears")[0]), messages
    assert ember.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)[1] is None
