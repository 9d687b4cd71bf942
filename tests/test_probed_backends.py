"""Names libraries probe at import: CUDA graphs and stream contexts, torch.xpu, memory formats,
`with torch.device(...)`, compiler decorators. Each gives PyTorch's CPU-only answer or a clear error."""

import pickle

import pytest

import ember
from ember import _dynamo, compiler, xpu
from ember._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex


def test_cuda_graphs_cannot_be_made_without_cuda():
    with pytest.raises(RuntimeError, match="CUDAGraph"):
        ember.cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="requires CUDA"):
        ember.cuda.graph(None)


def test_stream_context_of_none_is_a_no_op():
    with ember.cuda.StreamContext(None) as entered:
        assert entered is None
    with ember.cuda.stream(None):
        pass
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        ember.cuda.StreamContext(object())


def test_xpu_answers_as_pytorch_without_xpu():
    assert (xpu.is_available(), xpu.device_count(), xpu.is_bf16_supported(), xpu.memory_allocated()) == (
        False,
        0,
        False,
        0,
    )
    xpu.manual_seed(0)
    xpu.empty_cache()
    with pytest.raises(AssertionError, match="XPU"):
        xpu.synchronize()


def test_memory_formats_are_named_singletons_accepted_by_clone():
    formats = [ember.contiguous_format, ember.preserve_format, ember.channels_last, ember.channels_last_3d]
    assert all(isinstance(form, ember.memory_format) for form in formats)
    assert repr(ember.channels_last) == "torch.channels_last"
    assert pickle.loads(pickle.dumps(ember.preserve_format)) is ember.preserve_format
    source = ember.arange(6.0).view(2, 3)
    copy = source.clone(memory_format=ember.contiguous_format)
    assert copy.tolist() == source.tolist() and copy.data_ptr() != source.data_ptr()


def test_device_as_context_manager():
    with ember.device("cpu") as chosen:
        assert chosen == ember.device("cpu") and ember.zeros(1).device == chosen
    with pytest.raises(RuntimeError, match="no 'meta' device"):
        with ember.device("meta"):
            pass


def test_compiler_decorators_return_the_function():
    def function(x):
        return x

    assert compiler.allow_in_graph(function) is function
    assert compiler.assume_constant_result(function) is function
    assert _dynamo.assume_constant_result(function) is function


def test_transform_getitem_to_index_raises_on_entry():
    with pytest.raises(NotImplementedError, match="function mode"):
        with TransformGetItemToIndex():
            pass


def test_names_match_torch():
    torch = pytest.importorskip("torch")
    assert repr(torch.channels_last) == repr(ember.channels_last)
    assert torch.xpu.is_available() == xpu.is_available()
    with pytest.raises(RuntimeError):
        torch.cuda.CUDAGraph()
