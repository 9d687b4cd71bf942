"""The base of PyTorch's named singletons (`torch.strided`, `torch.channels_last`, ...)."""


class NamedConstant:
    """A value known by its name; compared by identity, printed as `torch.<name>`, and unpickled as the
    module-level singleton of that name in the subclass's module."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name
