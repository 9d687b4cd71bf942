"""Chapter 3.1 of 深度学习框架PyTorch：入门与实践 (Chen Yun, chenyuntc/pytorch-book): Tensor.

Every code cell of `chapter3-Tensor和autograd/Tensor.ipynb` (PyTorch 0.3 and 0.4 editions) and of
the newer edition's `Chapter3` that uses tensors only, as a reader types it with `import ember as t`.
Each cell is written once as `cell(t)`; `same_as_torch` runs it with ember and with torch 2.13 and
compares results, prints, reprs and exceptions, and the test asserts what the book shows. Where the
book draws random numbers, the cell takes fixed numbers instead (the random calls are tested on
their own), and where a 0.3/0.4-era cell behaves differently in PyTorch 2.x (integer `arange`,
bool comparisons), the test asserts what PyTorch 2.13 does.
"""

import warnings

import numpy as np
import pytest

import ember as t

from .compare import raises_like_torch, same_as_torch

# Stand-in for the book's `a = t.randn(3, 4)` (the values it printed, 0.4 edition).
RANDN_3x4 = np.array(
    [[-0.1855, -0.4570, 1.6097, -0.9747], [-0.5941, -0.8057, -0.6049, 1.5967], [-0.4694, -1.0633, -0.2432, -0.4794]],
    dtype=np.float32,
)


# ---------------------------------------------------------------------------- creating tensors
def test_tensor_from_sizes_is_uninitialized_float32(torch):
    def cell(t):
        a = t.Tensor(2, 3)  # 指定tensor的形状; values depend on memory
        return a.shape, a.dtype, t.Tensor(1, 2).shape, a.type()

    shape, dtype, other_shape, type_name = same_as_torch(cell, torch)
    assert (shape, dtype, other_shape, type_name) == ((2, 3), t.float32, (1, 2), "torch.FloatTensor")


def test_tensor_from_list_tolist_size_numel(torch):
    def cell(t):
        b = t.Tensor([[1, 2, 3], [4, 5, 6]])
        b_size = b.size()
        return b, b.tolist(), b_size, b.numel(), b.nelement(), b.shape

    b, as_list, size, numel, nelement, shape = same_as_torch(cell, torch)
    assert repr(b) == "tensor([[1., 2., 3.],\n        [4., 5., 6.]])"
    assert as_list == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert repr(size) == "torch.Size([2, 3])" and isinstance(size, tuple) and shape == size
    assert numel == nelement == 6


def test_tensor_from_size_object_versus_tuple(torch):
    def cell(t):
        b_size = t.Tensor([[1, 2, 3], [4, 5, 6]]).size()
        c = t.Tensor(b_size)  # 创建一个和b形状一样的tensor
        d = t.Tensor((2, 3))  # 创建一个元素为2和3的tensor
        return c.shape, d

    c_shape, d = same_as_torch(cell, torch)
    assert c_shape == (2, 3)
    assert repr(d) == "tensor([2., 3.])"


def test_tensor_of_a_tensor_and_empty_constructors(torch):
    def cell(t):
        c = t.Tensor(t.ones(2, 3))  # 输入数据是一个Tensor
        return c, t.Tensor(), t.tensor(()), t.tensor([]).shape

    c, empty_legacy, empty, empty_shape = same_as_torch(cell, torch)
    assert repr(empty_legacy) == repr(empty) == "tensor([])"
    assert repr(empty_shape) == "torch.Size([0])"


def test_tensor_requires_data(torch):
    # t.tensor() -> TypeError: tensor() missing 1 required positional arguments: "data"
    raises_like_torch(lambda t: t.tensor(), torch)


def test_common_constructors(torch):
    def cell(t):
        return (
            t.ones(2, 3),
            t.zeros(2, 3),
            t.arange(1, 6, 2),
            t.linspace(1, 10, 3),
            t.eye(2, 3, dtype=t.int),
            t.ones_like(t.tensor([[1, 2, 3], [4, 5, 6]])),
        )

    ones, zeros, arange, linspace, eye, ones_like = same_as_torch(cell, torch)
    assert repr(arange) == "tensor([1, 3, 5])"  # an int64 tensor since PyTorch 0.5
    assert repr(linspace) == "tensor([ 1.0000,  5.5000, 10.0000])"
    assert repr(eye) == "tensor([[1, 0, 0],\n        [0, 1, 0]], dtype=torch.int32)"
    assert repr(ones_like) == "tensor([[1, 1, 1],\n        [1, 1, 1]])"


def test_random_constructors():
    a = t.randn(2, 3, device=t.device("cpu"))
    assert a.shape == (2, 3) and a.dtype == t.float32 and a.device == t.device("cpu")
    permutation = t.randperm(5)  # 长度为5的随机排列
    assert permutation.dtype == t.int64 and sorted(permutation.tolist()) == [0, 1, 2, 3, 4]
    uniform = t.rand(1000)
    assert 0 <= float(uniform.min()) and float(uniform.max()) < 1
    normal = t.randn(10000)
    assert abs(float(normal.mean())) < 0.05 and abs(float(normal.std()) - 1) < 0.05


def test_tensor_function_infers_dtype(torch):
    def cell(t):
        scalar = t.tensor(3.14159)
        print("scalar: %s, shape of sclar: %s" % (scalar, scalar.shape))
        vector = t.tensor([1, 2])
        print("vector: %s, shape of vector: %s" % (vector, vector.shape))
        matrix = t.tensor([[0.1, 1.2], [2.2, 3.1], [4.9, 5.2]])
        double = t.tensor([[0.11111, 0.222222, 0.3333333]], dtype=t.float64, device=t.device("cpu"))
        return matrix, matrix.shape, double, t.tensor([2, 3]).type(), t.Tensor([2, 3]).type()

    matrix, shape, double, tensor_type, legacy_type = same_as_torch(cell, torch)
    assert repr(shape) == "torch.Size([3, 2])"
    assert repr(double) == "tensor([[0.1111, 0.2222, 0.3333]], dtype=torch.float64)"
    assert (tensor_type, legacy_type) == ("torch.LongTensor", "torch.FloatTensor")


