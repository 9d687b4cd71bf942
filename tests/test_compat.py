"""Running PyTorch code unchanged: `python -m ember run script.py` and `ember.compat.install()`."""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import ember
import ember.compat as compat

REPO = Path(__file__).resolve().parents[1]

SCRIPT = '''
import sys
import torch
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Function
from torch.utils.data import DataLoader, TensorDataset
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
print("args", sys.argv[1:], "name", __name__)
print("is ember", "ember" in sys.modules and type(torch.tensor(1.0)) is sys.modules["ember"].Tensor)

class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return 2 * x * grad

x = torch.linspace(-1, 1, 64).reshape(64, 1)
y = 3 * x + 0.5
w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = optim.SGD([w, b], lr=0.5)
sched = StepLR(opt, step_size=100)
loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
for epoch in range(30):
    for xb, yb in loader:
        opt.zero_grad()
        loss = Square.apply(xb @ w + b - yb).mean()
        loss.backward()
        opt.step()
    sched.step()
print("fit", round(w.item(), 3), round(b.item(), 3))
try:
    torch.sparse.softmax(x, 0)
except NotImplementedError as error:
    print("missing:", error)
'''


def _run_ember(*args, cwd=None):
    environment = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "ember", *args], capture_output=True, text=True, timeout=120, env=environment, cwd=cwd
    )


