"""`repr(tensor)` exactly as PyTorch prints it: `tensor([1.5000, 2.0000], grad_fn=<MulBackward0>)`.

The rules are PyTorch's `torch/_tensor_str.py`, restated on NumPy arrays:

* one formatter per tensor (two for complex: real and imaginary parts) decides, from the nonzero
  finite values, between integer mode (`1.`), fixed point (`1.5000`) and scientific notation
  (`1.5000e+05`, when max/min > 1000, max > 1e8 or min < 1e-4), and pads every element to one width;
* tensors with more than `threshold` elements are summarized: `edgeitems` rows/elements at each end
  of every dim with `...` between; the formatter then only sees those elements;
* 1-d rows wrap at `linewidth`; suffixes (`dtype=`, `size=`, `grad_fn=`, `requires_grad=True`) go
  on the last line while it fits, else on a new line under the first bracket.
"""

import contextlib
import math

import numpy as np

from . import _dtype
from ._sparse_coo import SparseCoo

__all__ = ["tensor_repr", "set_printoptions", "get_printoptions", "printoptions"]


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


options = _PrintOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Set how tensors print, as `torch.set_printoptions`.

    `profile` ('default', 'short' or 'full') sets the first four first; explicit arguments override it.
    `sci_mode` is always set (None lets each tensor choose), as in PyTorch.

    Example::

        >>> ember.set_printoptions(precision=2)
        >>> ember.tensor([1.12345])
        tensor([1.12])
        >>> ember.set_printoptions(profile="default")
    """
    if profile is not None:
        for name, value in _PROFILES[profile].items():
            setattr(options, name, value)
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(options, name, value)
    options.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict that `set_printoptions(**options)` accepts."""
    return {name: getattr(options, name) for name in ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change print options inside a `with` block only."""
    previous = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**previous)


# ---------------------------------------------------------------- element formatting
class _Formatter:
    """How every element of one tensor (or one part of a complex tensor) is written, and its width."""

    def __init__(self, values):
        self.floating = values.dtype.kind in "fV"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not self.floating:
            if flat.size:
                self.width = max(len(text) for text in map(_plain, flat.tolist()))
            return
        nonzero = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if nonzero.size == 0:
            return
        magnitudes = np.abs(nonzero)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(np.ceil(nonzero) == nonzero))
        if options.sci_mode is None:
            self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        else:
            self.sci_mode = options.sci_mode
        precision = options.precision
        if self.sci_mode:
            texts = (f"{value:.{precision}e}" for value in nonzero.tolist())
        elif self.int_mode:
            texts = (f"{value:.0f}." for value in nonzero.tolist())
        else:
            texts = (f"{value:.{precision}f}" for value in nonzero.tolist())
        self.width = max(self.width, max(len(text) for text in texts))

    def format(self, value):
        if not self.floating:
            text = _plain(value)
        elif self.sci_mode:
            text = f"{value:{self.width}.{options.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{options.precision}f}"
        return text.rjust(self.width)


def _plain(value):
    return str(value)


class _ComplexFormatter:
    """`real+imagj` with the parts formatted (and padded) independently, as PyTorch."""

    def __init__(self, values):
        self.real, self.imag = _Formatter(values.real), _Formatter(values.imag)
        self.width = self.real.width + self.imag.width + 1

    def format(self, value):
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _formatter_for(array):
    return _ComplexFormatter(array) if array.dtype.kind == "c" else _Formatter(array)


# ---------------------------------------------------------------- layout
def _summarized(array):
    """The elements a summarized print shows: `edgeitems` at each end of every dim."""
    edge = options.edgeitems
    if array.ndim == 0:
        return array
    if array.ndim == 1:
        # PyTorch's quirk: with edgeitems=0 a vector keeps everything (x[-0:] is all of x).
        if array.shape[0] > 2 * edge:
            return np.concatenate((array[:edge], array[-edge:] if edge else array))
        return array
    if not edge:
        return array[(slice(0, 0),) * array.ndim]
    for axis, size in enumerate(array.shape):
        if size > 2 * edge:
            array = np.concatenate(
                (array.take(range(edge), axis), array.take(range(size - edge, size), axis)), axis=axis
            )
    return array


def _vector(array, indent, summarize, formatter):
    element_length = formatter.width + 2
    per_line = max(1, math.floor((options.linewidth - indent) / element_length))
    edge = options.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and array.shape[0] > 2 * edge:
        items = (
            [formatter.format(value) for value in array[:edge].tolist()]
            + [" ..."]
            + [formatter.format(value) for value in array[-edge:].tolist()]
        )
    else:
        items = [formatter.format(value) for value in array.tolist()]
    lines = [", ".join(items[start : start + per_line]) for start in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(array, indent, summarize, formatter):
    if array.ndim == 0:
        return formatter.format(array.item())
    if array.ndim == 1:
        return _vector(array, indent, summarize, formatter)
    edge = options.edgeitems
    size = array.shape[0]
    if summarize and size > 2 * edge:
        rows = (
            [_nested(array[i], indent + 1, summarize, formatter) for i in range(edge)]
            + ["..."]
            + [_nested(array[i], indent + 1, summarize, formatter) for i in range(size - edge, size)]
        )
    else:
        rows = [_nested(array[i], indent + 1, summarize, formatter) for i in range(size)]
    return "[" + ("," + "\n" * (array.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _body(array, indent):
    summarize = array.size > options.threshold
    formatter = _formatter_for(_summarized(array) if summarize else array)
    return _nested(array, indent, summarize, formatter)


def _add_suffixes(text, suffixes, indent, force_newline=False):
    # PyTorch counts the last line one character long (its `+ 1`); kept so lines break where its do.
    last_line_length = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        if force_newline or last_line_length + len(suffix) + 2 > options.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_length = indent + len(suffix)
            force_newline = False
        else:
            pieces.append(", " + suffix)
            last_line_length += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def tensor_repr(tensor):
    """The text `repr(tensor)` and `str(tensor)` show, character for character PyTorch's."""
    array = tensor._data
    if type(array) is SparseCoo:
        return _sparse_repr(tensor, array)
    kind = type(tensor).__name__
    prefix = "tensor(" if kind in ("Tensor", "Parameter") else kind + "("
    indent = len(prefix)
    dtype = tensor.dtype
    default = _dtype.get_default_dtype()
    suffixes = []
    if array.size == 0:
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if dtype is not default:
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if not options.edgeitems:
            suffixes.append(f"size={tuple(array.shape)}")
        if dtype not in (default, default.to_complex(), _dtype.int64, _dtype.bool_):
            suffixes.append(f"dtype={dtype!r}")
        body = _body(array, indent)
    _append_graph_suffix(tensor, suffixes)
    tangent = _forward_tangent(tensor) if getattr(tensor, "_fw_grad", None) is not None else None
    if tangent is not None:
        suffixes.append(f"tangent={tensor_repr(tangent)}")
    return _add_suffixes(prefix + body, suffixes, indent)


def _append_graph_suffix(tensor, suffixes):
    """`grad_fn=<...>` (`<Invalid>` where asking for it raises, as PyTorch prints), or `requires_grad=True`."""
    if tensor._grad_fn is not None:
        suffixes.append(f"grad_fn=<{tensor._grad_fn.name()}>")
    elif tensor._requires_grad:
        suffixes.append("requires_grad=True")
    elif tensor._changed_no_grad_view():
        suffixes.append("grad_fn=<Invalid>")


def _forward_tangent(tensor):
    """The tensor's forward-AD tangent at the open dual level (PyTorch prints it as `tangent=`)."""
    from .autograd.forward_ad import tangent_of

    return tangent_of(tensor)


def _sparse_repr(tensor, coo):
    """PyTorch's `tensor(indices=..., values=..., size=..., nnz=..., layout=torch.sparse_coo)`: the parts
    print without their own dtype, and with their size when empty."""
    prefix = "tensor("
    indent = " " * len(prefix)
    indices = _part(coo.indices, len(prefix + "indices="))
    values = _part(coo.values, len(prefix + "values="))
    suffixes = [f"size={tuple(coo.shape)}", f"nnz={coo.nnz}"]
    if tensor.dtype is not _dtype.get_default_dtype():
        suffixes.append(f"dtype={tensor.dtype!r}")
    suffixes.append("layout=torch.sparse_coo")
    _append_graph_suffix(tensor, suffixes)
    return _add_suffixes(f"{prefix}indices={indices},\n{indent}values={values}", suffixes, len(prefix), True)


def _part(array, indent):
    if array.size == 0:
        return f"tensor([], size={tuple(array.shape)})"
    return "tensor(" + _body(array, indent + len("tensor(")) + ")"