def test_new_ones_keeps_dtype(torch):
    def cell(t):
        a = t.tensor((), dtype=t.int32)
        b = a.new_ones((2, 3))
        return b, (b.numel(), b.nelement())

    b, counts = same_as_torch(cell, torch)
    assert repr(b) == "tensor([[1, 1, 1],\n        [1, 1, 1]], dtype=torch.int32)" and counts == (6, 6)


# ---------------------------------------------------------------------------- view, squeeze, resize
def test_view_unsqueeze_squeeze(torch):
    def cell(t):
        a = t.arange(0, 6)
        b = a.view(-1, 3)  # 当某一维为-1的时候，会自动计算它的大小
        c = b.view(1, 1, 1, 2, 3)
        return (
            a.view(2, 3),
            b.shape,
            b.unsqueeze(1).shape,
            b[:, None].shape,
            b.unsqueeze(-2),
            c.squeeze(0),
            c.squeeze(),
        )

    _, b_shape, unsqueezed, indexed, minus_two, squeezed_0, squeezed = same_as_torch(cell, torch)
    assert b_shape == (2, 3) and unsqueezed == indexed == (2, 1, 3)
    assert squeezed_0.shape == (1, 1, 2, 3) and squeezed.shape == (2, 3)


def test_view_shares_memory(torch):
    def cell(t):
        a = t.arange(0, 6)
        b = a.view(-1, 3)
        a[1] = 100
        return b  # a修改，b作为view之后的，也会跟着修改

    b = same_as_torch(cell, torch)
    assert b.tolist() == [[0, 100, 2], [3, 4, 5]]


def test_resize_shrinks_and_grows_over_the_storage(torch):
    def cell(t):
        a = t.arange(0, 6)
        b = a.view(-1, 3)
        a[1] = 100
        small = b.resize_(1, 3).clone()
        b.resize_(3, 3)  # 旧的数据依旧保存着，多出的大小会分配新空间
        return small, b.shape, b[:2]

    small, shape, kept = same_as_torch(cell, torch)
    assert small.tolist() == [[0, 100, 2]] and shape == (3, 3)
    assert kept.tolist() == [[0, 100, 2], [3, 4, 5]]


def test_resize_of_a_slice_starts_at_its_offset(torch):
    def cell(t):
        a = t.arange(6.0)
        c = a[2:]
        c.resize_(2)
        c[0] = -1  # still a's memory
        return c, c.storage_offset(), a

    same_as_torch(cell, torch)


def test_resize_refuses_tensors_that_require_grad(torch):
    raises_like_torch(lambda t: t.ones(2, requires_grad=True).resize_(3), torch)


# ---------------------------------------------------------------------------- indexing
def test_basic_indexing(torch):
    def cell(t):
        a = t.tensor(RANDN_3x4)  # book: a = t.randn(3, 4)
        print(a[0:1, :2])  # 第0行，前两列
        print(a[0, :2])  # 注意两者的区别：形状不同
        print("查看第1行结果：", a[0])
        print("查看第2列结果：", a[:, 1])
        print("查看第2行最后两个元素：", a[1, -2:])
        return a[0], a[:, 0], a[0][2], a[0, -1], a[:2], a[:2, 0:2]

    row, column, element, last, rows, block = same_as_torch(cell, torch)
    assert repr(element) == "tensor(1.6097)" and repr(last) == "tensor(-0.9747)"
    assert repr(column) == "tensor([-0.1855, -0.5941, -0.4694])"


def test_indexing_with_none(torch):
    def cell(t):
        a = t.tensor(RANDN_3x4)
        # None类似于np.newaxis, 为a新增了一个轴; 等价于a.view(1, a.shape[0], a.shape[1])
        return a[None].shape, a[None, :, :].shape, a[:, None, :].shape, a[:, None, :, None, None].shape

    shapes = same_as_torch(cell, torch)
    assert shapes == ((1, 3, 4), (1, 3, 4), (3, 1, 4), (3, 1, 4, 1, 1))


def test_comparison_gives_bool_tensor_and_masks_select(torch):
    def cell(t):
        a = t.tensor(RANDN_3x4)
        mask = a > 1  # 0.4 returned a ByteTensor; PyTorch 2 a BoolTensor
        print(a > 0)
        print((a > 0).int())
        print(a[a > 0])
        print(a.masked_select(a > 0))
        print(t.where(a > 0, a, t.zeros_like(a)))  # 用torch.where保留原始的索引位置
        return mask, a[a > 1], a.masked_select(a > 1), a[t.LongTensor([0, 1])]

    mask, selected, masked, rows = same_as_torch(cell, torch)
    assert mask.dtype == t.bool
    assert selected.tolist() == pytest.approx([1.6097, 1.5967])
    assert rows.shape == (2, 4)


def test_selection_does_not_share_memory_but_slicing_does(torch):
    def cell(t):
        a = t.tensor(RANDN_3x4)
        selected, sliced = a[a > 1], a[:2]
        selected[0], sliced[0, 0] = 100, 200
        return a

    a = same_as_torch(cell, torch)
    assert a[0, 0].item() == 200 and a[0, 2].item() == pytest.approx(1.6097)


def test_gather(torch):
    def cell(t):
        a = t.arange(0, 16).view(4, 4)
        diagonal = a.gather(0, t.LongTensor([[0, 1, 2, 3]]))  # 选取对角线的元素
        anti_column = a.gather(1, t.LongTensor([[3, 2, 1, 0]]).t())  # 选取反对角线上的元素
        anti_row = a.gather(0, t.LongTensor([[3, 2, 1, 0]]))  # 注意与上面的不同
        index = t.LongTensor([[0, 1, 2, 3], [3, 2, 1, 0]]).t()
        both = a.gather(1, index)  # 选取两个对角线上的元素
        return a, diagonal, anti_column, anti_row, both

    _, diagonal, anti_column, anti_row, both = same_as_torch(cell, torch)
    assert diagonal.tolist() == [[0, 5, 10, 15]]
    assert anti_column.tolist() == [[3], [6], [9], [12]]
    assert anti_row.tolist() == [[12, 9, 6, 3]]
    assert both.tolist() == [[0, 3], [5, 6], [10, 9], [15, 12]]


