"""The smaller torch namespaces real code touches: torch.jit (runs eagerly), torch.random, torch.hub,
torch._dynamo's switches, torch.types, DLPack, torch.overrides and old homes of moved functions."""

import hashlib
import os
import warnings

import numpy as np
import pytest

import ember
from ember import nn


def _twice(x):
    return x * 2


def test_script_and_trace_return_what_they_get_with_pytorchs_deprecation():
    with pytest.warns(DeprecationWarning, match="torch.jit.script` is deprecated"):
        scripted = ember.jit.script(_twice)
    assert scripted(ember.ones(2)).tolist() == [2.0, 2.0]
    calls = []
    model = nn.Linear(2, 2)
    model.register_forward_hook(lambda module, args, output: calls.append(output.shape))
    with pytest.warns(DeprecationWarning, match="torch.jit.trace` is deprecated"):
        traced = ember.jit.trace(model, ember.ones(1, 2))
    assert traced is model and calls == [(1, 2)]  # tracing runs the module once on the example
    assert not ember.jit.is_scripting() and not ember.jit.is_tracing()


def test_jit_decorators_leave_code_as_it_is():
    class Model(nn.Module):
        @ember.jit.ignore
        def helper(self):
            return 1.0

        @ember.jit.ignore(drop=True)
        def dropped(self):
            return 2.0

        @ember.jit.unused
        def unused(self):
            return 3.0

        def forward(self, x: ember.Tensor) -> ember.Tensor:
            value = ember.jit.annotate(float, self.helper() + self.dropped() + self.unused())
            return x + value if not ember.jit.is_scripting() else x

    assert Model()(ember.zeros(1)).tolist() == [6.0]
    assert ember.jit.fork(_twice, ember.ones(1)).wait().tolist() == [2.0]
    assert ember.jit.isinstance([1, 2], list[int]) and not ember.jit.isinstance(1, str)


def test_jit_save_and_load_keep_the_whole_module(tmp_path):
    model = nn.Linear(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ember.jit.save(ember.jit.script(model), tmp_path / "m.pt")
        loaded = ember.jit.load(tmp_path / "m.pt")
    x = ember.randn(4, 3)
    assert ember.equal(loaded(x), model(x))


def test_a_torchscript_archive_from_pytorch_is_refused_with_what_to_do(tmp_path):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), tmp_path / "scripted.pt")
        with pytest.raises(RuntimeError, match="TorchScript archive.*state_dict"):
            ember.jit.load(tmp_path / "scripted.pt")


def test_fork_rng_restores_the_stream():
    ember.manual_seed(5)
    with ember.random.fork_rng():
        inside = ember.rand(3)
    assert ember.equal(ember.rand(3), inside)
    with ember.random.fork_rng(enabled=False):
        ember.rand(3)
    ember.manual_seed(5)
    ember.rand(6)
    assert ember.random.initial_seed() == 5


def test_hub_folder_follows_torch_home_and_set_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(ember.hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    assert ember.hub.get_dir() == str(tmp_path / "home" / "hub")
    ember.hub.set_dir(tmp_path / "elsewhere")
    assert ember.hub.get_dir() == str(tmp_path / "elsewhere")


def test_load_state_dict_from_url_downloads_once_and_checks_the_hash(tmp_path, monkeypatch):
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path / "hub"))
    source = tmp_path / "weights.pt"
    ember.save({"w": ember.arange(3.0)}, source)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    named = tmp_path / f"weights-{digest[:8]}.pt"
    os.rename(source, named)
    url = named.as_uri()  # a file:// URL: the download path runs without a network
    state = ember.hub.load_state_dict_from_url(url, check_hash=True)
    assert state["w"].tolist() == [0.0, 1.0, 2.0]
    assert (tmp_path / "hub" / "checkpoints" / named.name).exists()
    os.remove(named)  # cached now: no second download
    assert ember.hub.load_state_dict_from_url(url)["w"].tolist() == [0.0, 1.0, 2.0]
    bad = tmp_path / "other-deadbeef.pt"
    ember.save({}, bad)
    with pytest.raises(RuntimeError, match="invalid hash value"):
        ember.hub.load_state_dict_from_url(bad.as_uri(), check_hash=True)
    assert not (tmp_path / "hub" / "checkpoints" / bad.name).exists()


