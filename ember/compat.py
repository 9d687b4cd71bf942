"""Run code written for PyTorch on ember: `import torch` (and `torch.nn`, `torch.utils.data`, ...) gives ember.

    import ember.compat
    ember.compat.install()      # e.g. in the first cell of a notebook
    import torch                # ember, under PyTorch's names
    import torch.nn.functional as F

or, for a script, `python -m ember run script.py [args]`.

`install()` puts an import hook first on `sys.meta_path`: every `torch[.x.y]` import resolves to a
module object named `torch[.x.y]` that forwards to `ember[.x.y]` (the objects themselves are ember's,
so `torch.Tensor is ember.Tensor`). A PyTorch API that ember lacks raises `NotImplementedInEmber`, a
NotImplementedError naming it ("torch.sparse.softmax is not implemented in ember") that is also an
AttributeError, so `hasattr(torch, "compiled_with_cxx11_abi")` and `getattr(torch, name, default)` keep working.
`uninstall()` removes the hook and restores whatever `torch` modules were imported before.
`torchvision[.x]` resolves the same way to `ember.vision[.x]`.

While installed, processes started with the "spawn" or "forkserver" method (`torch.multiprocessing`
with `set_start_method("spawn")`, DataLoader workers in such a context) install the hook too, before
they re-import the parent's main script, so its `import torch` gives ember there as well.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types

from . import _naming

__all__ = ["install", "uninstall", "is_installed", "NotImplementedInEmber", "ModuleNotImplementedInEmber"]


class NotImplementedInEmber(NotImplementedError, AttributeError):
    """A PyTorch API that ember does not provide (also an AttributeError, so hasattr() answers False)."""


class ModuleNotImplementedInEmber(ModuleNotFoundError, NotImplementedError):
    """An import of a PyTorch name ember does not provide (also an ImportError, for `try: import ...`)."""


# PyTorch submodules reachable as attributes: when ember has no counterpart, `torch.signal` is a stand-in
# module and the error names the function used (`torch.signal.windows`), not just the module.
_TORCH_SUBMODULES = {
    "torch": {
        "accelerator",
        "amp",
        "ao",
        "autograd",
        "backends",
        "compiler",
        "cpu",
        "cuda",
        "distributed",
        "distributions",
        "export",
        "fft",
        "func",
        "functional",
        "futures",
        "fx",
        "hub",
        "jit",
        "library",
        "linalg",
        "masked",
        "monitor",
        "mps",
        "multiprocessing",
        "nested",
        "nn",
        "onnx",
        "optim",
        "overrides",
        "package",
        "profiler",
        "quantization",
        "quasirandom",
        "random",
        "return_types",
        "serialization",
        "signal",
        "sparse",
        "special",
        "storage",
        "testing",
        "types",
        "utils",
        "xpu",
    },
    "torch.nn": {"attention", "functional", "init", "modules", "parallel", "parameter", "utils"},
    "torch.utils": {"benchmark", "checkpoint", "data", "dlpack", "hooks", "tensorboard", "cpp_extension"},
    "torch.cuda": {"amp", "memory", "random", "graphs", "streams"},
    "torch.backends": {"cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"},
    "torchvision": {"datasets", "io", "models", "ops", "transforms", "tv_tensors", "utils"},
    "torchvision.transforms": {"functional", "v2"},
    "torchvision.transforms.v2": {"functional"},
    "torchvision.models": {"detection", "feature_extraction", "optical_flow", "quantization", "segmentation", "video"},
}


def _not_implemented(path, error=NotImplementedInEmber):
    return error(f"{path} is not implemented in ember")


def _ember_name(torch_name):
    if torch_name == "torchvision" or torch_name.startswith("torchvision."):
        return "ember.vision" + torch_name[len("torchvision") :]
    return "ember" + torch_name[len("torch") :]


class _TorchModule(types.ModuleType):
    """`torch[.x]` seen through ember: attribute reads go to `ember[.x]`."""

    def __init__(self, name, target):
        super().__init__(name, target.__doc__)
        self.__dict__["_ember_module"] = target
        self.__dict__["__path__"] = []  # a package, so that `import torch.x.y` is looked up by the hook

    def __getattr__(self, attribute):
        name = self.__name__
        target = self.__dict__["_ember_module"]
        if name == "torch" and attribute == "__version__":
            return importlib.import_module("ember.version").__version__  # the API level (see ember.version)
        try:
            value = getattr(target, attribute)
        except AttributeError:
            if attribute.startswith("__"):
                raise AttributeError(f"module {name!r} has no attribute {attribute!r}") from None
            return _submodule(f"{name}.{attribute}", NotImplementedInEmber)
        if isinstance(value, types.ModuleType) and value.__name__ == f"{target.__name__}.{attribute}":
            return _module_for(f"{name}.{attribute}")
        return value

    def __dir__(self):
        return sorted(set(dir(self.__dict__["_ember_module"])) | set(self.__dict__))

    def __repr__(self):
        return f"<module {self.__name__!r} (ember: {self.__dict__['_ember_module'].__name__})>"


class _MissingModule(types.ModuleType):
    """A PyTorch module ember lacks: importing it works, using anything in it raises NotImplementedInEmber."""

    def __init__(self, name):
        super().__init__(name, f"{name} is not implemented in ember.")
        self.__dict__["__path__"] = []

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {attribute!r}")
        raise _not_implemented(f"{self.__name__}.{attribute}")

    def __repr__(self):
        return f"<module {self.__name__!r} (not implemented in ember)>"


def _ember_module_or_none(torch_name):
    ember_name = _ember_name(torch_name)
    try:
        return importlib.import_module(ember_name)
    except ModuleNotFoundError as error:
        if error.name is not None and ember_name.startswith(error.name):
            return None  # ember has no such module (an ImportError inside it still propagates)
        raise


def _module_for(torch_name):
    """The module registered as `torch_name`, creating (and caching in sys.modules) a forwarder or stand-in."""
    module = sys.modules.get(torch_name)
    if isinstance(module, (_TorchModule, _MissingModule)):
        return module
    target = _ember_module_or_none(torch_name)
    module = _MissingModule(torch_name) if target is None else _TorchModule(torch_name, target)
    if target is not None and torch_name.partition(".")[0] == "torchvision":
        # scripts list models through `torchvision.models.__dict__` (pytorch/examples' imagenet): fill it in
        module.__dict__.update(
            {
                key: value
                for key, value in vars(target).items()
                if not key.startswith("_") and not isinstance(value, types.ModuleType)
            }
        )
    module.__spec__ = importlib.util.spec_from_loader(torch_name, _FINDER, is_package=True)
    module.__loader__ = _FINDER
    sys.modules[torch_name] = module
    parent, _, child = torch_name.rpartition(".")
    if parent in sys.modules:
        sys.modules[parent].__dict__[child] = module
    return module


def _submodule(torch_name, error):
    """`torch.x.name` (read as an attribute or imported): ember's module, a stand-in for a PyTorch module
    that ember lacks, or `error` for any other name (a function or class ember lacks)."""
    parent, _, child = torch_name.rpartition(".")
    if not isinstance(sys.modules.get(parent), _MissingModule):
        if _ember_module_or_none(torch_name) is not None or child in _TORCH_SUBMODULES.get(parent, ()):
            return _module_for(torch_name)
    raise _not_implemented(torch_name, error)


class _TorchFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers every `torch` / `torch.*` import while installed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in ("torch", "torchvision"):
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        if fullname.startswith(("torch.", "torchvision.")):
            return _submodule(fullname, ModuleNotImplementedInEmber).__spec__
        return None

    def create_module(self, spec):
        return _module_for(spec.name)

    def exec_module(self, module):
        pass


_FINDER = _TorchFinder()
_saved_modules = {}
_stdlib_get_preparation_data = None  # multiprocessing.spawn's own, while install() wraps it


def _install_in_child():
    install()


class _InstallOnUnpickle:
    """Rides in the data multiprocessing sends a new "spawn"/"forkserver" process: the child unpickles
    that data before it re-imports the parent's main script (and before it unpickles the process
    object, whose classes may be torch-named), so unpickling this installs the hook first."""

    def __reduce__(self):
        return _install_in_child, ()


def _preparation_data_with_hook(name):
    data = _stdlib_get_preparation_data(name)
    data["ember_compat_install"] = _InstallOnUnpickle()  # multiprocessing's prepare() ignores unknown keys
    return data


def _carry_hook_into_spawned_processes(carry):
    global _stdlib_get_preparation_data
    import multiprocessing.spawn

    if carry and _stdlib_get_preparation_data is None:
        _stdlib_get_preparation_data = multiprocessing.spawn.get_preparation_data
        multiprocessing.spawn.get_preparation_data = _preparation_data_with_hook
    elif not carry and _stdlib_get_preparation_data is not None:
        multiprocessing.spawn.get_preparation_data = _stdlib_get_preparation_data
        _stdlib_get_preparation_data = None


def _is_torch_name(name):
    return name in ("torch", "torchvision") or name.startswith(("torch.", "torchvision."))


def is_installed():
    """Whether `install()` is in effect (so `import torch` gives ember)."""
    return _FINDER in sys.meta_path


def install():
    """Make `import torch` (and every `torch.*` module) resolve to ember until `uninstall()`; likewise
    `import torchvision[.x]` resolves to `ember.vision[.x]`.

    Real PyTorch modules already imported are set aside (and restored by `uninstall`). Returns the
    `torch` module, so `torch = ember.compat.install()` also works.
    """
    if not is_installed():
        for name in [name for name in sys.modules if _is_torch_name(name)]:
            _saved_modules[name] = sys.modules.pop(name)
        sys.meta_path.insert(0, _FINDER)
        _naming.show_as_torch()
        _carry_hook_into_spawned_processes(True)
    return importlib.import_module("torch")


def uninstall():
    """Remove the hook and the ember-backed `torch` modules; put back real PyTorch modules set aside."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    _carry_hook_into_spawned_processes(False)
    _naming.show_as_ember()
    for name in [name for name in sys.modules if _is_torch_name(name)]:
        if isinstance(sys.modules[name], (_TorchModule, _MissingModule)):
            del sys.modules[name]
    sys.modules.update(_saved_modules)
    _saved_modules.clear()
