"""Chapter 3.2 of 深度学习框架PyTorch：入门与实践 (Chen Yun, chenyuntc/pytorch-book): autograd.

Every code cell of `chapter3-Tensor和autograd/Autograd.ipynb` (the PyTorch 0.3 edition with
`Variable`, `volatile` and `saved_variables`, and the 0.4 edition) and of the newer edition's
section 3.3, as a reader types it with `import ember as t`. Each cell is written once as
`cell(t)`; `same_as_torch` runs it with ember and with torch 2.13 and compares results, prints,
reprs (including `grad_fn=<...>`) and exceptions, and the test asserts what the book shows. Random
inputs are replaced by fixed numbers so that the two libraries see the same values.
"""

import warnings

import numpy as np
import pytest

import ember as t

from .compare import raises_like_torch, same_as_torch

RANDN_3x4 = np.array([[0.1, -0.5, 1.2, 2.0], [-1.0, 0.3, 0.0, 1.5], [0.7, -2.0, 0.9, -0.1]], dtype=np.float32)


def _deprecations_ignored(cell):
    """A 0.3-era cell: run it with the book-era warnings silenced (they are tested separately)."""

    def run(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return cell(t)

    return run


# ---------------------------------------------------------------------------- 3.2.1 requires_grad
def test_three_ways_to_require_grad(torch):
    def cell(t):
        a = t.randn(3, 4, requires_grad=True)  # 在创建tensor的时候指定requires_grad
        first = a.requires_grad
        a = t.randn(3, 4).requires_grad_()
        second = a.requires_grad
        a = t.randn(3, 4)
        a.requires_grad = True
        return first, second, a.requires_grad, a.is_leaf, a.grad_fn

    assert same_as_torch(cell, torch) == (True, True, True, True, None)


def test_add_sum_backward(torch):
    def cell(t):
        a = t.tensor(RANDN_3x4, requires_grad=True)
        b = t.zeros(3, 4).requires_grad_()
        c = a.add(b)  # 也可写成c = a + b
        d = c.sum()
        d.backward()  # 反向传播
        return (
            c,
            d,
            d.requires_grad,
            a.grad,
            (a.requires_grad, b.requires_grad, c.requires_grad),
            (a.is_leaf, b.is_leaf, c.is_leaf),
            c.grad is None,
        )

    c, d, d_requires, a_grad, requires, leaves, no_grad = same_as_torch(cell, torch)
    assert repr(d) == "tensor(3.1000, grad_fn=<SumBackward0>)" and d_requires
    assert a_grad.tolist() == [[1.0] * 4] * 3
    assert requires == (True, True, True) and leaves == (True, True, False) and no_grad


def test_new_edition_sum_then_backward(torch):
    def cell(t):
        a = t.tensor(RANDN_3x4)
        a.requires_grad = True
        b = t.zeros(3, 4).requires_grad_()
        c = (a + b).sum()
        c.backward()
        return c, a.grad, (a.requires_grad, b.requires_grad, c.requires_grad), (a.is_leaf, b.is_leaf, c.is_leaf)

    same_as_torch(cell, torch)


def test_leaf_tensors(torch):
    def cell(t):
        a = t.rand(10, requires_grad=True)
        c = t.rand(10, requires_grad=True) + 2
        d = t.rand(10)
        e = t.rand(10).requires_grad_()
        return a.is_leaf, c.is_leaf, d.requires_grad, d.is_leaf, e.is_leaf

    assert same_as_torch(cell, torch) == (True, False, False, True, True)


def test_leaf_moved_to_cuda_is_outside_embers_scope():
    pytest.skip("`t.rand(10, requires_grad=True).cuda(0)` (a non-leaf made by the copy to the GPU) needs CUDA")


def test_autograd_matches_the_hand_written_derivative(torch):
    def cell(t):
        def f(x):
            """计算y"""
            return x**2 * t.exp(x)

        def gradf(x):
            """手动求导函数"""
            return 2 * x * t.exp(x) + x**2 * t.exp(x)

        x = t.tensor(RANDN_3x4, requires_grad=True)  # book: t.randn(3, 4, requires_grad=True)
        y = f(x)
        y.backward(t.ones(y.size()))  # gradient形状与y一致
        return y, x.grad, gradf(x), t.allclose(x.grad, gradf(x))

    y, grad, by_hand, close = same_as_torch(cell, torch, rtol=1e-5)
    assert close is True
    assert repr(y).endswith("grad_fn=<MulBackward0>)")
    assert np.allclose(grad.numpy(), by_hand.detach().numpy())


def test_new_edition_asserts_exact_equality():
    # assert t.all(x.grad == gradf(x)): autograd computes exactly the hand-written formula here
    x = t.tensor(RANDN_3x4, requires_grad=True)
    y = x**2 * t.exp(x)
    y.backward(t.ones(y.size()))
    assert bool(t.all(x.grad == 2 * x * t.exp(x) + x**2 * t.exp(x)))


# ---------------------------------------------------------------------------- 3.2.2 the graph
def _graph(t):
    x = t.ones(1)
    b = t.tensor([0.25], requires_grad=True)  # book: t.rand(1, requires_grad=True)
    w = t.tensor([0.5], requires_grad=True)
    y = w * x  # 等价于y=w.mul(x)
    z = y + b  # 等价于z=y.add(b)
    return x, b, w, y, z


def _names(next_functions):
    return tuple((type(node).__name__ if node is not None else None, index) for node, index in next_functions)


def test_requires_grad_and_leaves_of_the_graph(torch):
    def cell(t):
        x, b, w, y, z = _graph(t)
        return (
            (x.requires_grad, b.requires_grad, w.requires_grad),
            y.requires_grad,
            (x.is_leaf, w.is_leaf, b.is_leaf),
            (y.is_leaf, z.is_leaf),
            z,
        )

    x_b_w, y_requires, leaves, non_leaves, z = same_as_torch(cell, torch)
    assert x_b_w == (False, True, True) and y_requires is True
    assert leaves == (True, True, True) and non_leaves == (False, False)
    assert repr(z) == "tensor([0.7500], grad_fn=<AddBackward0>)"


def test_grad_fn_and_next_functions(torch):
    def cell(t):
        x, b, w, y, z = _graph(t)
        return (
            type(z.grad_fn).__name__,
            z.grad_fn.name(),
            _names(z.grad_fn.next_functions),
            z.grad_fn.next_functions[0][0] == y.grad_fn,
            _names(y.grad_fn.next_functions),
            (w.grad_fn, x.grad_fn),
            z.grad_fn.next_functions[1][0].variable is b,
        )

    name, node_name, z_next, is_y, y_next, leaves, variable = same_as_torch(cell, torch)
    assert name == node_name == "AddBackward0"  # 0.4 printed AddBackward1, 0.3 AddBackward
    assert z_next == (("MulBackward0", 0), ("AccumulateGrad", 0))
    assert is_y is True and y_next == (("AccumulateGrad", 0), (None, 0))
    assert leaves == (None, None) and variable is True


def test_grad_fn_repr(torch):
    def cell(t):
        _, _, _, _, z = _graph(t)
        return repr(z.grad_fn).split(" object at ")[0], repr(z.grad_fn.next_functions[1][0]).split(" object at ")[0]

    same_as_torch(cell, torch)


def test_retain_graph_and_accumulation(torch):
    def cell(t):
        x, b, w, y, z = _graph(t)
        z.backward(retain_graph=True)  # 使用retain_graph来保存buffer
        first = w.grad.clone()
        z.backward()  # 多次反向传播，梯度累加，这也就是w中AccumulateGrad标识的含义
        return first, w.grad, b.grad, x.grad

    first, second, b_grad, x_grad = same_as_torch(cell, torch)
    assert repr(first) == "tensor([1.])" and repr(second) == "tensor([2.])"
    assert b_grad.tolist() == [2.0] and x_grad is None


def test_second_backward_without_retain_graph_raises(torch):
    def cell(t):
        _, _, _, _, z = _graph(t)
        z.backward()
        z.backward()

    error = raises_like_torch(cell, torch)
    assert "second time" in str(error)


def test_saved_variables_of_the_0_3_edition(torch):
    # 0.3: y.grad_fn.saved_variables -> (w, x); freed after backward, then "会报错".
    x, b, w, y, z = _graph(t)
    with pytest.warns(DeprecationWarning):
        saved = y.grad_fn.saved_variables

    def reference(torch):
        _, _, _, y, _ = _graph(torch)
        return y.grad_fn._saved_self, y.grad_fn._saved_other  # PyTorch 2 saves only what it needs

    expected = reference(torch)
    assert len(saved) == 2 and saved[0] is None and expected[0] is None
    assert t.equal(saved[1], t.tensor(expected[1].numpy()))
    z.backward()
    with pytest.raises(RuntimeError, match="freed"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y.grad_fn.saved_variables


def test_dynamic_graph_with_python_control_flow(torch):
    def cell(t):
        def abs(x):
            if x.data[0] > 0:
                return x
            else:
                return -x

        x = t.ones(1, requires_grad=True)
        y = abs(x)
        y.backward()
        positive = x.grad
        x = -1 * t.ones(1)
        x = x.requires_grad_()
        y = abs(x)
        y.backward()
        print(x.grad)
        return positive, x.grad

    positive, negative = same_as_torch(cell, torch)
    assert positive.tolist() == [1.0] and negative.tolist() == [-1.0]


def test_product_of_positive_elements(torch):
    def cell(t):
        def f(x):
            result = 1
            for ii in x:
                if ii.item() > 0:
                    result = ii * result
            return result

        x = t.arange(-2, 4).float().requires_grad_()  # new edition; 0.4: t.arange(-2,4,requires_grad=True)
        y = f(x)  # y = x[3]*x[4]*x[5]
        y.backward()
        return y, x.grad

    y, grad = same_as_torch(cell, torch)
    assert repr(grad) == "tensor([0., 0., 0., 6., 3., 2.])" and y.item() == 6


def test_integer_tensors_cannot_require_grad(torch):
    # 0.4 cells `t.arange(-2,4,requires_grad=True)`, `t.arange(0,3, requires_grad=True)` and
    # `t.tensor([5], requires_grad=True)` made float tensors then; PyTorch 2's are int64 and refuse.
    raises_like_torch(lambda t: t.arange(-2, 4, requires_grad=True), torch)
    raises_like_torch(lambda t: t.arange(0, 3, requires_grad=True), torch)
    raises_like_torch(lambda t: t.tensor([5], requires_grad=True), torch)
    raises_like_torch(lambda t: t.arange(0, 3).requires_grad_(), torch)


def test_0_3_product_with_data_indexing(torch):
    # 0.3: `if ii.data[0]>0` on 0-d elements: indexing a 0-d tensor is an IndexError in PyTorch 2
    def cell(t):
        x = t.arange(-2, 4).float().requires_grad_()
        for ii in x:
            ii.data[0]

    raises_like_torch(cell, torch)


# ---------------------------------------------------------------------------- no_grad
def test_no_grad_and_set_grad_enabled(torch):
    def cell(t):
        x = t.ones(1, requires_grad=True)
        w = t.rand(1, requires_grad=True)
        y = x * w
        enabled = (x.requires_grad, w.requires_grad, y.requires_grad)
        with t.no_grad():
            x = t.ones(1)
            w = t.rand(1, requires_grad=True)
            y = x * w
        in_no_grad = (x.requires_grad, w.requires_grad, y.requires_grad)
        t.set_grad_enabled(False)  # 更改了默认设置
        try:
            x = t.ones(1)
            w = t.rand(1, requires_grad=True)
            y = x * w
            disabled = (x.requires_grad, w.requires_grad, y.requires_grad, t.is_grad_enabled())
        finally:
            restored = t.set_grad_enabled(True)  # 恢复默认配置
        return enabled, in_no_grad, disabled, type(restored).__name__, t.is_grad_enabled()

    enabled, in_no_grad, disabled, restored, now = same_as_torch(cell, torch)
    assert enabled == (True, True, True)
    assert in_no_grad == (False, True, False) and disabled == (False, True, False, False)
    assert restored == "set_grad_enabled" and now is True


def test_no_grad_as_decorator(torch):
    def cell(t):
        @t.no_grad()
        def doubled(x):
            return x * 2

        return doubled(t.ones(2, requires_grad=True))

    assert same_as_torch(cell, torch).requires_grad is False


# ---------------------------------------------------------------------------- .data versus detach()
def test_data_is_outside_the_graph(torch):
    def cell(t):
        a = t.ones(3, 4, requires_grad=True)
        b = t.ones(3, 4, requires_grad=True)
        c = a * b
        data = a.data  # 还是一个tensor
        d = a.data.sigmoid_()  # sigmoid_ 是个inplace操作，会修改a自身的值
        c.sum().backward()  # not seen by autograd: no error
        return data, data.requires_grad, d.requires_grad, a, a.requires_grad, b.grad

    data, data_requires, d_requires, a, a_requires, b_grad = same_as_torch(cell, torch)
    assert data_requires is False and d_requires is False and a_requires is True
    assert a[0, 0].item() == pytest.approx(0.7311, abs=1e-4)


def test_detach_shares_memory_and_version(torch):
    def cell(t):
        a = t.ones(3, 4, requires_grad=True)
        b = t.ones(3, 4, requires_grad=True)
        a * b  # (the book computes c = a * b here; only a is used below)
        tensor = a.detach()  # 近似于 tensor=a.data, 但是如果tensor被修改，backward可能会报错
        mean, std, maximum = tensor.mean(), tensor.std(), tensor.max()  # 统计tensor的一些指标
        tensor[0] = 1
        return tensor.requires_grad, mean, std, maximum, a._version

    requires, mean, std, maximum, version = same_as_torch(cell, torch)
    assert requires is False and mean.item() == 1 and std.item() == 0 and version == 1


def test_backward_after_changing_a_detached_tensor_raises(torch):
    def cell(t):
        a = t.ones(3, 4, requires_grad=True)
        b = t.ones(3, 4, requires_grad=True)
        c = a * b
        tensor = a.detach()
        tensor[0] = 1
        # RuntimeError: one of the variables needed for gradient computation has been modified by an
        # inplace operation
        c.sum().backward()

    error = raises_like_torch(cell, torch)
    assert "modified by an inplace operation" in str(error)


# ---------------------------------------------------------------------------- grads of non-leaves
def test_non_leaf_grad_is_none(torch):
    def cell(t):
        x = t.ones(3, requires_grad=True)
        w = t.tensor([0.2709, 0.0473, 0.5052], requires_grad=True)  # book: t.rand(3, requires_grad=True)
        y = x * w
        z = y.sum()
        requires = (x.requires_grad, w.requires_grad, y.requires_grad)
        z.backward()  # 非叶子节点grad计算完之后自动清空，y.grad是None
        return requires, (x.grad, w.grad, y.grad)

    requires, grads = same_as_torch(cell, torch)
    assert requires == (True, True, True)
    assert repr(grads[0]) == "tensor([0.2709, 0.0473, 0.5052])" and grads[2] is None


def test_autograd_grad_of_an_intermediate(torch):
    def cell(t):
        x = t.ones(3, requires_grad=True)
        w = t.rand(3, requires_grad=True)
        y = x * w
        z = y.sum()
        return t.autograd.grad(z, y)  # z对y的梯度，隐式调用backward()

    (grad,) = same_as_torch(cell, torch)
    assert repr(grad) == "tensor([1., 1., 1.])"


def test_tensor_hook_prints_the_gradient(torch):
    def cell(t):
        def variable_hook(grad):  # hook是一个函数，输入是梯度，不应该有返回值
            print("y的梯度：", grad)

        x = t.ones(3, requires_grad=True)
        w = t.rand(3, requires_grad=True)
        y = x * w
        hook_handle = y.register_hook(variable_hook)  # 注册hook
        z = y.sum()
        z.backward()
        hook_handle.remove()  # 除非你每次都要用hook，否则用完之后记得移除hook
        (x * w).sum().backward()  # removed: prints nothing
        print("y的梯度： \r\n", t.ones(3))  # the 0.3 edition's print
        return x.grad.shape

    same_as_torch(cell, torch)


def test_hook_can_replace_the_gradient(torch):
    def cell(t):
        x = t.ones(3, requires_grad=True)
        y = x * 2
        y.register_hook(lambda grad: grad * 10)
        y.sum().backward()
        return x.grad

    assert same_as_torch(cell, torch).tolist() == [20.0, 20.0, 20.0]


def test_backward_from_z_equals_backward_from_y(torch):
    def cell(t):
        x = t.arange(0, 3).float().requires_grad_()  # 0.4: t.arange(0,3, requires_grad=True)
        y = x**2 + x * 2
        z = y.sum()
        z.backward()  # 从z开始反向传播
        from_z = x.grad
        x = t.arange(0, 3).float().requires_grad_()
        y = x**2 + x * 2
        z = y.sum()
        y_gradient = t.Tensor([1, 1, 1])  # dz/dy
        y.backward(y_gradient)  # 从y开始反向传播
        return from_z, x.grad

    from_z, from_y = same_as_torch(cell, torch)
    assert repr(from_z) == repr(from_y) == "tensor([2., 4., 6.])"


def test_backward_of_non_scalar_needs_gradient(torch):
    def cell(t):
        x = t.ones(3, requires_grad=True)
        (x * 2).backward()

    error = raises_like_torch(cell, torch)
    assert "scalar" in str(error)


# ---------------------------------------------------------------------------- 3.2.3 Function
def _multiply_add(t):
    class MultiplyAdd(t.autograd.Function):
        @staticmethod
        def forward(ctx, w, x, b):
            print("type in forward", type(x).__name__)
            ctx.save_for_backward(w, x)  # 记录中间值
            output = w * x + b
            return output

        @staticmethod
        def backward(ctx, grad_output):
            w, x = ctx.saved_tensors  # 取出中间值
            print("type in backward", type(x).__name__)
            grad_w = grad_output * x
            grad_x = grad_output * w
            grad_b = grad_output * 1
            return grad_w, grad_x, grad_b

    return MultiplyAdd


def test_multiply_add_backward(torch):
    def cell(t):
        MultiplyAdd = _multiply_add(t)
        x = t.ones(1)
        w = t.tensor([0.1563], requires_grad=True)  # book: t.rand(1, requires_grad=True)
        b = t.tensor([0.5], requires_grad=True)
        print("开始前向传播")
        z = MultiplyAdd.apply(w, x, b)
        print("开始反向传播")
        z.backward()
        # x不需要求导，中间过程还是会计算它的导数，但随后被清空
        return z, x.grad, w.grad, b.grad

    z, x_grad, w_grad, b_grad = same_as_torch(cell, torch)
    assert repr(z) == "tensor([0.6563], grad_fn=<MultiplyAddBackward>)"
    assert (x_grad, repr(w_grad), repr(b_grad)) == (None, "tensor([1.])", "tensor([1.])")


def test_grad_fn_apply_calls_backward(torch):
    def cell(t):
        MultiplyAdd = _multiply_add(t)
        x = t.ones(1)
        w = t.tensor([0.3763], requires_grad=True)
        b = t.tensor([0.5], requires_grad=True)
        z = MultiplyAdd.apply(w, x, b)
        # 调用MultiplyAdd.backward, 输出grad_w, grad_x, grad_b
        return type(z.grad_fn).__name__, z.grad_fn.apply(t.ones(1))

    name, grads = same_as_torch(cell, torch)
    assert name == "MultiplyAddBackward"
    assert repr(grads) == "(tensor([1.]), tensor([0.3763], grad_fn=<MulBackward0>), tensor([1.]))"


def test_0_3_multiply_add_with_saved_variables():
    # 0.3: `w, x = ctx.saved_variables` (deprecated spelling of saved_tensors; gone from PyTorch 2)
    class MultiplyAdd(t.autograd.Function):
        @staticmethod
        def forward(ctx, w, x, b):
            ctx.save_for_backward(w, x)
            return w * x + b

        @staticmethod
        def backward(ctx, grad_output):
            w, x = ctx.saved_variables
            return grad_output * x, grad_output * w, grad_output

    x = t.ones(1)
    w = t.tensor([0.1641], requires_grad=True)
    b = t.tensor([0.5], requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    with pytest.warns(DeprecationWarning, match="saved_tensors"):
        z.backward()
    assert (x.grad, w.grad.tolist(), b.grad.tolist()) == (None, [1.0], [1.0])


def test_mul_with_non_tensor_argument(torch):
    # The book's `Mul` (markdown): a non-tensor forward argument gets None as its gradient.
    def cell(t):
        class Mul(t.autograd.Function):
            @staticmethod
            def forward(ctx, w, x, b, x_requires_grad=True):
                ctx.x_requires_grad = x_requires_grad
                ctx.save_for_backward(w, x)
                output = w * x + b
                return output

            @staticmethod
            def backward(ctx, grad_output):
                w, x = ctx.saved_tensors
                grad_w = grad_output * x
                if ctx.x_requires_grad:
                    grad_x = grad_output * w
                else:
                    grad_x = None
                grad_b = grad_output * 1
                return grad_w, grad_x, grad_b, None

        w = t.tensor([2.0], requires_grad=True)
        x = t.tensor([3.0], requires_grad=True)
        b = t.tensor([1.0], requires_grad=True)
        z = Mul.apply(w, x, b, False)
        z.backward()
        return z, w.grad, x.grad, b.grad

    z, w_grad, x_grad, b_grad = same_as_torch(cell, torch)
    assert z.item() == 7 and w_grad.item() == 3 and x_grad is None and b_grad.item() == 1


def test_second_derivative_of_x_squared(torch):
    def cell(t):
        x = t.tensor([5.0], requires_grad=True)  # 0.4: t.tensor([5], ...) (int64 in PyTorch 2)
        y = x**2
        grad_x = t.autograd.grad(y, x, create_graph=True)  # dy/dx = 2 * x
        grad_grad_x = t.autograd.grad(grad_x[0], x)  # 二阶导数 d(2x)/dx = 2
        return grad_x, grad_grad_x

    grad_x, grad_grad_x = same_as_torch(cell, torch)
    assert repr(grad_x) == "(tensor([10.], grad_fn=<MulBackward0>),)"
    assert repr(grad_grad_x) == "(tensor([2.]),)"


def test_0_3_second_derivative_with_variable(torch):
    @_deprecations_ignored
    def cell(t):
        V = t.autograd.Variable
        x = V(t.Tensor([5]), requires_grad=True)
        y = x**2
        grad_x = t.autograd.grad(y, x, create_graph=True)
        return grad_x, t.autograd.grad(grad_x[0], x)

    same_as_torch(cell, torch)


def _sigmoid(t):
    class Sigmoid(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            output = 1 / (1 + t.exp(-x))
            ctx.save_for_backward(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            (output,) = ctx.saved_tensors
            grad_x = output * (1 - output) * grad_output
            return grad_x

    return Sigmoid


def test_sigmoid_function_passes_gradcheck(torch):
    # 采用数值逼近方式检验计算梯度的公式对不对 (float32 as in the book: both warn, both pass)
    def cell(t):
        test_input = t.tensor(RANDN_3x4, requires_grad=True)  # book: t.randn(3,4, requires_grad=True)
        return t.autograd.gradcheck(_sigmoid(t).apply, (test_input,), eps=1e-3)

    assert same_as_torch(cell, torch) is True
    double = t.tensor(RANDN_3x4, dtype=t.float64, requires_grad=True)
    assert t.autograd.gradcheck(_sigmoid(t).apply, (double,)) and t.autograd.gradgradcheck(_sigmoid(t).apply, (double,))


def test_sigmoid_three_ways_give_the_same_gradient(torch):
    # The book times f_sigmoid, f_naive and f_th with %timeit; here their gradients are compared.
    def cell(t):
        Sigmoid = _sigmoid(t)

        def f_sigmoid(x):
            y = Sigmoid.apply(x)
            y.backward(t.ones(x.size()))

        def f_naive(x):
            y = 1 / (1 + t.exp(-x))
            y.backward(t.ones(x.size()))

        def f_th(x):
            y = t.sigmoid(x)
            y.backward(t.ones(x.size()))

        grads = []
        for function in (f_sigmoid, f_naive, f_th):
            x = t.tensor(np.linspace(-3, 3, 100 * 100, dtype=np.float32).reshape(100, 100), requires_grad=True)
            function(x)
            grads.append(x.grad)
        return tuple(grads)

    custom, naive, builtin = same_as_torch(cell, torch, check_repr=False)
    assert np.allclose(custom.numpy(), builtin.numpy(), atol=1e-6)
    assert np.allclose(naive.numpy(), builtin.numpy(), atol=1e-6)


def test_once_differentiable_backward_on_arrays(torch):
    # The book's note on @once_differentiable: backward may use NumPy, but only once.
    def cell(t):
        from importlib import import_module

        once_differentiable = import_module(t.__name__ + ".autograd.function").once_differentiable

        class Exp(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                result = x.exp()
                ctx.save_for_backward(result)
                return result

            @staticmethod
            @once_differentiable
            def backward(ctx, grad_output):
                (result,) = ctx.saved_tensors
                return t.from_numpy(np.asarray(grad_output) * np.asarray(result))

        x = t.tensor([0.0, 1.0], requires_grad=True)
        Exp.apply(x).sum().backward()
        return x.grad

    same_as_torch(cell, torch)


# ---------------------------------------------------------------------------- 0.3-era Variable, volatile
def test_0_3_variable_cells(torch):
    @_deprecations_ignored
    def cell(t):
        V = t.autograd.Variable
        a = V(t.ones(3, 4), requires_grad=True)  # 从tensor中创建variable，指定需要求导
        b = V(t.zeros(3, 4))
        c = a.add(b)  # 函数的使用与tensor一致
        d = c.sum()
        d.backward()  # 反向传播
        return (
            a,
            b,
            c.data.sum(),
            c.sum(),
            a.grad,
            (a.requires_grad, b.requires_grad, c.requires_grad),
            (a.is_leaf, b.is_leaf, c.is_leaf),
            c.grad is None,
            type(a).__name__,
            isinstance(a, V),
        )

    result = same_as_torch(cell, torch)
    assert result[5] == (True, False, True) and result[6] == (True, True, False)  # the 0.3 output
    assert result[8] == "Tensor" and result[9] is True


def test_variable_spelling_warns():
    with pytest.warns(DeprecationWarning, match="requires_grad"):
        x = t.autograd.Variable(t.ones(2), requires_grad=True)
    assert isinstance(x, t.Tensor) and x.requires_grad and x.is_leaf


def test_0_3_volatile(torch):
    @_deprecations_ignored
    def cell(t):
        V = t.autograd.Variable
        x = V(t.ones(1), volatile=True)
        w = V(t.rand(1), requires_grad=True)
        y = x * w
        # 0.3 printed (False, True, False) and x.volatile True; volatile has no effect any more
        return (x.requires_grad, w.requires_grad, y.requires_grad), (x.volatile, w.volatile, y.volatile)

    requires, volatile = same_as_torch(cell, torch)
    assert requires == (False, True, True) and volatile == (False, False, False)


def test_volatile_warns_and_no_grad_replaces_it(torch):
    with pytest.warns(UserWarning, match="volatile"), pytest.warns(DeprecationWarning, match="Variable"):
        x = t.autograd.Variable(t.ones(1), volatile=True)
    with pytest.warns(UserWarning, match="no_grad"):
        assert x.volatile is False
    with t.no_grad():  # 0.4版本的pytorch将volatile去掉了，用with t.no_grad()来替代
        y = x * t.ones(1, requires_grad=True)
    assert y.requires_grad is False


# ---------------------------------------------------------------------------- 3.2.4 linear regression
def _autograd_linear_regression(t):
    """The book's linear regression with autograd, on data drawn from NumPy so that ember and torch
    see the same numbers (the book: t.manual_seed(1000), t.rand, t.randn)."""
    rng = np.random.default_rng(1000)

    def get_fake_data(batch_size=8):
        """产生随机数据：y = x*2 + 3，加上了一些噪声"""
        x = t.from_numpy(rng.random((batch_size, 1), dtype=np.float32)) * 5
        y = x * 2 + 3 + t.from_numpy(rng.standard_normal((batch_size, 1), dtype=np.float32))
        return x, y

    x, y = get_fake_data()
    assert x.squeeze().numpy().shape == (8,)  # the book's scatter plot of x-y
    w = t.from_numpy(rng.random((1, 1), dtype=np.float32)).requires_grad_()  # book: t.rand(1,1, requires_grad=True)
    b = t.zeros(1, 1, requires_grad=True)
    losses = np.zeros(500)
    lr = 0.005  # 学习率
    for ii in range(500):
        x, y = get_fake_data(batch_size=32)
        # forward：计算loss
        y_pred = x.mm(w) + b.expand_as(y)
        loss = 0.5 * (y_pred - y) ** 2
        loss = loss.sum()
        losses[ii] = loss.item()
        # backward：自动计算梯度
        loss.backward()
        # 更新参数
        w.data.sub_(lr * w.grad.data)
        b.data.sub_(lr * b.grad.data)
        # 梯度清零
        w.grad.data.zero_()
        b.grad.data.zero_()
        if ii % 50 == 0:  # the book plots the line and 20 true points here
            x = t.arange(0, 6).float().view(-1, 1)
            y = x.mm(w.data) + b.data.expand_as(x)
            x2, y2 = get_fake_data(batch_size=20)
            assert y.numpy().shape == (6, 1) and x2.numpy().shape == (20, 1)
    print(f"w: {w.item():.3f}, b: {b.item():.3f}")
    return w, b, losses, w.is_leaf, w.grad


def test_autograd_linear_regression_matches_torch(torch):
    w, b, losses, leaf, grad = same_as_torch(_autograd_linear_regression, torch, check_repr=False, rtol=1e-4, atol=1e-3)
    assert abs(w.item() - 2) < 0.2 and abs(b.item() - 3) < 0.3  # the book: w: 2.026 b: 2.973
    assert leaf and grad.tolist() == [[0.0]] and losses[-50:].mean() < losses[:5].mean()


def test_autograd_linear_regression_as_in_the_book():
    """The book's own data: `t.manual_seed(1000)`, `t.rand(batch, 1) * 5`, noise `t.randn`."""
    t.manual_seed(1000)

    def get_fake_data(batch_size=8):
        x = t.rand(batch_size, 1) * 5
        y = x * 2 + 3 + t.randn(batch_size, 1)
        return x, y

    w = t.rand(1, 1, requires_grad=True)
    b = t.zeros(1, 1, requires_grad=True)
    for _ in range(500):
        x, y = get_fake_data(batch_size=32)
        loss = (0.5 * (x.mm(w) + b.expand_as(y) - y) ** 2).sum()
        loss.backward()
        w.data.sub_(0.005 * w.grad.data)
        b.data.sub_(0.005 * b.grad.data)
        w.grad.data.zero_()
        b.grad.data.zero_()
    assert abs(w.item() - 2) < 0.2 and abs(b.item() - 3) < 0.4


def test_0_3_linear_regression_with_variable():
    """0.3 edition: Variables, `x * 20` data, `w.grad.data.zero_()` and `w.data.sub_`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        V = t.autograd.Variable
        t.manual_seed(1000)

        def get_fake_data(batch_size=8):
            x = t.rand(batch_size, 1) * 20
            y = x * 2 + (1 + t.randn(batch_size, 1)) * 3
            return x, y

        w = V(t.rand(1, 1), requires_grad=True)
        b = V(t.zeros(1, 1), requires_grad=True)
        for _ in range(2000):
            x, y = get_fake_data()
            x, y = V(x), V(y)
            loss = (0.5 * (x.mm(w) + b.expand_as(y) - y) ** 2).sum()
            loss.backward()
            w.data.sub_(0.001 * w.grad.data)
            b.data.sub_(0.001 * b.grad.data)
            w.grad.data.zero_()
            b.grad.data.zero_()
    assert abs(w.item() - 2) < 0.3 and abs(b.item() - 3) < 1.0


# ---------------------------------------------------------------------------- chapter 2's quick start
def test_chapter2_gradients_accumulate(torch):
    def cell(t):
        x = t.ones(2, 2, requires_grad=True)  # 为tensor设置 requires_grad 标识，代表着需要求导数
        y = x.sum()
        names = (type(y.grad_fn).__name__,)
        y.backward()  # 反向传播,计算梯度
        first = x.grad.clone()
        y.backward()  # sum saves nothing, so a second backward needs no retain_graph
        second = x.grad.clone()
        y.backward()
        third = x.grad.clone()
        zeroed = x.grad.data.zero_().clone()  # 以下划线结束的函数是inplace操作
        y.backward()
        return x, y, names, first, second, third, zeroed, x.grad

    x, y, names, *grads = same_as_torch(cell, torch)
    assert repr(y) == "tensor(4., grad_fn=<SumBackward0>)" and names == ("SumBackward0",)
    assert [grad[0, 0].item() for grad in grads] == [1, 2, 3, 0, 1]


def test_chapter2_manual_sgd_step(torch):
    # learning_rate = 0.01; for f in net.parameters(): f.data.sub_(f.grad.data * learning_rate)
    def cell(t):
        weights = [t.tensor([[1.0, -2.0]], requires_grad=True), t.tensor([0.5], requires_grad=True)]
        x = t.tensor([[3.0], [4.0]])
        loss = ((weights[0] @ x + weights[1]) ** 2).sum()
        loss.backward()
        learning_rate = 0.01
        for f in weights:
            f.data.sub_(f.grad.data * learning_rate)  # inplace 减法
        return tuple(weights), loss

    same_as_torch(cell, torch)
