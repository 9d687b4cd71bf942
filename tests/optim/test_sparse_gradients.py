"""nn.Embedding(sparse=True): the sparse COO weight gradient and the optimizers that take it (SGD and
SparseAdam), against PyTorch; the others refuse it with PyTorch's errors."""

import warnings

import numpy as np
import pytest

import ember

LOOKUPS = [[1, 2, 1], [5, 3, 2]]


def _train(library, make_optimizer, steps=4, padding_idx=3):
    library.manual_seed(0)
    embedding = library.nn.Embedding(6, 3, sparse=True, padding_idx=padding_idx)
    optimizer = make_optimizer(library, embedding.parameters())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's note that sparse invariant checks are off
        for _ in range(steps):
            optimizer.zero_grad()
            embedding(library.tensor(LOOKUPS)).pow(2).sum().backward()
            optimizer.step()
    return embedding.weight.detach().numpy().copy()


def test_the_weight_gradient_is_torchs_sparse_tensor(torch):
    grads = []
    for library in (ember, torch):
        library.manual_seed(0)
        embedding = library.nn.Embedding(6, 3, sparse=True, padding_idx=3)
        embedding(library.tensor(LOOKUPS)).pow(2).sum().backward()
        grads.append(embedding.weight.grad)
    ours, theirs = grads
    assert ours.is_sparse and not ours.is_coalesced()
    assert ours._indices().tolist() == theirs._indices().tolist() == [[1, 2, 1, 5, 2]]  # padding left out
    np.testing.assert_array_equal(ours._values().numpy(), theirs._values().numpy())
    np.testing.assert_array_equal(ours.to_dense().numpy(), theirs.to_dense().numpy())


def test_functional_forms_take_sparse_and_scale_grad_by_freq_is_refused(torch):
    weight = ember.randn(6, 3, requires_grad=True)
    ember.nn.functional.embedding(ember.tensor([1, 1, 4]), weight, sparse=True).sum().backward()
    assert weight.grad.is_sparse and weight.grad.to_dense()[1].tolist() == [2.0, 2.0, 2.0]
    ember.embedding(weight, ember.tensor([0]), sparse=True).sum().backward()
    assert weight.grad.to_dense()[0].tolist() == [1.0, 1.0, 1.0]
    for library in (torch, ember):
        embedding = library.nn.Embedding(6, 3, sparse=True, scale_grad_by_freq=True)
        with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse gradients"):
            embedding(library.tensor([1, 1])).sum().backward()


@pytest.mark.parametrize(
    "make_optimizer",
    [
        lambda lib, params: lib.optim.SGD(params, lr=0.1),
        lambda lib, params: lib.optim.SGD(params, lr=0.1, maximize=True),
    ],
    ids=["sgd", "sgd-maximize"],
)
def test_sgd_steps_on_sparse_gradients_give_torchs_bits(torch, make_optimizer):
    np.testing.assert_array_equal(_train(ember, make_optimizer), _train(torch, make_optimizer))


@pytest.mark.parametrize(
    "make_optimizer",
    [
        lambda lib, params: lib.optim.SparseAdam(params, lr=0.1),
        lambda lib, params: lib.optim.SparseAdam(params, lr=0.05, betas=(0.8, 0.9), maximize=True),
    ],
    ids=["sparse-adam", "sparse-adam-maximize"],
)
def test_sparse_adam_steps_agree_with_torch_to_the_last_bit_of_its_sqrt(torch, make_optimizer):
    # PyTorch's float32 sqrt goes through MKL's vector maths, whose last bit depends on the CPU (on an
    # AVX2 machine it is off by one ulp where NumPy's is correctly rounded): the same order of
    # operations, so agreement within a few ulp.
    np.testing.assert_allclose(_train(ember, make_optimizer), _train(torch, make_optimizer), rtol=4e-7, atol=0)


def test_sgd_momentum_on_sparse_gradients_agrees_up_to_rounding(torch):
    def make(lib, params):
        return lib.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True)

    np.testing.assert_allclose(_train(ember, make), _train(torch, make), rtol=1e-6, atol=1e-7)


def test_sparse_adam_state_is_torchs(torch):
    states = []
    for library in (ember, torch):
        library.manual_seed(0)
        embedding = library.nn.Embedding(6, 3, sparse=True)
        optimizer = library.optim.SparseAdam(embedding.parameters(), lr=0.1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):
                optimizer.zero_grad()
                embedding(library.tensor([1, 2, 1, 5])).sum().backward()
                optimizer.step()
        states.append(optimizer.state_dict()["state"][0])
    ours, theirs = states
    assert ours["step"] == theirs["step"] == 3 and type(ours["step"]) is type(theirs["step"])
    for key in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_array_equal(ours[key].numpy(), theirs[key].numpy())


@pytest.mark.parametrize(
    "make_optimizer",
    [
        lambda lib, params: lib.optim.Adam(params),
        lambda lib, params: lib.optim.AdamW(params),
        lambda lib, params: lib.optim.RMSprop(params),
        lambda lib, params: lib.optim.NAdam(params),
        lambda lib, params: lib.optim.SGD(params, lr=0.1, weight_decay=0.1),
    ],
    ids=["adam", "adamw", "rmsprop", "nadam", "sgd-weight-decay"],
)
def test_optimizers_without_sparse_support_raise_torchs_error(torch, make_optimizer):
    for library in (torch, ember):
        weight = library.nn.Parameter(library.randn(5, 3))
        weight.grad = library.sparse_coo_tensor([[1, 2]], library.ones(2, 3), (5, 3), check_invariants=True)
        with pytest.raises(RuntimeError) as caught:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                make_optimizer(library, [weight]).step()
        if library is torch:
            expected = str(caught.value)
        else:
            assert str(caught.value) == expected


def test_sparse_adam_refuses_a_dense_gradient():
    weight = ember.nn.Parameter(ember.randn(5, 3))
    weight.grad = ember.ones(5, 3)
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, please consider Adam"):
        ember.optim.SparseAdam([weight]).step()