def test_hub_load_calls_a_local_hubconf_entry_point(tmp_path):
    (tmp_path / "hubconf.py").write_text(
        "import ember\n\ndef tiny(width=2):\n    '''A tiny model.'''\n    return ember.nn.Linear(width, 1)\n"
    )
    model = ember.hub.load(str(tmp_path), "tiny", source="local", width=3)
    assert isinstance(model, nn.Linear) and model.in_features == 3
    with pytest.raises(RuntimeError, match="Cannot find callable missing in hubconf"):
        ember.hub.load(str(tmp_path), "missing", source="local")


def test_dynamo_switches_and_graph_break():
    ember._dynamo.config.suppress_errors = True
    ember._dynamo.reset()
    ember._dynamo.mark_dynamic(ember.ones(2), 0)
    assert not ember._dynamo.is_compiling()

    def step(x):
        y = x * 2
        ember._dynamo.graph_break()
        return y + 1

    with pytest.raises(ember.compiler.GraphBreak, match="graph_break"):
        ember.compile(step, fullgraph=True)(ember.ones(2))
    ember._dynamo.graph_break()  # outside a compiled call: nothing happens


def test_types_aliases():
    assert isinstance(3, ember.types.Number) and isinstance(2.5, ember.types.Number)
    assert ember.types.Tensor is ember.Tensor and ember.storage.UntypedStorage is ember.UntypedStorage


def test_dlpack_shares_memory_both_ways():
    array = np.arange(3.0)
    tensor = ember.from_dlpack(array)
    array[0] = 5.0
    assert tensor[0].item() == 5.0
    back = np.from_dlpack(tensor)
    back[1] = 7.0
    assert tensor[1].item() == 7.0
    assert ember.utils.dlpack.from_dlpack(tensor).tolist() == [5.0, 7.0, 2.0]
    assert type(ember.utils.dlpack.to_dlpack(tensor)).__name__ == "PyCapsule"
    with pytest.raises(BufferError, match="require gradient"):
        np.from_dlpack(ember.ones(2, requires_grad=True))


def test_old_homes_of_functional_call_and_load_url():
    module = ember.nn.Linear(2, 1)
    weights = {"weight": ember.zeros(1, 2), "bias": ember.ones(1)}
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        result = ember.nn.utils.stateless.functional_call(module, weights, (ember.ones(3, 2),))
    assert result.tolist() == [[1.0]] * 3
    from ember.utils import model_zoo

    assert model_zoo.load_url is ember.hub.load_state_dict_from_url


def test_overrides_report_no_torch_function():
    tensor = ember.ones(1)
    assert ember.overrides.is_tensor_like(tensor) and not ember.overrides.is_tensor_like(1.0)
    assert not ember.overrides.has_torch_function((tensor,))
    assert not ember.overrides.has_torch_function_unary(tensor)
    assert not ember.overrides.has_torch_function_variadic(tensor, tensor)


def test_constants_layouts_and_small_top_level_functions_match_torch(torch):
    import pickle

    for name in ("pi", "e", "inf", "nan", "newaxis"):
        assert repr(getattr(ember, name)) == repr(getattr(torch, name))
    assert repr(ember.strided) == repr(torch.strided) and repr(ember.sparse_coo) == repr(torch.sparse_coo)
    assert isinstance(ember.strided, ember.layout) and ember.ones(2).layout is ember.strided
    assert pickle.loads(pickle.dumps(ember.sparse_coo)) is ember.sparse_coo
    assert ember.ones(3)[ember.newaxis].shape == (1, 3)
    assert ember.get_device(ember.ones(1)) == torch.get_device(torch.ones(1)) == -1
    assert not ember.detach(ember.ones(2, requires_grad=True)).requires_grad
    assert ember.is_storage(ember.ones(1).untyped_storage()) and not ember.is_storage(ember.ones(1))
    assert ember.ones(2).cfloat().dtype == ember.complex64 and ember.ones(2).cdouble().dtype == ember.complex128