def test_scatter_puts_gathered_values_back(torch):
    def cell(t):
        a = t.arange(0, 16).view(4, 4)
        index = t.LongTensor([[0, 1, 2, 3], [3, 2, 1, 0]]).t()
        b = a.gather(1, index)
        c = t.zeros(4, 4).long()  # new edition; the 0.4 edition scattered into t.zeros(4, 4)
        d = t.zeros(4, 4)
        return c.scatter_(1, index, b), d.scatter_(1, index, b.float()), c.scatter_(1, index, b) is c

    scattered, float_scattered, returns_self = same_as_torch(cell, torch)
    assert scattered.tolist() == [[0, 0, 0, 3], [0, 5, 6, 0], [0, 9, 10, 0], [12, 0, 0, 15]]
    assert returns_self is True  # in-place: scatter_ returns the tensor it changed


def test_scatter_of_int64_source_into_float32_is_refused(torch):
    # The 0.4 cell `t.zeros(4,4).scatter_(1, index, b)` with b from an (int64) arange.
    def cell(t):
        a = t.arange(0, 16).view(4, 4)
        index = t.LongTensor([[0, 1, 2, 3], [3, 2, 1, 0]]).t()
        return t.zeros(4, 4).scatter_(1, index, a.gather(1, index))

    raises_like_torch(cell, torch)


def test_item(torch):
    def cell(t):
        a = t.arange(0, 16).view(4, 4).float()
        d = a[0:1, 0:1, None]
        print(d.shape)
        return a[0, 0], a[0, 0].item(), d.item(), t.Tensor([1.0]).item()

    element, value, single, one = same_as_torch(cell, torch)
    assert repr(element) == "tensor(0.)" and value == single == 0.0 and one == 1.0


def test_item_of_many_elements_raises(torch):
    # a[0].item() -> raise ValueError: only one element tensors can be converted to Python scalars
    # (RuntimeError in PyTorch 2)
    raises_like_torch(lambda t: t.arange(0, 16).view(4, 4)[0].item(), torch)
    raises_like_torch(lambda t: t.Tensor([1, 2]).item(), torch)


# ---------------------------------------------------------------------------- advanced indexing
def test_advanced_indexing_3x3x3(torch):
    def cell(t):
        x = t.arange(0, 27).view(3, 3, 3)
        return x, x[[1, 2], [1, 2], [2, 0]], x[[2, 1, 0], [0], [1]], x[[0, 2], ...]

    _, pairs, broadcast, rows = same_as_torch(cell, torch)
    assert pairs.tolist() == [14, 24]  # x[1,1,2]和x[2,2,0]
    assert broadcast.tolist() == [19, 10, 1]  # x[2,0,1],x[1,0,1],x[0,0,1]
    assert rows.shape == (2, 3, 3) and rows[1, 0, 0].item() == 18


def test_advanced_indexing_2x2x4(torch):
    def cell(t):
        x = t.arange(0, 16).view(2, 2, 4)
        return x[[1, 0], [1, 1], [2, 0]], x[[1, 0], [0], [1]]

    pairs, broadcast = same_as_torch(cell, torch)
    assert pairs.tolist() == [14, 4] and broadcast.tolist() == [9, 1]


def test_advanced_indexing_copies(torch):
    def cell(t):
        x = t.arange(0, 27).view(3, 3, 3)
        y = x[[0, 2], ...]
        y[0, 0, 0] = 100
        return x[0, 0, 0], y.storage().data_ptr() == x.storage().data_ptr()

    value, shared = same_as_torch(cell, torch)
    assert value.item() == 0 and shared is False


# ---------------------------------------------------------------------------- joining
def test_cat_and_stack(torch):
    def cell(t):
        a = t.arange(6).view(2, 3)
        b = t.stack((a, a), 0)
        return t.cat((a, a), 0), t.cat([a, a], 0), t.cat((a, a), 1), b, b.shape

    rows, rows_list, columns, stacked, shape = same_as_torch(cell, torch)
    assert rows.tolist() == [[0, 1, 2], [3, 4, 5], [0, 1, 2], [3, 4, 5]]
    assert columns.tolist() == [[0, 1, 2, 0, 1, 2], [3, 4, 5, 3, 4, 5]]
    assert repr(shape) == "torch.Size([2, 2, 3])"


# ---------------------------------------------------------------------------- tensor types
def test_set_default_tensor_type(torch):
    def cell(t):
        a = t.rand(2, 3)
        print(a.dtype)
        t.set_default_tensor_type("torch.DoubleTensor")  # 设置默认类型为DoubleTensor
        try:
            a = t.rand(2, 3)
            print(a.dtype)
            legacy = t.Tensor(2, 3)
        finally:
            t.set_default_tensor_type("torch.FloatTensor")  # 恢复之前的默认设置
        return a.dtype, legacy.dtype, t.Tensor(2).dtype, t.get_default_dtype()

    dtypes = same_as_torch(cell, torch)
    assert dtypes == (t.float64, t.float64, t.float32, t.float32)


def test_set_default_tensor_type_to_an_integer_type_is_refused(torch):
    # 0.3 edition: t.set_default_tensor_type('torch.IntTensor'); a = t.Tensor(2,3) -> IntTensor
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_like_torch(lambda t: t.set_default_tensor_type("torch.IntTensor"), torch)
    assert t.get_default_dtype() == t.float32


def test_type_conversions(torch):
    def cell(t):
        a = t.zeros(2, 3, dtype=t.float64)  # book: a DoubleTensor made while that was the default
        b1 = a.type(t.FloatTensor)
        b2 = a.float()
        b3 = a.type_as(b1)  # 等价于a.type(b.dtype)或a.type(b.type())
        b4 = a.type(b1.type())
        return (a.dtype, b1.dtype, b2.dtype, b3.dtype, b4.dtype), b3, a.new_ones(2, 4), a.long().type()

    dtypes, converted, new_ones, type_name = same_as_torch(cell, torch)
    assert dtypes == (t.float64, t.float32, t.float32, t.float32, t.float32)
    assert repr(new_ones) == "tensor([[1., 1., 1., 1.],\n        [1., 1., 1., 1.]], dtype=torch.float64)"
    assert type_name == "torch.LongTensor"


