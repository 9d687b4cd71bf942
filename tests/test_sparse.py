"""Sparse COO tensors against PyTorch: constructors, repr, coalesce, to_dense, products and their
gradients, and the errors of ops that take no sparse input."""

import warnings

import numpy as np
import pytest

import ember
import ember.sparse

INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]  # (0, 2) twice: an uncoalesced tensor
VALUES = [3.0, 4.0, 5.0, 1.0, -2.5]
SIZE = (3, 4)


def _pair(torch, values=VALUES, indices=INDICES, size=SIZE, dtype="float32", **kwargs):
    """The same sparse tensor in ember and in torch."""
    mine = ember.sparse_coo_tensor(
        ember.tensor(indices), ember.tensor(values, dtype=getattr(ember, dtype)), size, **kwargs
    )
    theirs = torch.sparse_coo_tensor(
        torch.tensor(indices), torch.tensor(values, dtype=getattr(torch, dtype)), size, check_invariants=True, **kwargs
    )
    return mine, theirs


def _same(mine, theirs):
    """Equal values, shape, dtype and layout (sparse tensors compared through their parts)."""
    assert str(mine.layout) == str(theirs.layout)
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype) == str(theirs.dtype)
    if theirs.is_sparse:
        np.testing.assert_array_equal(mine._indices().numpy(), theirs._indices().numpy())
        np.testing.assert_allclose(mine._values().detach().numpy(), theirs._values().detach().numpy(), rtol=1e-6)
        assert mine.is_coalesced() == theirs.is_coalesced()
    else:
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_constructor_metadata_matches_torch(torch):
    mine, theirs = _pair(torch)
    assert mine.is_sparse and theirs.is_sparse
    assert str(mine.layout) == "torch.sparse_coo" and str(ember.sparse_coo) == str(torch.sparse_coo)
    assert str(ember.ones(2).layout) == str(torch.strided)
    assert (mine._nnz(), mine.sparse_dim(), mine.dense_dim()) == (
        theirs._nnz(),
        theirs.sparse_dim(),
        theirs.dense_dim(),
    )
    assert (mine.dim(), mine.numel(), len(mine)) == (theirs.dim(), theirs.numel(), len(theirs))
    _same(mine, theirs)


def test_size_is_inferred_from_the_indices_and_dense_dims(torch):
    values = [[1.0, 2.0], [3.0, 4.0]]
    mine = ember.sparse_coo_tensor(ember.tensor([[0, 4], [1, 2]]), ember.tensor(values))
    theirs = torch.sparse_coo_tensor(torch.tensor([[0, 4], [1, 2]]), torch.tensor(values), check_invariants=True)
    assert tuple(mine.shape) == tuple(theirs.shape) == (5, 3, 2)
    assert (mine.sparse_dim(), mine.dense_dim()) == (theirs.sparse_dim(), theirs.dense_dim())
    _same(mine.to_dense(), theirs.to_dense())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_repr_matches_torch(torch, dtype):
    mine, theirs = _pair(torch, dtype=dtype)
    assert repr(mine) == repr(theirs)
    assert repr(mine.coalesce()) == repr(theirs.coalesce())
    empty = ember.sparse_coo_tensor(ember.zeros(2, 0, dtype=ember.int64), ember.zeros(0), (2, 2))
    their_empty = torch.sparse_coo_tensor(
        torch.zeros(2, 0, dtype=torch.int64), torch.zeros(0), (2, 2), check_invariants=True
    )
    assert repr(empty) == repr(their_empty)
    leaf, torch_leaf = mine.detach().requires_grad_(), theirs.detach().requires_grad_()
    assert repr(leaf) == repr(torch_leaf)


def test_coalesce_sums_repeated_indices_and_sorts(torch):
    mine, theirs = _pair(torch, indices=[[2, 0, 1, 0, 2], [1, 3, 0, 3, 1]])
    assert not mine.is_coalesced()
    _same(mine.coalesce(), theirs.coalesce())
    _same(mine.coalesce().indices(), theirs.coalesce().indices())
    _same(mine.coalesce().values(), theirs.coalesce().values())


def test_values_of_an_uncoalesced_tensor_raise_as_in_torch(torch):
    mine, theirs = _pair(torch)
    for name in ("values", "indices"):
        with pytest.raises(RuntimeError, match=f"Cannot get {name} on an uncoalesced tensor") as expected:
            getattr(theirs, name)()
        with pytest.raises(RuntimeError, match=f"Cannot get {name} on an uncoalesced tensor") as error:
            getattr(mine, name)()
        assert str(error.value) == str(expected.value)


