"""After the same seed, ember's random numbers are PyTorch's, bit for bit (differential, needs torch)."""

import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

SIZES = [1, 2, 15, 16, 17, 31, 33, 1000, (3, 5), (7, 3, 2), (4, 16)]
FLOATS = ["float32", "float64"]


def both(run, seed=0):
    """`run(lib)` under ember and under torch from the same seed, as NumPy arrays (or tuples of them)."""
    results = []
    for lib in (ember, torch):
        lib.manual_seed(seed)
        results.append(run(lib))
    return results


def assert_identical(ours, theirs):
    ours, theirs = np.asarray(ours.tolist() if hasattr(ours, "tolist") else ours), np.asarray(theirs.tolist())
    assert ours.shape == theirs.shape
    different = ~((ours == theirs) | (np.isnan(ours) & np.isnan(theirs)) if ours.dtype.kind == "f" else ours == theirs)
    assert not different.any(), (
        f"{different.sum()} of {ours.size} differ; first: {ours[different][:4]} vs {theirs[different][:4]}"
    )


def check(run, seed=0):
    ours, theirs = both(run, seed)
    assert_identical(ours, theirs)


def _shape(size):
    return size if isinstance(size, tuple) else (size,)


# ---------------------------------------------------------------- seeds and states
@pytest.mark.parametrize("seed", [0, 1, 42, 2**32 + 5, 2**63, -1, 67280421310721])
def test_seeds_give_torch_streams(seed):
    check(lambda lib: lib.rand(20), seed)
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    assert ember.initial_seed() == torch.initial_seed()


def test_state_layout_is_torchs_and_loads_both_ways():
    ember.manual_seed(3)
    torch.manual_seed(3)
    assert_identical(ember.get_rng_state(), torch.get_rng_state())
    ember.randn(3)  # leaves a cached normal sample, which the state carries
    torch.randn(3)
    assert_identical(ember.get_rng_state(), torch.get_rng_state())
    torch.rand(700)
    ember.set_rng_state(ember.tensor(torch.get_rng_state().numpy()))
    assert_identical(ember.randn(5), torch.randn(5))
    saved = ember.get_rng_state()
    torch.set_rng_state(torch.from_numpy(saved.numpy().copy()))
    assert_identical(ember.rand(3), torch.rand(3))


def test_state_round_trip_within_ember():
    ember.manual_seed(11)
    ember.randn(1)
    state = ember.get_rng_state()
    first = ember.randn(7)
    ember.set_rng_state(state)
    assert_identical(ember.randn(7), first.numpy())


def test_generator_objects():
    ours, theirs = ember.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    assert_identical(ember.rand(4, generator=ours), torch.rand(4, generator=theirs))
    assert ember.Generator().initial_seed() == torch.Generator().initial_seed()
    assert_identical(ours.get_state(), theirs.get_state())