def test_new_like_and_new_star(torch):
    def cell(t):
        a = t.zeros(2, 3, dtype=t.float64)
        new = a.new(2, 3)  # 等价于torch.DoubleTensor(2,3)，建议使用a.new_tensor
        return (
            new.dtype,
            new.shape,
            t.zeros_like(a),
            t.zeros_like(a, dtype=t.int16),
            t.rand_like(a).dtype,
            a.new_ones(4, 5, dtype=t.int),
            a.new_tensor([3, 4]),
            a.new([1, 2]),
            a.new().shape,
        )

    result = same_as_torch(cell, torch)
    assert result[0] == t.float64 and result[1] == (2, 3)
    assert repr(result[6]) == "tensor([3., 4.], dtype=torch.float64)"


def test_new_of_int_tensor_keeps_its_type(torch):
    # 0.3 edition: d = a.new(2,3) # 等价于torch.IntTensor(2,3)
    def cell(t):
        a = t.IntTensor(2, 3)
        return a.new(2, 3).type(), a.new((2, 3)), a.new(t.Size([2, 3])).shape

    type_name, data, shape = same_as_torch(cell, torch)
    assert type_name == "torch.IntTensor" and data.tolist() == [2, 3] and shape == (2, 3)


def test_cuda_tensors_are_outside_embers_scope():
    pytest.skip("the book's `t.randn(2, 3).cuda()` and new_*(device='cuda') need a GPU, outside ember's scope")


# ---------------------------------------------------------------------------- element-wise
def test_elementwise_on_int64_arange(torch):
    # 0.4 edition: `a = t.arange(0, 6).view(2, 3)` was float; in PyTorch 2 it is int64, so cos
    # promotes to float32 and % and ** stay integral.
    def cell(t):
        a = t.arange(0, 6).view(2, 3)
        print(a)
        return t.cos(a), a % 3, t.fmod(a, 3), a**2, t.pow(a, 2), t.clamp(a, min=3)

    cos, mod, fmod, square, power, clamped = same_as_torch(cell, torch)
    assert repr(cos) == "tensor([[ 1.0000,  0.5403, -0.4161],\n        [-0.9900, -0.6536,  0.2837]])"
    assert mod.tolist() == fmod.tolist() == [[0, 1, 2], [0, 1, 2]]
    assert square.tolist() == [[0, 1, 4], [9, 16, 25]] and clamped.tolist() == [[3, 3, 3], [3, 4, 5]]


def test_elementwise_on_float_arange(torch):
    def cell(t):
        a = t.arange(0, 6).float().view(2, 3)
        print(a % 3)
        print(t.fmod(a, 3))
        print(a)
        print(t.clamp(a, min=2, max=4))
        return t.cos(a)

    same_as_torch(cell, torch)


def test_inplace_sin(torch):
    def cell(t):
        a = t.arange(0, 6).float().view(2, 3)
        b = a.sin_()  # 效果同 a = a.sin();b=a ,但是更高效节省显存
        return a, b is a

    a, same = same_as_torch(cell, torch)
    assert same and a[0, 1].item() == pytest.approx(0.8414709568)


def test_inplace_sin_of_int64_is_refused(torch):
    # 0.4 cell `b = a.sin_()` on `t.arange(0, 6).view(2, 3)`: an int64 tensor in PyTorch 2.
    raises_like_torch(lambda t: t.arange(0, 6).view(2, 3).sin_(), torch)


# ---------------------------------------------------------------------------- reductions
def test_sum_with_keepdim(torch):
    def cell(t):
        b = t.ones(2, 3)
        print(b.sum(dim=0, keepdim=True), b.sum(dim=0, keepdim=True).shape)
        print(b.sum(dim=0, keepdim=False), b.sum(dim=0, keepdim=False).shape)
        return b.sum(dim=0, keepdim=True), b.sum(dim=0, keepdim=False), b.sum(dim=1)

    keep, drop, rows = same_as_torch(cell, torch)
    assert keep.shape == (1, 3) and drop.shape == (3,) and rows.tolist() == [3.0, 3.0]


def test_cumsum(torch):
    def cell(t):
        a = t.arange(0, 6).view(2, 3)
        print(a)
        b = t.arange(2, 8).view(2, 3)
        return a.cumsum(dim=1), b.cumsum(dim=1)  # 沿着行累加

    a_sum, b_sum = same_as_torch(cell, torch)
    assert a_sum.tolist() == [[0, 1, 3], [3, 7, 12]] and b_sum.tolist() == [[2, 5, 9], [5, 11, 18]]


def test_detached_statistics(torch):
    def cell(t):
        a = t.arange(12.0).view(3, 4)
        return (
            a.mean(),
            a.std(),
            a.max(),
            a.median(),
            t.mode(a, 1),
            a.var(dim=0),
            a.norm(),
            t.dist(a, a + 1),
            a.dist(a * 2, 1),
            a.cumprod(1),
        )

    same_as_torch(cell, torch)


# ---------------------------------------------------------------------------- comparisons
def test_comparisons_max_and_clamp(torch):
    def cell(t):
        a = t.linspace(0, 15, 6).view(2, 3)
        b = t.linspace(15, 0, 6).view(2, 3)
        print(a > b)
        print("a中大于b的元素: ", a[a > b])
        print("a中最大的元素: ", t.max(a))
        return a, b, a > b, a[a > b], t.max(a), t.max(b, dim=1), t.max(a, b), t.clamp(a, min=10)

    a, b, greater, bigger, maximum, by_row, pairwise, clamped = same_as_torch(cell, torch)
    assert a.tolist() == [[0, 3, 6], [9, 12, 15]] and b.tolist() == [[15, 12, 9], [6, 3, 0]]
    assert greater.tolist() == [[False, False, False], [True, True, True]]
    assert bigger.tolist() == [9, 12, 15] and maximum.item() == 15
    assert repr(by_row) == "torch.return_types.max(\nvalues=tensor([15.,  6.]),\nindices=tensor([0, 0]))"
    assert by_row.values.tolist() == [15, 6] and by_row.indices.tolist() == [0, 0] and by_row[1] is by_row.indices
    assert pairwise.tolist() == [[15, 12, 9], [9, 12, 15]] and clamped.tolist() == [[10, 10, 10], [10, 12, 15]]


