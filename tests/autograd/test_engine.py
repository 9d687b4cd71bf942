"""The backward engine: accumulation, roots, autograd.grad options, hooks, deep graphs, memory."""

import gc
import threading
import weakref

import numpy as np
import pytest

import ember as t

from ..conftest import assert_close


def test_gradients_accumulate_across_backward_calls():
    x = t.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert_close(x.grad, [6.0, 6.0])


def test_gradients_meeting_at_one_tensor_are_summed():
    x = t.tensor([2.0], requires_grad=True)
    y = x * x + x.exp() + x
    y.backward()
    assert_close(x.grad, [2 * 2.0 + np.exp(2.0) + 1], rtol=1e-6)


def test_implicit_gradient_only_for_single_element_outputs():
    x = t.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs") as caught:
        (x * 2).backward()
    assert "[2, 3]" in str(caught.value) and ".sum()" in str(caught.value)
    (x * 2).backward(t.ones(2, 3))
    assert_close(x.grad, np.full((2, 3), 2.0))


def test_backward_with_explicit_gradient_weights_it():
    x = t.ones(3, requires_grad=True)
    (x * 2).backward(gradient=t.tensor([1.0, 10.0, 100.0]))
    assert_close(x.grad, [2.0, 20.0, 200.0])


def test_gradient_shape_mismatch_raises():
    x = t.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(t.ones(2))


def test_explicit_gradient_is_not_aliased_into_grad():
    x = t.ones(3, requires_grad=True)
    upstream = t.ones(3)
    (x + 0).backward(upstream)
    x.grad.mul_(5)
    assert_close(upstream, [1.0, 1.0, 1.0])


def test_shared_gradient_is_not_aliased_between_leaves():
    a = t.ones(3, requires_grad=True)
    b = t.ones(3, requires_grad=True)
    (a + b).sum().backward()
    a.grad.zero_()
    assert_close(b.grad, [1.0, 1.0, 1.0])


@pytest.mark.parametrize("cut", ["no input requires grad", "detach", "data", "no_grad", "numpy"])
def test_backward_without_graph_explains_why(cut):
    w = t.ones(2, requires_grad=True)
    if cut == "no input requires grad":
        loss = (t.ones(2) * 2).sum()
    elif cut == "detach":
        loss = (w.detach() * 2).sum()
    elif cut == "data":
        loss = (w.data * 2).sum()
    elif cut == "no_grad":
        with t.no_grad():
            loss = (w * 2).sum()
    else:
        loss = t.tensor((w * 2).detach().numpy()).sum()
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn") as caught:
        loss.backward()
    message = str(caught.value)
    for hint in ("detach()", ".data", "no_grad", "NumPy", "requires_grad=True on the result"):
        assert hint in message


def test_non_leaf_grad_warns_and_retain_grad_keeps_it():
    x = t.ones(2, requires_grad=True)
    y = x * 2
    z = y * 3
    with pytest.warns(UserWarning, match="retain_grad"):
        assert y.grad is None
    y.retain_grad()
    assert y.retains_grad
    z.sum().backward()
    assert_close(y.grad, [3.0, 3.0])


def test_retain_grad_on_leaf_is_a_no_op():
    x = t.ones(2, requires_grad=True)
    x.retain_grad()
    (x * 2).sum().backward()
    assert_close(x.grad, [2.0, 2.0])


def test_tensor_hook_can_replace_the_gradient_and_be_removed():
    x = t.ones(2, requires_grad=True)
    y = x * 2
    seen = []
    handle = y.register_hook(lambda grad: (seen.append(grad.clone()), grad * 10)[1])
    y.sum().backward()
    assert_close(seen[0], [1.0, 1.0])
    assert_close(x.grad, [20.0, 20.0])
    handle.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert_close(x.grad, [2.0, 2.0])


def test_hook_on_leaf_runs_before_accumulation():
    x = t.ones(2, requires_grad=True)
    x.register_hook(lambda grad: grad * 0.5)
    (x * 4).sum().backward()
    assert_close(x.grad, [2.0, 2.0])


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        t.ones(1).register_hook(lambda g: g)


def test_node_hooks_and_prehooks():
    x = t.ones(2, requires_grad=True)
    y = x * 3
    calls = []
    y.grad_fn.register_prehook(lambda grad_outputs: calls.append(("pre", grad_outputs[0].tolist())))
    post = y.grad_fn.register_hook(
        lambda grad_inputs, grad_outputs: (calls.append(("post", grad_inputs[0].tolist())), (grad_inputs[0] * 2, None))[
            1
        ]
    )
    y.sum().backward(retain_graph=True)
    assert calls == [("pre", [1.0, 1.0]), ("post", [3.0, 3.0])]
    assert_close(x.grad, [6.0, 6.0])
    post.remove()
    y.sum().backward()
    assert_close(x.grad, [9.0, 9.0])