def test_a_pytorch_script_runs_unchanged_through_python_m_ember_run(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    result = _run_ember("run", str(tmp_path / "train.py"), "--flag", "value")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "args ['--flag', 'value'] name __main__"
    assert lines[1] == "is ember True"
    assert lines[2] == "fit 3.0 0.5"
    assert lines[3] == "missing: torch.sparse.softmax is not implemented in ember"


def test_the_same_script_runs_on_real_torch(tmp_path, torch):
    """The script really is PyTorch code: plain python with torch installed gives the same fit."""
    (tmp_path / "train.py").write_text(SCRIPT)
    result = subprocess.run([sys.executable, str(tmp_path / "train.py")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "fit 3.0 0.5" in result.stdout and "is ember False" in result.stdout


def test_script_errors_exit_nonzero_with_the_traceback_python_prints(tmp_path):
    """The traceback starts in the script, as under `python script.py`: no frames of the runner."""
    body = "\n\ndef check(x):\n    raise ValueError(f'bad {x}')\n\ncheck(2)\n"
    (tmp_path / "bad.py").write_text("import torch" + body)
    (tmp_path / "plain.py").write_text("import json" + body)
    result = _run_ember("run", str(tmp_path / "bad.py"))
    plain = subprocess.run([sys.executable, str(tmp_path / "plain.py")], capture_output=True, text=True)
    assert result.returncode == plain.returncode == 1
    assert result.stderr == plain.stderr.replace("plain.py", "bad.py")
    assert result.stderr.startswith(f'Traceback (most recent call last):\n  File "{tmp_path / "bad.py"}", line 6')


def test_run_module_and_script_directory_on_path(tmp_path):
    (tmp_path / "helper.py").write_text("import torch\nVALUE = torch.ones(2).sum().item()\n")
    (tmp_path / "main.py").write_text("from helper import VALUE\nprint('value', VALUE)\n")
    assert _run_ember("run", str(tmp_path / "main.py")).stdout.strip() == "value 2.0"
    result = _run_ember("run", "-m", "main", cwd=tmp_path)
    assert result.stdout.strip() == "value 2.0", result.stderr


SPAWNING_SCRIPT = """
import torch
import torch.multiprocessing as mp

def double_sum(queue, tensor):
    queue.put((type(tensor).__module__, (tensor * 2).sum().item()))

if __name__ == "__main__":
    mp.set_start_method(METHOD, force=True)
    queue = mp.Queue()
    child = mp.Process(target=double_sum, args=(queue, torch.arange(4.0)))
    child.start()
    print(*queue.get())
    child.join()
    print("exit code", child.exitcode)
"""


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_spawned_processes_also_import_torch_as_ember(tmp_path, method):
    """A fresh child re-imports the script, whose `import torch` must give ember there too."""
    (tmp_path / "spawning.py").write_text(SPAWNING_SCRIPT.replace("METHOD", repr(method)))
    result = _run_ember("run", str(tmp_path / "spawning.py"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["torch 12.0", "exit code 0"]


def test_uninstall_stops_carrying_the_hook_into_spawned_processes():
    import multiprocessing.spawn

    compat.install()
    try:
        assert "ember_compat_install" in multiprocessing.spawn.get_preparation_data("child")
    finally:
        compat.uninstall()
    assert "ember_compat_install" not in multiprocessing.spawn.get_preparation_data("child")


def test_usage_and_missing_script(tmp_path):
    result = _run_ember("run")
    assert result.returncode == 2 and "usage" in result.stderr
    result = _run_ember("run", str(tmp_path / "nope.py"))
    assert result.returncode != 0 and "no such file" in result.stderr


def test_demo_runs_the_book_examples():
    result = _run_ember()
    assert result.returncode == 0, result.stderr
    assert "MultiplyAddBackward" in result.stdout
    assert "gradcheck(Sigmoid.apply, (x,)) = True" in result.stdout
    assert "d2y/dx2 = tensor([2.])" in result.stdout


@pytest.fixture
def fake_torch():
    torch = compat.install()
    yield torch
    compat.uninstall()


def test_install_maps_torch_modules_to_ember(fake_torch):
    import torch
    import torch.nn.functional as F  # noqa: F401
    import torch.optim.lr_scheduler
    from torch.utils.data import DataLoader
    from torch.autograd import grad

    assert torch is fake_torch and torch.Tensor is ember.Tensor
    assert DataLoader is ember.utils.data.DataLoader and grad is ember.autograd.grad
    assert torch.optim.lr_scheduler.StepLR is ember.optim.lr_scheduler.StepLR
    assert torch.optim.SGD is ember.optim.SGD and torch.save is ember.save
    assert torch.utils.data.dataloader.default_collate is ember.utils.data.default_collate
    assert torch.nn.functional.__name__ == "torch.nn.functional"


@pytest.mark.parametrize(
    "statement, name",
    [
        ("torch.sparse.softmax", "torch.sparse.softmax"),
        ("torch.compiled_with_cxx11_abi", "torch.compiled_with_cxx11_abi"),
        ("torch.nn.NotALayer", "torch.nn.NotALayer"),
        ("from torch.sparse import softmax", "torch.sparse.softmax"),
        ("from torch import not_a_function", "torch.not_a_function"),
        ("import torch.no_such_module", "torch.no_such_module"),
        ("import torch.nn.quantized", "torch.nn.quantized"),
    ],
)
def test_missing_apis_raise_not_implemented_naming_them(fake_torch, statement, name):
    import torch  # noqa: F401

    with pytest.raises(NotImplementedError, match=f"^{name} is not implemented in ember$"):
        exec(statement)


def test_missing_apis_still_behave_for_hasattr_and_import_error(fake_torch):
    import torch

    assert not hasattr(torch, "compiled_with_cxx11_abi")
    assert getattr(torch, "compiled_with_cxx11_abi", "fallback") == "fallback"
    assert hasattr(torch, "signal")  # a PyTorch module ember lacks: present, its functions are not
    with pytest.raises(ImportError):
        import torch.no_such_module  # noqa: F401
    with pytest.raises(AttributeError):
        torch.__no_such_dunder__


def test_uninstall_restores_real_torch(torch):
    real = sys.modules["torch"]
    compat.install()
    import torch as fake

    assert fake is not real and compat.is_installed()
    compat.uninstall()
    import torch as again

    assert again is real and not compat.is_installed()


def test_torch_version_is_the_api_level_ember_follows():
    torch = ember.compat.install()
    try:
        assert torch.__version__ == "2.13.0+cpu" == torch.version.__version__
        assert torch.__version__ != "2.13.0" and torch.__version__ != (2, 13, 0)  # the local part counts, as in torch
        assert torch.__version__ > "2.13.0" and torch.__version__ < "2.13.1"
        assert torch.__version__ >= "2.0" and torch.__version__ >= (1, 13) and torch.__version__ > "2.9"
        assert not torch.__version__ < "2.13" and torch.version.cuda is None
        assert torch.version.ember == ember.__version__ != torch.__version__
    finally:
        ember.compat.uninstall()


def test_torch_version_compares_as_real_torch_does():
    real = pytest.importorskip("torch")
    ours = ember.version.TorchVersion(real.__version__)
    others = ("2.0", "2.9", "2.13", "2.13.0", "2.13.0+cpu", "2.13.1", "3", (2, 13), (2, 13, 0), (1, 9, 1))
    for other in others:
        assert (ours >= other) == (real.__version__ >= other), other
        assert (ours < other) == (real.__version__ < other), other
        assert (ours == other) == (real.__version__ == other), other


def test_reprs_print_the_module_path_the_user_imported():
    """A custom Function's node and set_grad_enabled print with PyTorch's module path under `import torch`."""

    class MultiplyAdd(ember.autograd.Function):
        @staticmethod
        def forward(ctx, w, x):
            return w * x

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    node = MultiplyAdd.apply(ember.ones(1, requires_grad=True), ember.ones(1)).grad_fn
    assert repr(node).startswith("<ember.autograd.function.MultiplyAddBackward object at 0x")
    assert repr(ember.set_grad_enabled(True)) == "ember.autograd.grad_mode.set_grad_enabled(mode=True)"
    assert repr(ember.ones(1, requires_grad=True).exp().grad_fn).startswith("<ExpBackward0 object at 0x")
    torch = ember.compat.install()
    try:
        assert repr(node).startswith("<torch.autograd.function.MultiplyAddBackward object at 0x")
        assert repr(torch.set_grad_enabled(True)) == "torch.autograd.grad_mode.set_grad_enabled(mode=True)"
        assert repr(torch.no_grad()).startswith("<torch.autograd.grad_mode.no_grad object at 0x")
    finally:
        ember.compat.uninstall()


def test_messages_that_name_a_function_use_the_module_the_user_imported(fake_torch):
    """Under `import torch` a hint says torch.tensor / torch.ones_like, as PyTorch's text does."""
    with pytest.warns(UserWarning, match=r"rather than torch\.tensor\(sourceTensor\)\.$"):
        fake_torch.tensor(fake_torch.ones(1))
    with pytest.raises(RuntimeError, match=r"gradient=torch\.ones_like\(output\)"):
        fake_torch.ones(2, requires_grad=True).exp().backward()


def test_type_of_core_objects_prints_as_in_pytorch_while_installed():
    real = pytest.importorskip("torch")
    import pickle

    x = real.ones(1)
    expected = [str(type(value)) for value in (x, x.shape, x.dtype, x.device, real.nn.Parameter(x), real.Generator())]
    torch = ember.compat.install()
    try:
        y = torch.ones(1)
        shown = [
            str(type(value)) for value in (y, y.shape, y.dtype, y.device, torch.nn.Parameter(y), torch.Generator())
        ]
        assert shown == expected
        assert pickle.loads(pickle.dumps(y.shape)) == y.shape and type(pickle.loads(pickle.dumps(y))) is ember.Tensor
    finally:
        ember.compat.uninstall()
    assert str(type(ember.ones(1))) == "<class 'ember._tensor.Tensor'>"


def test_variable_is_silent_under_torch_names_as_in_pytorch(fake_torch):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = fake_torch.autograd.Variable(fake_torch.ones(2), requires_grad=True)
    assert v.requires_grad
    with pytest.warns(UserWarning, match=r"Use `with torch.no_grad\(\):` instead"):
        fake_torch.autograd.Variable(fake_torch.ones(2), volatile=True)