def test_topk_argsort_sort(torch):
    def cell(t):
        a = t.tensor([2, 3, 4, 5, 1])
        b = t.tensor([[-0.1712, 0.2442, -1.1505], [-0.0754, -0.1402, 1.1420]])  # book: t.randn(2, 3)
        return t.topk(a, 3), t.argsort(b, dim=1), t.sort(b, dim=1)

    top, order, ordered = same_as_torch(cell, torch)
    assert top.values.tolist() == [5, 4, 3] and top.indices.tolist() == [3, 2, 1]
    assert order.tolist() == [[2, 0, 1], [1, 0, 2]]


def test_allclose_versus_equality(torch):
    def cell(t):
        a = t.tensor([1.000001, 1.000001, 0.999999])
        b = t.ones_like(a)  # [1., 1., 1.]
        print(a == b)
        return t.allclose(a, b)

    assert same_as_torch(cell, torch) is True


# ---------------------------------------------------------------------------- linear algebra
def test_transpose_is_not_contiguous(torch):
    def cell(t):
        a = t.linspace(0, 15, 6).view(2, 3)
        b = a.t()
        return b.is_contiguous(), b.contiguous(), b.contiguous().is_contiguous()

    transposed, copy, contiguous = same_as_torch(cell, torch)
    assert transposed is False and contiguous is True
    assert copy.tolist() == [[0, 9], [3, 12], [6, 15]]


def test_linear_algebra_table(torch):
    # 表3-7: trace, diag, triu/tril, mm/bmm, addmm/addbmm/addmv/addr/baddbmm, t, dot/cross, inverse, svd
    def cell(t):
        m = t.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
        v = t.tensor([1.0, 2.0, 3.0])
        batch = t.arange(24.0).view(2, 3, 4)
        other = t.arange(8.0).view(2, 4, 1)
        return (
            m.trace(),
            m.diag(),
            t.diag(v),
            m.triu(),
            m.tril(-1),
            m.mm(m),
            t.bmm(batch, other),
            t.addmm(m, m, m, beta=0.5, alpha=2),
            t.addbmm(t.zeros(3, 1), batch, other),
            t.addmv(v, m, v),
            t.addr(m, v, v),
            t.baddbmm(t.ones(2, 3, 1), batch, other),
            m.t(),
            t.dot(v, v),
            t.cross(v, t.tensor([0.0, 1.0, 0.0]), dim=0),
            m.inverse(),
            t.linalg.det(m),
            t.linalg.matrix_rank(m),
            t.linalg.norm(m),
            t.linalg.inv(m),
        )

    same_as_torch(cell, torch, rtol=1e-5)


def test_decompositions(torch):
    def cell(t):
        m = t.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0], [1.0, 0.0, 1.0]])
        u, s, vh = t.linalg.svd(m, full_matrices=False)
        q, r = t.linalg.qr(m)
        return s, (u @ t.diag(s) @ vh), q @ r, t.linalg.pinv(m) @ m

    singular, rebuilt, qr_product, identity = same_as_torch(cell, torch, check_repr=False, rtol=1e-4, atol=1e-5)
    assert np.allclose(identity.numpy(), np.eye(3), atol=1e-5)


def test_fft(torch):
    """The new edition's torch.fft table: fft.fft and its inverse fft.ifft."""

    def cell(t):
        x = t.tensor([1.0, 2.0, 3.0, 4.0])
        spectrum = t.fft.fft(x)
        return spectrum, t.fft.ifft(spectrum), t.fft.ifft(spectrum).real

    same_as_torch(cell, torch)


def test_named_tensors_are_outside_embers_scope():
    pytest.skip("3.1.2 named tensors (names=, refine_names, align_to) are a prototype API outside ember's scope")


# ---------------------------------------------------------------------------- NumPy interop
def test_from_numpy_and_tensor_share_float32_memory(torch):
    def cell(t):
        a = np.ones([2, 3], dtype=np.float32)
        b = t.from_numpy(a)
        legacy = t.Tensor(a)  # 也可以直接将numpy对象传入Tensor (shares memory: same dtype)
        a[0, 1] = 100
        c = b.numpy()  # a, b, c三个对象共享内存
        return b, legacy, c, np.shares_memory(c, a)

    b, legacy, c, shares = same_as_torch(cell, torch)
    assert b[0, 1].item() == legacy[0, 1].item() == 100 and shares


def test_other_dtypes_are_copied(torch):
    def cell(t):
        a = np.ones([2, 3])
        b = t.Tensor(a)  # 此处进行拷贝，不共享内存
        c = t.from_numpy(a)  # 注意c的类型（DoubleTensor）
        a[0, 1] = 100
        return a.dtype.name, b.dtype, b, c

    dtype_name, b_dtype, b, c = same_as_torch(cell, torch)
    assert dtype_name == "float64" and b_dtype == t.float32
    assert b[0, 1].item() == 1 and c[0, 1].item() == 100 and c.dtype == t.float64


def test_tensor_function_always_copies(torch):
    def cell(t):
        a = np.ones([2, 3])
        a[0, 1] = 100
        tensor = t.tensor(a)
        tensor[0, 0] = 0
        a_tensor = t.tensor(a)
        a_tensor[0, 1] = 1
        return a

    a = same_as_torch(cell, torch)
    assert a.tolist() == [[1, 100, 1], [1, 1, 1]]


# ---------------------------------------------------------------------------- broadcasting
def test_automatic_and_manual_broadcasting(torch):
    def cell(t):
        a = t.ones(3, 2)
        b = t.zeros(2, 3, 1)
        return (
            a + b,
            a[None].expand(2, 3, 2) + b.expand(2, 3, 2),
            a.view(1, 3, 2).expand(2, 3, 2) + b.expand(2, 3, 2),
            a.unsqueeze(0).expand_as(b.expand(2, 3, 2)),
        )

    automatic, manual, viewed, expanded = same_as_torch(cell, torch)
    assert automatic.shape == (2, 3, 2) and automatic.tolist() == manual.tolist() == viewed.tolist()