def test_grad_returns_without_touching_dot_grad():
    x = t.ones(2, requires_grad=True)
    w = t.ones(2, requires_grad=True)
    (gx,) = t.autograd.grad((x * w * 3).sum(), x)
    assert_close(gx, [3.0, 3.0])
    assert x.grad is None and w.grad is None


def test_grad_unused_input_rules():
    x = t.ones(2, requires_grad=True)
    unused = t.ones(2, requires_grad=True)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        t.autograd.grad(y, [x, unused], retain_graph=True)
    gx, gu = t.autograd.grad(y, [x, unused], allow_unused=True, retain_graph=True)
    assert gu is None
    gx, gu = t.autograd.grad(y, [x, unused], materialize_grads=True)
    assert_close(gu, [0.0, 0.0])


def test_grad_of_non_leaf_and_with_grad_outputs():
    x = t.ones(3, requires_grad=True)
    h = x * 2
    y = h**2
    (gh,) = t.autograd.grad(y, h, grad_outputs=t.tensor([1.0, 2.0, 3.0]))
    assert_close(gh, [4.0, 8.0, 12.0])


def test_grad_input_that_does_not_require_grad_raises():
    x = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="does not require grad"):
        t.autograd.grad((x * 2).sum(), t.ones(2))


def test_grad_skips_branches_that_do_not_lead_to_inputs():
    class Exploding(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            raise AssertionError("this branch does not lead to the requested input")

    a = t.ones(2, requires_grad=True)
    b = t.ones(2, requires_grad=True)
    y = (a * 2 + Exploding.apply(b)).sum()
    (ga,) = t.autograd.grad(y, a)
    assert_close(ga, [2.0, 2.0])


def test_backward_inputs_limits_accumulation():
    a = t.ones(2, requires_grad=True)
    b = t.ones(2, requires_grad=True)
    (a * b * 2).sum().backward(inputs=[a])
    assert_close(a.grad, [2.0, 2.0])
    assert b.grad is None


def test_autograd_backward_with_several_roots_and_grad_variables():
    x = t.ones(2, requires_grad=True)
    t.autograd.backward([(x * 2).sum(), (x * 3).sum()])
    assert_close(x.grad, [5.0, 5.0])
    x.grad = None
    with pytest.warns(DeprecationWarning, match="grad_variables"):
        t.autograd.backward([x * 2], grad_variables=[t.ones(2)])
    assert_close(x.grad, [2.0, 2.0])


def test_higher_order_through_several_levels():
    x = t.tensor([1.5], dtype=t.float64, requires_grad=True)
    y = x**4
    (first,) = t.autograd.grad(y, x, create_graph=True)
    (second,) = t.autograd.grad(first, x, create_graph=True)
    (third,) = t.autograd.grad(second, x)
    assert_close(first, [4 * 1.5**3])
    assert_close(second, [12 * 1.5**2])
    assert_close(third, [24 * 1.5])


def test_create_graph_backward_keeps_graph_in_dot_grad():
    x = t.tensor([2.0], requires_grad=True)
    (x**3).backward(create_graph=True)
    assert x.grad.requires_grad
    (grad_of_grad,) = t.autograd.grad(x.grad, x)
    assert_close(grad_of_grad, [12.0])


def test_chain_of_100000_ops_backpropagates():
    x = t.ones(1, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert_close(x.grad, [1.0])


def test_dropped_graph_is_freed_without_the_cycle_collector():
    gc.collect()
    gc.disable()
    try:
        x = t.randn(1000, requires_grad=True)
        y = (x.exp() * x).tanh().sum()
        node = weakref.ref(y.grad_fn)
        output = weakref.ref(y)
        del y
        assert node() is None and output() is None
        z = (x.sigmoid() * 2).sum()
        saved = weakref.ref(z.grad_fn.next_functions[0][0])
        z.backward()
        del z
        assert saved() is None
    finally:
        gc.enable()


def test_saved_outputs_do_not_keep_tensors_alive():
    gc.collect()
    gc.disable()
    try:
        x = t.randn(10, requires_grad=True)
        y = x.exp()
        node = y.grad_fn
        alive = weakref.ref(y)
        del y
        assert alive() is None
        (saved,) = node.saved_tensors
        assert saved.grad_fn is node
    finally:
        gc.enable()


def test_grad_mode_switches_are_context_managers_and_decorators():
    x = t.ones(1, requires_grad=True)
    with t.no_grad():
        assert not (x * 2).requires_grad
        with t.enable_grad():
            assert (x * 2).requires_grad

    @t.no_grad()
    def under_no_grad():
        return x * 2

    @t.no_grad
    def bare_decorator():
        return x * 2

    @t.inference_mode()
    def inference():
        return t.is_inference_mode_enabled(), x * 2

    assert not under_no_grad().requires_grad and not bare_decorator().requires_grad
    enabled, result = inference()
    assert enabled and not result.requires_grad and not t.is_inference_mode_enabled()
    with t.set_grad_enabled(False):
        assert not t.is_grad_enabled()
    assert t.is_grad_enabled()
    t.set_grad_enabled(False)
    assert not t.is_grad_enabled()
    t.set_grad_enabled(True)


def test_grad_mode_is_thread_local():
    results = []
    with t.no_grad():
        thread = threading.Thread(target=lambda: results.append(t.is_grad_enabled()))
        thread.start()
        thread.join()
    assert results == [True]


def test_detach_shares_memory_and_version_but_not_history():
    x = t.ones(2, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    d.add_(1)
    assert_close(y.detach(), [3.0, 3.0])
    assert y._version == 1


def test_data_has_its_own_version_counter():
    x = t.ones(2, requires_grad=True)
    y = x.exp()
    y.data.mul_(2)
    assert y._version == 0
    y.sum().backward()  # not detected, as in PyTorch: .data bypasses autograd's checks


def test_detach_in_place():
    x = t.ones(2, requires_grad=True)
    y = x * 2
    y.detach_()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf


def test_in_place_on_leaf_requiring_grad_is_refused():
    x = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[0].mul_(2)
    with t.no_grad():
        x.add_(1)
    assert_close(x.detach(), [2.0, 2.0])


@pytest.mark.parametrize(
    "operation",
    [
        lambda y: y.add_(1),
        lambda y: y.sub_(1),
        lambda y: y.mul_(2),
        lambda y: y.div_(2),
        lambda y: y.zero_(),
        lambda y: y.fill_(3.0),
        lambda y: y.copy_(t.ones(3)),
        lambda y: y.clamp_(0, 1),
        lambda y: y.__setitem__(0, 5.0),
    ],
)
def test_in_place_ops_bump_the_version(operation):
    x = t.ones(3, requires_grad=True)
    y = x * 1
    before = y._version
    operation(y)
    assert y._version == before + 1


def test_in_place_on_non_leaf_rebases_history():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.mul_(y)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert_close(x.grad, [8.0, 16.0])


def test_requires_grad_rules():
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        t.tensor([1, 2]).requires_grad_()
    x = t.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    assert x.is_leaf and not y.is_leaf and t.ones(2).is_leaf


def test_engine_matches_torch_on_a_small_graph(torch):
    values = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    ours, theirs = t.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    for lib, x in ((t, ours), (torch, theirs)):
        h = (x @ x.t()).tanh() * x.sigmoid()
        (h.exp().sum() + (h * h).mean()).backward()
    assert_close(ours.grad, theirs.grad.numpy(), rtol=1e-5)


def test_inplace_on_a_leaf_error_starts_with_pytorchs_sentence(torch):
    messages = []
    for library in (t, torch):
        leaf = library.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError) as caught:
            leaf.sin_()
        messages.append(str(caught.value))
    ours, theirs = messages
    assert ours.startswith(theirs) and "sin_" in ours, (ours, theirs)


@pytest.mark.parametrize(
    "make, second_order",
    [
        (lambda x: x * x.detach(), None),  # d/dx (x * c) = c: a constant, nothing to differentiate
        (lambda x: x.detach() * x, None),
        (lambda x: x.detach() ** x, lambda x: np.log(x) ** 2 * x**x),
        (lambda x: t.addcmul(x, x.detach(), x) * x, lambda x: 2 * x + 2),
    ],
)
def test_saved_input_sharing_an_array_with_a_detached_one_keeps_its_own_history(make, second_order):
    # x and x.detach() hold one array: what the kernel saved must map back to the tensor it came from.
    x = t.tensor([1.0, 2.0, 3.0], dtype=t.float64, requires_grad=True)
    (grad,) = t.autograd.grad(make(x).sum(), x, create_graph=True)
    if second_order is None:
        assert not grad.requires_grad
        assert_close(grad, x.detach())
    else:
        (second,) = t.autograd.grad(grad.sum(), x)
        assert_close(second, second_order(x.detach().numpy()))


def test_two_leaves_on_one_numpy_array_keep_separate_second_order_paths():
    array = np.array([1.0, 2.0])
    first, second = t.from_numpy(array).requires_grad_(), t.from_numpy(array).requires_grad_()
    grad_first, _ = t.autograd.grad((first * second).sum(), (first, second), create_graph=True)
    unused, through_second = t.autograd.grad(grad_first.sum(), (first, second), allow_unused=True)
    assert unused is None
    assert_close(through_second, np.ones(2))


def test_summed_zero_dim_gradients_stay_arrays():
    # Two 0-d gradients that the engine does not own are summed into a new array; NumPy gives a
    # scalar for that sum, which a later array-level backward (SumToSize's) could not use.
    seen = []

    class Spy(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            seen.append(grad.numpy())
            return grad

    x = t.tensor(2.0, requires_grad=True)
    doubled = Spy.apply(x)
    (doubled + doubled).backward()
    assert type(seen[0]) is np.ndarray and seen[0].shape == ()
    assert_close(x.grad, 2.0)


def test_complex_grad_output_for_a_real_output_is_refused_as_in_pytorch():
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (t, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError) as error:
            lib.autograd.grad(x.sin(), x, grad_outputs=lib.ones(2, dtype=lib.complex64))
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_hand_built_gradient_edge_as_output_needs_its_gradient():
    x = t.tensor([1.0, 2.0], requires_grad=True)
    middle = x.sin()
    edge = t.autograd.graph.GradientEdge(middle.grad_fn, 0)
    with pytest.raises(RuntimeError, match="get_gradient_edge"):
        t.autograd.grad(edge, x)
    (grad,) = t.autograd.grad(edge, x, grad_outputs=t.ones(2))
    assert_close(grad, np.cos([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="It is not possible to get the gradient edge"):
        t.autograd.graph.get_gradient_edge(t.ones(1))


def test_multithreading_switch_works_as_call_block_and_decorator():
    autograd = t.autograd
    assert autograd.is_multithreading_enabled()
    with autograd.set_multithreading_enabled(False):
        assert not autograd.is_multithreading_enabled()
    assert autograd.is_multithreading_enabled()

    @autograd.set_multithreading_enabled(False)
    def inside():
        return autograd.is_multithreading_enabled()

    assert autograd.is_multithreading_enabled() and not inside() and autograd.is_multithreading_enabled()
    autograd.set_multithreading_enabled(False)
    try:
        assert not autograd.is_multithreading_enabled()
        x = t.ones(2, requires_grad=True)
        (x * 3).sum().backward()  # the engine runs as before
        assert x.grad.tolist() == [3.0, 3.0]
    finally:
        autograd.set_multithreading_enabled(True)


def _queue_callback_story(library):
    """What `Variable._execution_engine.queue_callback` does around one backward, as a list."""
    engine, story = library.autograd.Variable._execution_engine, []
    try:
        engine.queue_callback(lambda: None)
    except RuntimeError as error:
        story.append(str(error))

    class Queue(library.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            # FIFO, and one queued by a callback runs before backward returns
            engine.queue_callback(lambda: (story.append(1), engine.queue_callback(lambda: story.append(3))))
            engine.queue_callback(lambda: story.append(2))
            # after the whole pass: in its grad mode, with .grad filled (a non-leaf `inputs` one too)
            engine.queue_callback(lambda: story.append((library.is_grad_enabled(), middle.grad.tolist())))
            if fail:
                raise ValueError("the callbacks of a failed pass are dropped")
            return grad

    for create_graph, fail in ((False, False), (True, False), (False, True)):
        leaf = library.ones(2, requires_grad=True)
        middle = leaf * 2
        middle.register_hook(lambda grad: engine.queue_callback(lambda: story.append("hook")))
        try:
            Queue.apply(middle).sum().backward(inputs=[middle], create_graph=create_graph)
        except ValueError as error:
            story.append(str(error))
    return story


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_queue_callback_runs_once_the_backward_pass_is_done(torch):
    ours, theirs = _queue_callback_story(t), _queue_callback_story(torch)
    assert ours == theirs, (ours, theirs)
    assert theirs[0] == "Final callbacks can only be installed during backward pass."
    assert theirs[1:6] == [1, 2, (False, [1.0, 1.0]), "hook", 3]
