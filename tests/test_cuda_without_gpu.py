"""`ember.cuda` answers as `torch.cuda` does in a PyTorch built without CUDA: the same values for
what can be answered on a CPU, the same exception classes for what needs a GPU (so that scripts that
probe, catch or fall back behave the same), and ember's messages say what to do instead."""

import io
import warnings

import pytest

import ember


def _calls(lib):
    """Name -> a call exercising one GPU-related entry point of `lib` (ember or torch)."""
    x = lib.ones(2)
    return {
        "tensor.cuda()": lambda: x.cuda(),
        "tensor.cuda(0)": lambda: x.cuda(0),
        "tensor.cuda(device=1)": lambda: x.cuda(device=1),
        "tensor.cuda(non_blocking=True)": lambda: x.cuda(non_blocking=True),
        "tensor.to('cuda')": lambda: x.to("cuda"),
        "tensor.to('cuda:1')": lambda: x.to("cuda:1"),
        "tensor.to(0)": lambda: x.to(0),
        "tensor.to('mps')": lambda: x.to("mps"),
        "zeros(device='cuda')": lambda: lib.zeros(2, device="cuda"),
        "zeros(device=0)": lambda: lib.zeros(2, device=0),
        "zeros(device='xpu')": lambda: lib.zeros(2, device="xpu"),
        "tensor(device='cuda')": lambda: lib.tensor([1.0], device="cuda"),
        "Linear.cuda()": lambda: lib.nn.Linear(2, 2).cuda(),
        "Linear.cuda(1)": lambda: lib.nn.Linear(2, 2).cuda(device=1),
        "Linear.to('cuda', float64)": lambda: lib.nn.Linear(2, 2).to(device="cuda", dtype=lib.float64),
        "ReLU.cuda()": lambda: type(lib.nn.ReLU().cuda()).__name__,
        "ReLU.to('cuda')": lambda: type(lib.nn.ReLU().to("cuda")).__name__,
        "cuda.FloatTensor(2, 3)": lambda: lib.cuda.FloatTensor(2, 3),
        "cuda.LongTensor([1])": lambda: lib.cuda.LongTensor([1]),
        "isinstance(x, cuda.FloatTensor)": lambda: isinstance(x, lib.cuda.FloatTensor),
        "set_default_tensor_type(cuda)": lambda: lib.set_default_tensor_type("torch.cuda.FloatTensor"),
        "tensor.type('torch.cuda.FloatTensor')": lambda: x.type("torch.cuda.FloatTensor"),
        "tensor.pin_memory()": lambda: x.pin_memory(),
        "tensor.is_pinned()": lambda: x.is_pinned(),
        "tensor.is_cuda": lambda: x.is_cuda,
        "tensor.get_device()": lambda: x.get_device(),
        "with cuda.device(1)": lambda: lib.cuda.device(1).__enter__(),
        "with cuda.device(-1)": lambda: lib.cuda.device(-1).__enter__(),
        "with cuda.device_of(x)": lambda: lib.cuda.device_of(x).__enter__(),
        "with cuda.stream(None)": lambda: lib.cuda.stream(None).__enter__(),
        "cuda.Stream()": lambda: lib.cuda.Stream(),
        "cuda.Event()": lambda: lib.cuda.Event(enable_timing=True),
        "cuda.nvtx.range_push": lambda: lib.cuda.nvtx.range_push("a"),
        "cuda.OutOfMemoryError is a RuntimeError": lambda: issubclass(lib.cuda.OutOfMemoryError, RuntimeError),
        "OutOfMemoryError is cuda's": lambda: lib.OutOfMemoryError is lib.cuda.OutOfMemoryError,
        "cuda.is_available()": lambda: lib.cuda.is_available(),
        "cuda.is_initialized()": lambda: lib.cuda.is_initialized(),
        "cuda.is_bf16_supported()": lambda: lib.cuda.is_bf16_supported(),
        "cuda.device_count()": lambda: lib.cuda.device_count(),
        "cuda.get_arch_list()": lambda: lib.cuda.get_arch_list(),
        "cuda.empty_cache()": lambda: lib.cuda.empty_cache(),
        "cuda.memory_allocated()": lambda: lib.cuda.memory_allocated(),
        "cuda.max_memory_allocated()": lambda: lib.cuda.max_memory_allocated(),
        "cuda.memory_reserved()": lambda: lib.cuda.memory_reserved(),
        "cuda.memory_stats()": lambda: dict(lib.cuda.memory_stats()),
        "cuda.manual_seed(0)": lambda: lib.cuda.manual_seed(0),
        "cuda.manual_seed_all(0)": lambda: lib.cuda.manual_seed_all(0),
        "cuda.get_rng_state_all()": lambda: lib.cuda.get_rng_state_all(),
        "cuda.current_device()": lambda: lib.cuda.current_device(),
        "cuda.get_device_name()": lambda: lib.cuda.get_device_name(),
        "cuda.get_device_properties(0)": lambda: lib.cuda.get_device_properties(0),
        "cuda.get_device_capability()": lambda: lib.cuda.get_device_capability(),
        "cuda.synchronize()": lambda: lib.cuda.synchronize(),
        "cuda.mem_get_info()": lambda: lib.cuda.mem_get_info(),
        "cuda.initial_seed()": lambda: lib.cuda.initial_seed(),
    }


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = call()
        except Exception as error:  # noqa: BLE001 - the exception class is the outcome compared
            return "raises", type(error).__name__
    return "returns", value


def test_gpu_calls_answer_as_pytorch_without_cuda():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("the reference is a PyTorch without a GPU")
    expected, actual = _calls(torch), _calls(ember)
    differences = {
        name: (_outcome(expected[name]), _outcome(actual[name]))
        for name in expected
        if _outcome(expected[name]) != _outcome(actual[name])
    }
    assert differences == {}


def test_gpu_errors_say_what_to_do():
    with pytest.raises(AssertionError, match="not compiled with CUDA enabled.*device='cpu'"):
        ember.ones(2).cuda()
    with pytest.raises(RuntimeError, match="accelerator.*device='cpu'"):
        ember.ones(2).to(0)
    with pytest.raises(TypeError, match="torch.cuda.FloatTensor not available.*ember.FloatTensor"):
        ember.cuda.FloatTensor(2)


def test_pin_memory_in_a_loader_warns_as_pytorch_and_loads():
    loader = ember.utils.data.DataLoader([1.0, 2.0], batch_size=2, pin_memory=True)
    with pytest.warns(UserWarning, match="no accelerator is found"):
        assert next(iter(loader)).tolist() == [1.0, 2.0]


def test_a_checkpoint_mapped_to_cuda_raises_as_pytorch():
    buffer = io.BytesIO()
    ember.save(ember.ones(2), buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError, match="deserialize object on a CUDA device.*map_location='cpu'"):
        ember.load(buffer, map_location="cuda:0")