def test_expand_takes_no_memory(torch):
    def cell(t):
        a = t.ones(3, 2)
        e = a.unsqueeze(0).expand(10000000000000, 3, 2)  # expand不会占用额外空间
        return e.shape, e.stride(), e.is_contiguous()

    shape, stride, contiguous = same_as_torch(cell, torch)
    assert shape[0] == 10000000000000 and stride == (0, 2, 1) and contiguous is False


def test_repeat_copies(torch):
    def cell(t):
        a = t.arange(3).view(3, 1)
        r = a.repeat(1, 2)
        r[0, 0] = 9
        return r, a, r.storage().data_ptr() == a.storage().data_ptr()

    same_as_torch(cell, torch)


# ---------------------------------------------------------------------------- storage
def test_storage_is_shared_by_views(torch):
    def cell(t):
        a = t.arange(0, 6)
        b = a.view(2, 3)
        return a.storage(), b.storage(), id(b.storage()) == id(a.storage())

    a_storage, b_storage, same_id = same_as_torch(cell, torch)
    assert repr(a_storage) == (
        " 0\n 1\n 2\n 3\n 4\n 5\n[torch.storage.TypedStorage(dtype=torch.int64, device=cpu) of size 6]"
    )
    assert same_id is True


def test_storage_data_ptr_offset_and_strides(torch):
    # the 0.4 edition with the new edition's `.float()`; id(...) comparisons as the book prints them
    def cell(t):
        a = t.arange(0, 6).float()
        b = a.view(2, 3)
        shared = a.storage().data_ptr() == b.storage().data_ptr()
        a[1] = 100  # a改变，b也随之改变，因为他们共享storage
        c = a[2:]
        c_storage = c.storage()
        gap = c.data_ptr() - a.data_ptr()  # 相差8：两个元素，每个元素占4个字节
        c[0] = -100  # c[0]的内存地址对应a[2]的内存地址
        d = t.Tensor(c.storage())
        d[0] = 6666
        all_shared = (
            a.storage().data_ptr() == b.storage().data_ptr() == c.storage().data_ptr() == d.storage().data_ptr()
        )
        same_ids = id(a.storage()) == id(b.storage()) == id(c.storage()) == id(d.storage())
        e = b[::2, ::2]  # 隔2行/列取一个元素
        return (
            shared,
            c_storage,
            gap,
            a,
            b,
            all_shared,
            same_ids,
            (a.storage_offset(), c.storage_offset(), d.storage_offset()),
            id(e.storage()) == id(a.storage()),
            a.storage().data_ptr() == e.storage().data_ptr(),
            (b.stride(), e.stride()),
            e.is_contiguous(),
        )

    (shared, c_storage, gap, a, b, all_shared, same_ids, offsets, e_same_id, e_shared, strides, contiguous) = (
        same_as_torch(cell, torch)
    )
    assert shared and all_shared and same_ids and e_same_id and e_shared
    assert len(c_storage) == 6 and c_storage[1] == 100.0 and gap == 8
    assert a.tolist() == [6666, 100, -100, 3, 4, 5] and b[0, 0].item() == 6666
    assert offsets == (0, 2, 0) and strides == ((3, 1), (6, 2)) and contiguous is False


def test_storage_indexing_and_tensor_of_storage(torch):
    def cell(t):
        a = t.arange(6.0)
        s = a[3:].storage()
        s[0] = -1.0
        return s[0], s[5], len(s), s.size(), s.tolist(), a, t.Tensor(s).shape, s.dtype, s.element_size()

    same_as_torch(cell, torch)


def test_storage_of_a_strided_view_covers_the_whole_base(torch):
    def cell(t):
        a = t.arange(12).view(3, 4)
        e = a.t()[1:, ::2]
        return e.storage().tolist() == a.storage().tolist(), e.storage_offset(), e.stride(), len(e.storage())

    same_as_torch(cell, torch)


def test_storage_slices_are_refused(torch):
    raises_like_torch(lambda t: t.arange(6.0).storage()[1:3], torch)


# ---------------------------------------------------------------------------- devices, persistence
def test_device_and_to(torch):
    def cell(t):
        a = t.tensor(RANDN_3x4)  # book: a = t.randn(3, 4)
        device = t.device("cpu")
        moved = a.to(device)
        return a.device, device, moved, moved.device, moved is a, t.cuda.is_available()

    same_as_torch(cell, torch)


def test_save_and_load(tmp_path):
    # The book's cell moves `a` to cuda:1 before t.save; the GPU part is outside ember's scope, the
    # save/load part (with the map_location spellings) runs on the CPU.
    a = t.tensor(RANDN_3x4)
    path = str(tmp_path / "a.pth")
    t.save(a, path)
    b = t.load(path)
    c = t.load(path, map_location=lambda storage, loc: storage)  # 加载为c, 存储于CPU
    d = t.load(path, map_location={"cuda:1": "cuda:0"})  # nothing on cuda:1 to move
    assert t.equal(a, b) and t.equal(a, c) and t.equal(a, d)


# ---------------------------------------------------------------------------- vectorization and options
def test_for_loop_add_equals_vectorized_add(torch):
    def cell(t):
        def for_loop_add(x, y):
            result = []
            for i, j in zip(x, y):
                result.append(i + j)
            return t.Tensor(result)

        x = t.zeros(100)
        y = t.ones(100)
        return for_loop_add(x, y), x + y, t.equal(for_loop_add(x, y), x + y)

    looped, vectorized, equal = same_as_torch(cell, torch)
    assert equal is True