# ---------------------------------------------------------------- uniform
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rand(size, dtype):
    check(lambda lib: lib.rand(_shape(size), dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("bounds", [(0.0, 1.0), (-1.0, 1.0), (-0.1234, 0.777), (3.0, 3.5), (-1e-3, 2e5)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_(bounds, dtype):
    check(lambda lib: lib.empty(4000, dtype=getattr(lib, dtype)).uniform_(*bounds))


def test_fills_of_transposed_tensors_follow_memory_order():
    check(lambda lib: lib.empty(5, 7).t().uniform_())
    check(lambda lib: lib.empty(6, 40).t().normal_())


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_rand_draws_real_and_imaginary_parts_interleaved(dtype):
    check(lambda lib: lib.rand(3, 5, dtype=getattr(lib, dtype)))


def test_rand_like():
    check(lambda lib: lib.rand_like(lib.zeros(3, 4, dtype=lib.float64)))


# ---------------------------------------------------------------- normal
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_randn(size, dtype):
    check(lambda lib: lib.randn(_shape(size), dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("size", [5, 16, 1000, 100_003])
@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_with_mean_and_std(size, dtype):
    check(lambda lib: lib.empty(size, dtype=getattr(lib, dtype)).normal_(0.3, 2.5))


def test_interleaved_calls_share_the_cached_normal():
    def run(lib):
        return lib.cat(
            [lib.randn(1), lib.rand(2), lib.randn(3), lib.randn(20), lib.randn(1, dtype=lib.float64).float()]
        )

    check(run)


def test_normal_with_tensor_arguments():
    mean, std = np.linspace(-1, 1, 40, dtype=np.float32), np.linspace(0.1, 3, 40, dtype=np.float32)
    check(lambda lib: lib.normal(lib.tensor(mean), lib.tensor(std)))
    check(lambda lib: lib.normal(lib.tensor(mean), 2.0))
    check(lambda lib: lib.normal(0.5, lib.tensor(std)))
    check(lambda lib: lib.normal(2.0, 3.0, (5, 7)))


def test_randn_like():
    check(lambda lib: lib.randn_like(lib.zeros(4, 9)))


# ---------------------------------------------------------------- integers
@pytest.mark.parametrize("bounds", [(0, 10), (-5, 5), (0, 2), (3, 2**31), (0, 2**32), (-(2**40), 2**40)])
@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64"])
def test_randint(bounds, dtype):
    if (dtype != "int64" and bounds[1] - bounds[0] > 2**31) or (dtype == "float32" and bounds[1] > 2**24):
        return  # out of the type's range (PyTorch warns and adjusts the bounds)
    check(lambda lib: lib.randint(*bounds, (300,), dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "bool", "float32", "float64"])
def test_random_without_bounds(dtype):
    check(lambda lib: lib.empty(200, dtype=getattr(lib, dtype)).random_())


def test_random_with_bounds():
    check(lambda lib: lib.empty(50, dtype=lib.int64).random_(7))
    check(lambda lib: lib.empty(50, dtype=lib.int64).random_(-3, 9))
    check(lambda lib: lib.empty(50, dtype=lib.int64).random_(2**62, None))
    check(lambda lib: lib.empty(50, dtype=lib.int64).random_(-(2**63), None))
    check(lambda lib: lib.empty((), dtype=lib.int64).random_())


@pytest.mark.parametrize("n", [1, 2, 3, 10, 1000, 70_000])
def test_randperm(n):
    check(lambda lib: lib.randperm(n))
    check(lambda lib: lib.randperm(n, generator=lib.Generator().manual_seed(5)))


# ---------------------------------------------------------------- other distributions
def test_bernoulli():
    probabilities = np.linspace(0, 1, 300).reshape(20, 15)
    check(lambda lib: lib.bernoulli(lib.tensor(probabilities)))
    check(lambda lib: lib.bernoulli(lib.tensor(probabilities, dtype=lib.float32)))
    check(lambda lib: lib.bernoulli(lib.zeros(40), 0.3))
    check(lambda lib: lib.empty(40).bernoulli_(0.7))
    check(lambda lib: lib.empty(40).bernoulli_(lib.full((40,), 0.25)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_exponential_geometric_cauchy_log_normal(dtype):
    check(lambda lib: lib.empty(500, dtype=getattr(lib, dtype)).exponential_(2.5))
    check(lambda lib: lib.empty(500, dtype=getattr(lib, dtype)).geometric_(0.3))
    check(lambda lib: lib.empty(500, dtype=getattr(lib, dtype)).cauchy_(1.0, 2.0))
    check(lambda lib: lib.empty(501, dtype=getattr(lib, dtype)).log_normal_(0.5, 0.75))


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("dtype", FLOATS)
def test_multinomial(replacement, dtype):
    weights = np.arange(1, 41, dtype=dtype).reshape(4, 10) ** 1.5
    check(lambda lib: lib.multinomial(lib.tensor(weights), 5, replacement))
    check(lambda lib: lib.multinomial(lib.tensor(weights[0]), 1, replacement))
    if replacement:
        check(lambda lib: lib.multinomial(lib.tensor(weights[1]), 300, True))


# ---------------------------------------------------------------- dropout
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout(p):
    data = np.linspace(-2, 2, 600, dtype=np.float32).reshape(20, 30)
    check(lambda lib: lib.nn.functional.dropout(lib.tensor(data), p))
    check(lambda lib: lib.nn.Dropout(p)(lib.tensor(data)))


def test_feature_dropout():
    data = np.linspace(-2, 2, 4 * 6 * 9, dtype=np.float32).reshape(4, 6, 3, 3)
    check(lambda lib: lib.nn.functional.dropout2d(lib.tensor(data), 0.4))


# ---------------------------------------------------------------- nn.init and layers
INITS = [
    ("uniform_", dict(a=-0.3, b=0.7)),
    ("normal_", dict(mean=0.2, std=0.5)),
    ("xavier_uniform_", dict()),
    ("xavier_normal_", dict()),
    ("kaiming_uniform_", dict(a=math.sqrt(5))),
    ("kaiming_normal_", dict()),
]


@pytest.mark.parametrize("name, options", INITS)
@pytest.mark.parametrize("shape", [(3, 5), (64, 33), (8, 3, 3, 3)])
def test_init_functions(name, options, shape):
    check(lambda lib: getattr(lib.nn.init, name)(lib.empty(shape), **options))


@pytest.mark.parametrize("options", [dict(std=0.02), dict(mean=0.1, a=-0.5, b=0.5), dict(a=1.0, b=3.0)])
def test_trunc_normal_(options):
    check(lambda lib: lib.nn.init.trunc_normal_(lib.empty(300), **options))


def test_mlp_initial_weights_and_first_epoch_order():
    def run(lib):
        model = lib.nn.Sequential(
            lib.nn.Conv2d(1, 4, 3), lib.nn.Flatten(), lib.nn.Linear(4 * 6 * 6, 32), lib.nn.ReLU(), lib.nn.Linear(32, 10)
        )
        data = lib.utils.data.TensorDataset(lib.arange(100))
        order = [batch[0].tolist() for batch in lib.utils.data.DataLoader(data, batch_size=16, shuffle=True)]
        weights = lib.cat([parameter.detach().reshape(-1) for parameter in model.parameters()])
        return weights, order, lib.rand(3)

    (ours, our_order, our_after), (theirs, their_order, their_after) = both(run, seed=1234)
    assert_identical(ours, theirs)
    assert our_order == their_order
    assert_identical(our_after, their_after)


def test_samplers():
    def run(lib):
        data = list(range(50))
        generator = lib.Generator().manual_seed(3)
        return (
            list(lib.utils.data.RandomSampler(data)),
            list(lib.utils.data.RandomSampler(data, replacement=True, num_samples=70)),
            list(lib.utils.data.RandomSampler(data, generator=generator)),
            list(lib.utils.data.SubsetRandomSampler(data[:20])),
            list(lib.utils.data.WeightedRandomSampler([1.0, 2.0, 3.0, 0.5], 40)),
            list(lib.utils.data.WeightedRandomSampler([1.0, 2.0, 3.0, 0.5], 3, replacement=False)),
            [len(part) for part in lib.utils.data.random_split(data, [0.3, 0.7])],
            list(lib.utils.data.random_split(data, [20, 30])[0].indices),
        )

    ours, theirs = both(run)
    assert ours == theirs


def test_rrelu_slopes():
    data = np.linspace(-2, 2, 301, dtype=np.float32)
    check(lambda lib: lib.nn.functional.rrelu(lib.tensor(data), training=True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "complex64"])
@pytest.mark.parametrize("noncontiguous", [False, True])
def test_make_tensor(dtype, noncontiguous):
    def run(lib):
        make = lib.testing.make_tensor
        return make(3, 5, dtype=getattr(lib, dtype), device="cpu", noncontiguous=noncontiguous, exclude_zero=True)

    ours, theirs = both(run)
    assert np.array_equal(ours.numpy(), theirs.numpy())


DISTRIBUTIONS = {
    "Normal": lambda lib: lib.distributions.Normal(lib.zeros(20), lib.ones(20)).rsample((3,)),
    "Uniform": lambda lib: lib.distributions.Uniform(lib.zeros(20) - 1, lib.ones(20)).sample((3,)),
    "Bernoulli": lambda lib: lib.distributions.Bernoulli(probs=lib.full((20,), 0.3)).sample((3,)),
    "Categorical": lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.1, 0.2, 0.7])).sample((30,)),
    "Exponential": lambda lib: lib.distributions.Exponential(lib.full((20,), 2.0)).sample((3,)),
    "Cauchy": lambda lib: lib.distributions.Cauchy(lib.zeros(20), lib.ones(20)).sample((3,)),
    "Geometric": lambda lib: lib.distributions.Geometric(probs=lib.full((20,), 0.3)).sample((3,)),
    "MultivariateNormal": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(3), lib.eye(3)).sample((5,)),
}


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_distribution_samples(name):
    check(DISTRIBUTIONS[name])


def test_recurrent_dropout_between_layers_draws_as_torch_also_for_packed_batches():
    """PyTorch drops out a packed batch's packed elements only; the same draws give the same outputs."""
    lengths = [5, 3, 2]
    outputs = []
    for library in (torch, ember):
        library.manual_seed(0)
        sequences = [library.randn(length, 8) for length in lengths]
        lstm = library.nn.LSTM(8, 6, num_layers=2, bidirectional=True, batch_first=True, dropout=0.3)
        padded = library.nn.utils.rnn.pad_sequence(sequences, batch_first=True)
        packed = library.nn.utils.rnn.pack_padded_sequence(padded, library.tensor(lengths), batch_first=True)
        output, (hidden, _) = lstm(packed)
        outputs.append((output.data.detach().numpy(), hidden.detach().numpy(), library.rand(1).item()))
    (theirs, their_hidden, their_next), (ours, our_hidden, our_next) = outputs
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(our_hidden, their_hidden, rtol=1e-5, atol=1e-6)
    assert our_next == their_next  # the same number of draws
