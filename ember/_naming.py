"""The name the user's code imported ember under: "ember", or "torch" while `ember.compat` is
installed. The few reprs that PyTorch prints with a module path (a custom Function's node,
`set_grad_enabled(mode=True)`) use it, so a notebook run with `import torch` prints what PyTorch prints.

For the same reason, while compat is installed the core classes carry PyTorch's module path, so
`print(type(x))` shows `<class 'torch.Tensor'>`. Their instances pickle through functions (or, for
Size, as `torch.Size`, which compat resolves), so nothing saved depends on the path shown.
"""

package = "ember"

# class -> the module PyTorch defines it in (what type() prints)
_TORCH_MODULES = {}
_ember_modules = {}


def show_as_torch():
    """Give the core classes PyTorch's module paths (compat.install)."""
    global package
    package = "torch"
    if not _TORCH_MODULES:
        _TORCH_MODULES.update(_core_classes())
    for cls, module in _TORCH_MODULES.items():
        _ember_modules.setdefault(cls, cls.__module__)
        cls.__module__ = module


def show_as_ember():
    """Put ember's own module paths back (compat.uninstall)."""
    global package
    package = "ember"
    for cls, module in _ember_modules.items():
        cls.__module__ = module


def _core_classes():
    from . import _dtype
    from ._backend import device
    from ._size import Size
    from ._tensor import Tensor
    from .nn.parameter import Parameter
    from .ops.creation import Generator

    return {
        Tensor: "torch",
        Size: "torch",
        _dtype.dtype: "torch",
        device: "torch",
        _dtype.finfo: "torch",
        _dtype.iinfo: "torch",
        Generator: "torch._C",
        Parameter: "torch.nn.parameter",
    }