def test_out_argument_and_int64_range(torch):
    def cell(t):
        a = t.arange(0, 20000000)  # int64 in PyTorch 2: no overflow as with 0.4's float default
        b = t.LongTensor()
        result = t.arange(0, 20000000, out=b)  # 64bit的LongTensor不会溢出
        return a[-1], a[-2], b[-1], b[-2], result is b, b.dtype

    last, before, b_last, b_before, same, dtype = same_as_torch(cell, torch)
    assert last.item() == 19999999 and b_before.item() == 19999998 and same and dtype == t.int64


def test_set_printoptions_precision(torch):
    def cell(t):
        a = t.tensor(
            [[0.4316843748, 2.1250586510, 1.0684313774], [1.0297036171, 1.0137003660, -0.8690901995]]
        )  # book: t.randn(2, 3)
        t.set_printoptions(precision=10)
        try:
            shown = repr(a)
        finally:
            t.set_printoptions(profile="default")
        return shown, repr(a)

    shown, default = same_as_torch(cell, torch)
    assert shown == (
        "tensor([[ 0.4316843748,  2.1250586510,  1.0684313774],\n"
        "        [ 1.0297036171,  1.0137003660, -0.8690901995]])"
    )
    assert default == "tensor([[ 0.4317,  2.1251,  1.0684],\n        [ 1.0297,  1.0137, -0.8691]])"


def test_set_num_threads_is_accepted():
    t.set_num_threads(2)
    assert t.get_num_threads() >= 1


# ---------------------------------------------------------------------------- 3.1.5 changing shapes
def test_size_dim_numel(torch):
    def cell(t):
        tensor = t.arange(24).reshape(2, 3, 4)
        print(f"a.shape={tensor.shape}. a.size()={tensor.size()}")
        return f"这是个{tensor.dim()}维Tensor, 共有{tensor.numel()}个元素"

    assert same_as_torch(cell, torch) == "这是个3维Tensor, 共有24个元素"


def test_view_and_reshape_share_storage(torch):
    def cell(t):
        a = t.arange(1, 13)
        b = a.view(2, 6)
        c = a.reshape(2, 6)  # 此时view和reshape等价，因为Tensor是contiguous
        ids = id(a) == id(b) == id(c)
        shared = a.storage().data_ptr() == b.storage().data_ptr() == c.storage().data_ptr()
        b = b.t()  # b不再连续
        return ids, shared, b.reshape(-1, 4)

    ids, shared, reshaped = same_as_torch(cell, torch)
    assert ids is False and shared is True
    assert reshaped.tolist() == [[1, 7, 2, 8], [3, 9, 4, 10], [5, 11, 6, 12]]


def test_view_of_non_contiguous_is_refused(torch):
    # 下面会报错，view无法在改变数据存储的情况下进行形状变化: b.view(-1, 4)
    error = raises_like_torch(lambda t: t.arange(1, 13).view(2, 6).t().view(-1, 4), torch)
    assert "reshape" in str(error)


def test_image_reshapes(torch):
    def cell(t):
        img_3xHxW = t.tensor(np.linspace(-1, 1, 3 * 128 * 256, dtype=np.float32).reshape(3, 128, 256))
        img_3xHW = img_3xHxW.view(3, -1)  # 等价于 img_3xHxW.view(3, 128*256), img_3xHxW.flatten(1, 2)
        alpha_HxW = t.tensor(np.linspace(0, 1, 128 * 256, dtype=np.float32).reshape(128, 256))
        alpha_1xHxW = alpha_HxW[None]  # 等价于 alpha.unsqueeze(0)
        rgba_img = t.cat([alpha_1xHxW, img_3xHxW], dim=0)
        return (
            img_3xHW.mean(dim=1),
            img_3xHxW.flatten(1, 2).shape,
            rgba_img.shape,
            alpha_1xHxW.view(128, 256).shape,
            alpha_1xHxW.squeeze().shape,
            alpha_1xHxW.flatten(0, 1).shape,
            t.equal(alpha_1xHxW[0], alpha_HxW),
        )

    means, flat, rgba, viewed, squeezed, flattened, equal = same_as_torch(cell, torch, check_repr=False)
    assert rgba == (4, 128, 256) and viewed == squeezed == flattened == (128, 256) and equal


def test_transpose_permute_t(torch):
    def cell(t):
        mask = t.arange(6).view(2, 3)  # 一张高为2，宽为3的图片
        return (mask, mask.transpose(0, 1), mask.transpose(1, 0), mask.t(), mask.T, mask.permute(1, 0), mask.view(3, 2))

    mask, *rotated, reshaped = same_as_torch(cell, torch)
    for result in rotated:
        assert result.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert reshaped.tolist() == [[0, 1], [2, 3], [4, 5]]


def test_permute_to_channels_last(torch):
    def cell(t):
        img_3xHxW = t.arange(3 * 4 * 5.0).view(3, 4, 5)  # book: t.randn(3, 128, 256)
        img_HxWx3 = img_3xHxW.permute(1, 2, 0)
        return img_HxWx3.shape, img_HxWx3.is_contiguous(), img_HxWx3.reshape(-1)

    shape, contiguous, flat = same_as_torch(cell, torch)
    assert shape == (4, 5, 3) and contiguous is False and flat[:4].tolist() == [0, 20, 40, 1]
    raises_like_torch(lambda t: t.randn(3, 128, 256).permute(1, 2, 0).view(-1), torch)  # .view会报错


def test_reshape_versus_transpose(torch):
    def cell(t):
        H, W = 4, 5
        img_3xHxW = t.arange(3.0 * H * W).view(3, H, W)  # book: t.randn(3, H, W)
        img_3xHW = img_3xHxW.reshape(3, -1)  # 目标数据排列和输入一样，直接使用reshape
        img_3xWH = img_3xHxW.transpose(1, 2).reshape(3, -1)  # 先通过transpose变成(3,W,H), 再变成(3,WH)
        img_3xWxH = img_3xWH.reshape(3, W, H)
        return img_3xHW, img_3xWH, img_3xWxH

    same_as_torch(cell, torch)


# ---------------------------------------------------------------------------- 3.1.5 / 3.2 linear regression
def _get_fake_data(t, rng, batch_size=8):
    """The book's get_fake_data (y = 2x + 3 + noise) with the noise drawn from NumPy, so that ember
    and torch see the same numbers."""
    x = t.from_numpy(rng.random((batch_size, 1), dtype=np.float32)) * 5
    y = x * 2 + 3 + t.from_numpy(rng.standard_normal((batch_size, 1), dtype=np.float32))
    return x, y