def test_deprecated_range_is_inclusive_with_torchs_warning(torch):
    for args, kwargs in [((1, 4), {}), ((0, 1, 0.25), {}), ((1, 4), {"dtype": "int64"}), ((5, 1, -1.5), {})]:
        with pytest.warns(UserWarning, match="torch.range is deprecated") as ours:
            mine = ember.range(*args, **{k: getattr(ember, v) for k, v in kwargs.items()})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.range(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
        assert str(mine.dtype) == str(theirs.dtype) and mine.tolist() == theirs.tolist()
        assert ours[0].filename == __file__


def test_frombuffer_shares_a_writable_buffer_and_copies_bytes(torch):
    buffer = bytearray(np.arange(6, dtype=np.int32).tobytes())
    tensor = ember.frombuffer(buffer, dtype=ember.int32, count=3, offset=4)
    assert tensor.tolist() == torch.frombuffer(buffer, dtype=torch.int32, count=3, offset=4).tolist() == [1, 2, 3]
    tensor[0] = 10
    assert np.frombuffer(buffer, dtype=np.int32)[1] == 10
    assert ember.frombuffer(b"\x01\x00", dtype=ember.int16).tolist() == [1]
    with pytest.raises(ValueError, match="buffer length"):
        ember.frombuffer(bytearray(), dtype=ember.float32)


def test_functional_ops_under_torchs_top_level_names_match_torch(torch):
    x = np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32)
    same_results = [
        ("pdist", (x[0],), {}),
        ("pdist", (x[0], 1.0), {}),
        ("channel_shuffle", (x, 2), {}),
        ("rms_norm", (x, (3,)), {}),
        ("celu_", (x.copy(), 0.5), {}),
        ("selu_", (x.copy(),), {}),
        ("threshold_", (x.copy(), 0.1, -1.0), {}),
        ("rrelu_", (x.copy(),), {}),  # not training: the fixed mean slope
        ("feature_alpha_dropout", (x, 0.5, False), {}),
    ]
    for name, args, kwargs in same_results:
        mine = getattr(ember, name)(*[ember.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args])
        theirs = getattr(torch, name)(*[torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args])
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6, err_msg=name)
    assert ember.celu_ is ember.nn.functional.celu_ and "pdist" in dir(ember)


def test_aten_dropouts_in_place_draw_torchs_masks(torch):
    for name in ("dropout_", "feature_dropout_", "alpha_dropout_", "feature_alpha_dropout_"):
        ember.manual_seed(3)
        torch.manual_seed(3)
        mine, theirs = ember.ones(2, 3, 4), torch.ones(2, 3, 4)
        assert getattr(ember, name)(mine, 0.5, True) is mine
        getattr(torch, name)(theirs, 0.5, True)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6, err_msg=name)
        untouched = ember.ones(3)
        assert getattr(ember, name)(untouched, 0.5, False) is untouched and untouched.tolist() == [1.0] * 3
        leaf = ember.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match=f"leaf Variable.*{name}"):
            getattr(ember, name)(leaf, 0.5, True)
    with pytest.raises(ValueError, match="between 0 and 1"):
        ember.feature_dropout_(ember.ones(2, 2), 1.5, True)


def test_grad_scaler_at_the_top_level_is_amps():
    assert ember.GradScaler is ember.amp.GradScaler


@pytest.mark.parametrize(
    "snippet",
    [
        lambda t: t.nonzero_static(t.tensor([[1, 0], [0, 1]]), size=1),
        lambda t: t.nonzero_static(t.tensor([[1, 0], [0, 1]]), size=3, fill_value=7),
        lambda t: t.tensor([1.0, 0.0, 2.0]).nonzero_static(size=0),
        lambda t: t.nonzero_static(t.tensor(3), size=2),
        lambda t: t.nonzero_static(t.tensor([1, 0]), size=-1),
        lambda t: t.nonzero_static(t.tensor([1, 0]), size=1.5),
        lambda t: t.empty_permuted((2, 3, 4), (0, 2, 1)).stride(),
        lambda t: t.empty_permuted((2, 3, 4), (2, 0, 1), dtype=t.float64).stride(),
        lambda t: t.empty_permuted((2, 3), (0, 0)),
        lambda t: t.empty_permuted((2, 3), (0, 2)),
        lambda t: t.empty_permuted((2, 3), (0,)),
        lambda t: t.frobenius_norm(t.ones(2, 3, 4), (0, 1, 2)),
        lambda t: t.max_pool1d_with_indices(t.arange(12.0).reshape(1, 2, 6), 2),
        lambda t: t.is_distributed(t.ones(2)),
        lambda t: t.resize_as_(t.zeros(1), t.ones(2, 3)).shape,
    ],
)
def test_smaller_top_level_names_match_torch(snippet):
    torch = pytest.importorskip("torch")
    from .ops.differential import assert_same

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # frobenius_norm's deprecation, in both
        assert_same(snippet, torch)


def test_detach_in_place_and_device_modules():
    x = ember.ones(2, requires_grad=True) * 2
    assert ember.detach_(x) is x and not x.requires_grad and x.grad_fn is None
    assert ember.get_device_module() is ember.cpu and ember.get_device_module("cuda") is ember.cuda
    with pytest.raises(RuntimeError, match="'meta' does not have a corresponding module"):
        ember.get_device_module("meta")
