"""`ember.compile(module)`: a Module whose calls go through a CompiledFunction of the original."""

from ..nn.modules.module import Module
from ._api import CompiledFunction

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """What `torch.compile(model)` returns: the original module under `_orig_mod` (so state-dict keys
    carry the `_orig_mod.` prefix, as in PyTorch), called through a recorded replay."""

    def __init__(self, module, *, fullgraph=False, dynamic=False, verify=0):
        super().__init__()
        self._orig_mod = module
        self.__dict__["_compiled_call"] = CompiledFunction(
            module, fullgraph=fullgraph, dynamic=dynamic, verify=verify, extra_modules=(module,)
        )

    def forward(self, *args, **kwargs):
        return self.__dict__["_compiled_call"](*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)

    def __repr__(self):
        return f"OptimizedModule({self._modules['_orig_mod']!r})"
