"""Every public name of ember's API has a docstring of its own.

The reference pages are autodoc over these docstrings, and `help()` shows them, so a public name
without one is a hole in the documentation. "Public" is what a user reaches as `ember.X`,
`ember.nn.X`, `ember.optim.X`, ... (the namespaces below: each module's `__all__`, else its names
without a leading underscore), the public methods and properties defined in those classes'
bodies, and Tensor's methods (those declared with `@op` are the op function itself, so they show
its docstring).

What counts as documented:
* a function or class: a non-empty docstring of its own. A class without one would show its base
  class's text in `help()` (`class ReLU6(Hardtanh)` read as "Clamp to [min_val, max_val]"), so
  inheriting is not enough for a class;
* a method or property: a docstring of its own, or it overrides a base-class method that has one
  (`forward` of a layer, `log_prob` of a distribution, `step` of an optimizer: the base states the
  contract and `help()` shows it; the class's own docstring says what the layer computes);
* an alias (`ember.multiply` for `ember.mul`) is the same object and shares its docstring.

Run as a script to list what is missing: `python tests/docs/test_docstrings.py`.
"""

import importlib
import inspect
import sys

NAMESPACES = (
    "ember",
    "ember.nn",
    "ember.nn.functional",
    "ember.nn.init",
    "ember.nn.utils",
    "ember.nn.utils.rnn",
    "ember.optim",
    "ember.optim.lr_scheduler",
    "ember.optim.swa_utils",
    "ember.utils.data",
    "ember.utils.checkpoint",
    "ember.utils.benchmark",
    "ember.utils.hooks",
    "ember.autograd",
    "ember.autograd.functional",
    "ember.autograd.forward_ad",
    "ember.autograd.graph",
    "ember.autograd.anomaly",
    "ember.autograd.gradcheck",
    "ember.func",
    "ember.linalg",
    "ember.fft",
    "ember.special",
    "ember.distributions",
    "ember.distributed",
    "ember.testing",
    "ember.serialization",
    "ember.viz",
    "ember.compat",
    "ember.vision",
    "ember.vision.datasets",
    "ember.vision.transforms",
    "ember.vision.transforms.functional",
    "ember.vision.transforms.v2",
    "ember.vision.transforms.v2.functional",
    "ember.vision.utils",
    "ember.vision.models",
    "ember.vision.ops",
    "ember.vision.io",
    "ember.cuda",
    "ember.jit",
    "ember.hub",
    "ember.random",
    "ember._dynamo",
)

# Public names that cannot carry a docstring of their own, with the reason.
ALLOWED: dict = {}  # name -> why it cannot have a docstring of its own


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in dir(module) if not name.startswith("_")]
    return [name for name in dict.fromkeys(names) if not inspect.ismodule(getattr(module, name, None))]


def own_docstring(obj):
    """The docstring written for `obj` itself (a class's `__doc__` is never inherited; an instance's
    `__doc__` attribute would be its class's, so only classes and functions are asked)."""
    if isinstance(obj, property):
        obj = obj.fget
    elif isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__")
    elif inspect.isroutine(obj):
        doc = getattr(obj, "__doc__", None)
    else:  # a data attribute (a constraint, a number): what `__doc__` gives is its type's
        doc = None
    return doc.strip() if isinstance(doc, str) else ""


def _member_documented_by_base(cls, name):
    return any(name in vars(base) and own_docstring(vars(base)[name]) for base in cls.__mro__[1:])


def public_objects():
    """(name, object) for every public function and class, each object once (aliases share it)."""
    import ember

    seen = set()
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        for name in public_names(module):
            obj = getattr(module, name)
            if (inspect.isclass(obj) or inspect.isroutine(obj)) and id(obj) not in seen:
                seen.add(id(obj))
                yield f"{namespace}.{name}", obj
    for name, function in ember.ops.TENSOR_METHODS.items():
        if id(function) not in seen:
            seen.add(id(function))
            yield f"ember.Tensor.{name}", function


def public_members(cls):
    """The public methods and properties defined in the body of `cls`."""
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, (property, staticmethod, classmethod)) or inspect.isfunction(member):
            yield name, member


def undocumented():
    """The public names without a docstring of their own, and how many names were checked."""
    import ember

    missing, checked = [], 0
    objects = list(public_objects())
    classes = [(name, obj) for name, obj in objects if inspect.isclass(obj)]
    if ember.Tensor not in [cls for _, cls in classes]:
        classes.append(("ember.Tensor", ember.Tensor))
    for name, obj in objects:
        checked += 1
        if not own_docstring(obj):
            missing.append(name)
    for class_name, cls in classes:
        for name, member in public_members(cls):
            checked += 1
            if not own_docstring(member) and not _member_documented_by_base(cls, name):
                missing.append(f"{class_name}.{name}")
    return missing, checked


def test_every_public_name_has_a_docstring():
    missing, checked = undocumented()
    missing = [name for name in missing if name not in ALLOWED]
    assert not missing, f"{len(missing)} of {checked} public names have no docstring:\n  " + "\n  ".join(missing)


def test_the_allowed_names_still_need_their_exception():
    missing, _ = undocumented()
    stale = sorted(set(ALLOWED) - set(missing))
    assert not stale, f"these names have a docstring now (or are gone); remove them from ALLOWED: {stale}"


def test_a_tensor_method_declared_as_an_op_shows_the_op_docstring():
    """`x.exp()` is `ember.exp(x)`: the method is the op function itself, so `help(x.exp)` reads the
    op's docstring. Methods written in Tensor's body (fast paths such as `add`) have their own."""
    import ember

    for name, function in ember.ops.TENSOR_METHODS.items():
        method = getattr(ember.Tensor, name)
        if name in vars(ember.Tensor) and vars(ember.Tensor)[name] is not function:
            continue
        assert method.__doc__ == function.__doc__, name


if __name__ == "__main__":
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))  # this checkout's ember
    names, total = undocumented()
    print("\n".join(names))
    print(f"{len(names)} of {total} public names have no docstring", file=sys.stderr)