def _manual_linear_regression(t):
    """The book's linear regression with hand-written gradients (w, b updated in place)."""
    rng = np.random.default_rng(1000)
    device = t.device("cpu")
    w = t.from_numpy(rng.random((1, 1), dtype=np.float32)).to(device)  # book: t.rand(1, 1).to(device)
    b = t.zeros(1, 1).to(device)
    lr = 0.02  # 学习率
    for ii in range(500):
        x, y = _get_fake_data(t, rng, batch_size=4)
        # forward：计算loss
        y_pred = x.mm(w) + b.expand_as(y)  # x@W等价于x.mm(w);for python3 only
        loss = 0.5 * (y_pred - y) ** 2  # 均方误差
        loss = loss.mean()
        # backward：手动计算梯度
        dloss = 1
        dy_pred = dloss * (y_pred - y)
        dw = x.t().mm(dy_pred)
        db = dy_pred.sum()
        # 更新参数
        w.sub_(lr * dw)
        b.sub_(lr * db)
        if ii % 50 == 0:  # the book plots here: predicted line and 32 true points
            x = t.arange(0, 6).float().view(-1, 1)
            y = x.mm(w) + b.expand_as(x)
            x2, y2 = _get_fake_data(t, rng, batch_size=32)
            assert y.cpu().numpy().shape == (6, 1) and x2.numpy().shape == (32, 1)
    print(f"w: {w.item():.3f}, b: {b.item():.3f}")
    return w, b, loss


def test_manual_linear_regression_matches_torch(torch):
    w, b, loss = same_as_torch(_manual_linear_regression, torch, check_repr=False, rtol=1e-4, atol=1e-4)
    assert abs(w.item() - 2) < 0.3 and abs(b.item() - 3) < 0.5  # the book: w: 1.911 b: 3.044


def test_manual_linear_regression_as_in_the_book():
    """The book's own random data (`t.manual_seed(1000)`, `t.rand`, `t.randn`) learns w≈2, b≈3."""
    t.manual_seed(1000)

    def get_fake_data(batch_size=8):
        x = t.rand(batch_size, 1, device=t.device("cpu")) * 5
        y = x * 2 + 3 + t.randn(batch_size, 1, device=t.device("cpu"))
        return x, y

    x, y = get_fake_data(batch_size=16)
    assert x.squeeze().cpu().numpy().shape == (16,)  # the scatter plot's data
    w, b = t.rand(1, 1), t.zeros(1, 1)
    for _ in range(500):
        x, y = get_fake_data(batch_size=4)
        y_pred = x.mm(w) + b.expand_as(y)
        dy_pred = y_pred - y
        w.sub_(0.02 * x.t().mm(dy_pred))
        b.sub_(0.02 * dy_pred.sum())
    assert abs(w.item() - 2) < 0.3 and abs(b.item() - 3) < 0.6


# ---------------------------------------------------------------------------- chapter 2's quick start
def test_chapter2_tensor_basics(torch):
    def cell(t):
        x = t.Tensor(5, 3)  # 构建 5x3 矩阵，只是分配了空间，未初始化
        x = t.Tensor([[1, 2], [3, 4]])
        print(x)
        x = t.tensor(np.linspace(0, 1, 15, dtype=np.float32).reshape(5, 3))  # book: t.rand(5, 3)
        print(x.size())  # 查看x的形状
        y = t.tensor(np.linspace(1, 0, 15, dtype=np.float32).reshape(5, 3))
        result = t.Tensor(5, 3)  # 预先分配空间
        returned = t.add(x, y, out=result)  # 输入到result
        print(y.add(x) is y, y)  # 普通加法，不改变y的内容
        print(y.add_(x) is y, y)  # inplace 加法，y变了
        return (x.size()[1], x.size(1)), x + y, t.add(x, y), result, returned is result, x[:, 1]

    columns, *_ = same_as_torch(cell, torch)
    assert columns == (3, 3)


def test_chapter2_numpy_bridge_and_scalars(torch):
    def cell(t):
        a = t.ones(5)
        b = a.numpy()  # Tensor -> Numpy
        print(b)
        a = np.ones(5)
        b = t.from_numpy(a)  # Numpy->Tensor
        b.add_(1)  # 以`_`结尾的函数会修改自身
        print(a)
        print(b)  # Tensor和Numpy共享内存
        scalar = b[0]
        tensor = t.tensor([2])  # 注意和scalar的区别
        return (
            scalar,
            scalar.size(),
            scalar.item(),
            (tensor, scalar),
            (tensor.size(), scalar.size()),
            (tensor.item(), scalar.item()),
            t.tensor(3),
        )

    scalar, size, value, *_ = same_as_torch(cell, torch)
    assert repr(scalar) == "tensor(2., dtype=torch.float64)" and repr(size) == "torch.Size([])" and value == 2.0


def test_chapter2_tensor_copies_and_detach_shares(torch):
    def cell(t):
        tensor = t.tensor([3, 4])
        old_tensor = tensor
        new_tensor = t.tensor(old_tensor)  # t.tensor()总是会进行数据拷贝 (warns: use clone().detach())
        new_tensor[0] = 1111
        copied = (old_tensor.clone(), new_tensor.clone())
        new_tensor = old_tensor.detach()  # 共享内存
        new_tensor[0] = 1111
        device = t.device("cuda:0" if t.cuda.is_available() else "cpu")
        return copied, (old_tensor, new_tensor), (tensor.to(device) + tensor.to(device)).device

    (copy_old, copy_new), (old, new), device = same_as_torch(cell, torch)
    assert copy_old.tolist() == [3, 4] and copy_new.tolist() == [1111, 4]
    assert old.tolist() == new.tolist() == [1111, 4] and str(device) == "cpu"


def test_chapter2_tensor_of_a_tensor_warns():
    with pytest.warns(UserWarning, match="clone"):
        t.tensor(t.tensor([3, 4]))