def test_to_dense_and_to_sparse_round_trip(torch):
    mine, theirs = _pair(torch)
    _same(mine.to_dense(), theirs.to_dense())
    dense = [[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]
    _same(ember.tensor(dense).to_sparse(), torch.tensor(dense).to_sparse())
    _same(ember.tensor(dense).to_sparse(1), torch.tensor(dense).to_sparse(1))


def test_legacy_constructors_as_pygcn_calls_them(torch):
    indices = np.vstack(([0, 2, 1], [1, 0, 2])).astype(np.int64)
    values = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    with pytest.warns(DeprecationWarning, match="sparse_coo_tensor"):
        mine = ember.sparse.FloatTensor(ember.from_numpy(indices), ember.from_numpy(values), ember.Size((3, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        theirs = torch.sparse.FloatTensor(torch.from_numpy(indices), torch.from_numpy(values), torch.Size((3, 3)))
        empty = torch.sparse.DoubleTensor(2, 5)
    _same(mine, theirs)
    assert isinstance(mine, ember.sparse.FloatTensor) and not isinstance(mine, ember.sparse.DoubleTensor)
    with pytest.warns(DeprecationWarning):
        _same(ember.sparse.DoubleTensor(2, 5), empty)


@pytest.mark.parametrize("product", ["mm", "spmm", "sparse.mm", "matmul", "@"])
def test_sparse_times_dense_matches_torch(torch, product):
    mine, theirs = _pair(torch, dtype="float64")
    dense = np.random.default_rng(1).standard_normal((4, 3))

    def multiply(library, sparse, other):
        if product == "@":
            return sparse @ other
        if product == "sparse.mm":
            return library.sparse.mm(sparse, other)
        return getattr(library, product)(sparse, other)

    _same(multiply(ember, mine, ember.tensor(dense)), multiply(torch, theirs, torch.tensor(dense)))
    vector = dense[:, 0].copy()
    if product in ("matmul", "@"):
        _same(multiply(ember, mine, ember.tensor(vector)), multiply(torch, theirs, torch.tensor(vector)))


@pytest.mark.parametrize("product", ["mm", "sparse.mm"])
def test_gradients_of_a_sparse_leaf_follow_torch(torch, product):
    """torch.mm gives a sparse leaf a dense gradient; torch.sparse.mm a sparse one on its own pattern."""
    mine, theirs = _pair(torch, dtype="float64")
    mine.requires_grad_()
    theirs.requires_grad_()
    dense = np.random.default_rng(2).standard_normal((4, 2))
    my_dense, their_dense = ember.tensor(dense, requires_grad=True), torch.tensor(dense, requires_grad=True)
    multiply = (lambda lib, a, b: lib.sparse.mm(a, b)) if product == "sparse.mm" else (lambda lib, a, b: lib.mm(a, b))
    my_out, their_out = multiply(ember, mine, my_dense), multiply(torch, theirs, their_dense)
    assert my_out.grad_fn.name() == their_out.grad_fn.name()
    weights = np.random.default_rng(3).standard_normal((3, 2))
    (my_out * ember.tensor(weights)).sum().backward()
    (their_out * torch.tensor(weights)).sum().backward()
    _same(mine.grad, theirs.grad)
    _same(my_dense.grad, their_dense.grad)


def test_gradients_of_values_and_of_to_dense_follow_torch(torch):
    values = np.array(VALUES)
    my_values, their_values = ember.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    mine = ember.sparse_coo_tensor(ember.tensor(INDICES), my_values, SIZE)
    theirs = torch.sparse_coo_tensor(torch.tensor(INDICES), their_values, SIZE, check_invariants=True)
    weights = np.arange(12.0).reshape(3, 4)
    my_dense, their_dense = mine.to_dense(), theirs.to_dense()
    assert my_dense.grad_fn.name() == their_dense.grad_fn.name()
    (my_dense * ember.tensor(weights)).sum().backward()
    (their_dense * torch.tensor(weights)).sum().backward()
    _same(my_values.grad, their_values.grad)
    coalesced_values = mine.coalesce().values()
    assert coalesced_values.grad_fn.name() == theirs.coalesce().values().grad_fn.name()


def test_gradcheck_of_products_in_float64():
    indices = ember.tensor(INDICES)
    values = ember.tensor(VALUES, dtype=ember.float64, requires_grad=True)
    dense = ember.randn(4, 2, dtype=ember.float64, requires_grad=True)
    for multiply in (ember.mm, ember.sparse.mm, ember.spmm):
        assert ember.autograd.gradcheck(
            lambda v, d: multiply(ember.sparse_coo_tensor(indices, v, SIZE), d), (values, dense)
        )


def test_sparse_arithmetic_matches_torch(torch):
    mine, theirs = _pair(torch)
    other_mine, other_theirs = _pair(torch, values=[1.0, 2.0, 3.0], indices=[[2, 0, 1], [3, 2, 0]])
    _same(mine * 2.5, theirs * 2.5)
    _same(2.5 * mine, 2.5 * theirs)
    _same(-mine, -theirs)
    _same((mine + other_mine).to_dense(), (theirs + other_theirs).to_dense())
    _same(mine.coalesce() + other_mine.coalesce(), theirs.coalesce() + other_theirs.coalesce())
    _same((mine - other_mine).to_dense(), (theirs - other_theirs).to_dense())
    _same(ember.ones(3, 4) + mine, torch.ones(3, 4) + theirs)
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported"):
        theirs + torch.ones(3, 4)
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported"):
        mine + ember.ones(3, 4)


def test_sums_match_torch(torch):
    mine, theirs = _pair(torch)
    _same(ember.sparse.sum(mine), torch.sparse.sum(theirs))
    _same(ember.sparse.sum(mine, 0), torch.sparse.sum(theirs, 0))
    _same(ember.sparse.sum(mine, (0, 1)), torch.sparse.sum(theirs, (0, 1)))
    _same(mine.sum(), theirs.sum())


def test_conversions_and_transposes_keep_the_layout(torch):
    mine, theirs = _pair(torch)
    _same(mine.double(), theirs.double())
    _same(mine.clone(), theirs.clone())
    _same(mine.t().to_dense(), theirs.t().to_dense())
    _same(mine.transpose(0, 1).to_dense(), theirs.transpose(0, 1).to_dense())
    assert mine.is_contiguous() == theirs.is_contiguous()


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, s: lib.exp(s),
        lambda lib, s: s.view(12),
        lambda lib, s: lib.nn.functional.log_softmax(s, 1),
        lambda lib, s: s.max(),
        lambda lib, s: s.mean(),
    ],
    ids=["exp", "view", "log_softmax", "max", "mean"],
)
def test_ops_without_a_sparse_kernel_raise_not_implemented_as_torch(torch, call):
    mine, theirs = _pair(torch)
    with pytest.raises(NotImplementedError, match="with arguments from the 'SparseCPU' backend"):
        call(torch, theirs)
    with pytest.raises(NotImplementedError, match="with arguments from the 'SparseCPU' backend"):
        call(ember, mine)


def test_numpy_of_a_sparse_tensor_raises_as_in_torch(torch):
    mine, theirs = _pair(torch)
    with pytest.raises(TypeError, match="can't convert Sparse layout tensor to numpy") as expected:
        theirs.numpy()
    with pytest.raises(TypeError) as error:
        mine.numpy()
    assert str(error.value) == str(expected.value)


def test_indices_outside_the_size_are_refused():
    with pytest.raises(RuntimeError, match="size is inconsistent with indices: for dim 1, size is 2 but found index 3"):
        ember.sparse_coo_tensor(ember.tensor([[0], [3]]), ember.tensor([1.0]), (2, 2))
    with pytest.raises(RuntimeError, match="indices and values must have the same nnz"):
        ember.sparse_coo_tensor(ember.tensor([[0, 1], [1, 0]]), ember.tensor([1.0]), (2, 2))


def test_a_graph_convolutional_network_trains_as_in_torch(torch):
    """Two graph convolutions (normalized sparse adjacency @ dense features) with dropout and Adam, the
    shape of a GCN script: the same losses as torch's, step by step, from the same seed."""
    rng = np.random.default_rng(4)
    nodes, features, hidden, classes = 12, 6, 5, 3
    adjacency = np.eye(nodes, dtype=np.float32)
    adjacency[tuple(rng.integers(0, nodes, size=(2, 30)))] = 1.0
    adjacency /= adjacency.sum(1, keepdims=True)
    indices = np.array(np.nonzero(adjacency), dtype=np.int64)
    values = adjacency[tuple(indices)]
    inputs = rng.standard_normal((nodes, features)).astype(np.float32)
    labels = rng.integers(0, classes, nodes)

    def train(library):
        library.manual_seed(0)
        functional = library.nn.functional
        graph = library.sparse_coo_tensor(
            library.from_numpy(indices), library.from_numpy(values), (nodes, nodes), check_invariants=True
        )
        weights = [
            library.nn.Parameter(library.empty(features, hidden).uniform_(-0.4, 0.4)),
            library.nn.Parameter(library.empty(hidden, classes).uniform_(-0.4, 0.4)),
        ]
        optimizer = library.optim.Adam(weights, lr=0.05, weight_decay=5e-4)
        losses = []
        for _ in range(5):
            optimizer.zero_grad()
            hidden_state = functional.relu(library.spmm(graph, library.mm(library.from_numpy(inputs), weights[0])))
            hidden_state = functional.dropout(hidden_state, 0.5, training=True)
            output = functional.log_softmax(library.spmm(graph, library.mm(hidden_state, weights[1])), dim=1)
            loss = functional.nll_loss(output, library.from_numpy(labels))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    np.testing.assert_allclose(train(ember), train(torch), rtol=1e-5)
