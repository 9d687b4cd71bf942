"""`repr(tensor)` as PyTorch prints it: `tensor([1.5000, 2.0000], grad_fn=<MulBackward0>)`."""
import numpy as np

from . import _dtype

__all__ = ["tensor_repr", "set_printoptions"]


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


options = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Set how tensors print, as `torch.set_printoptions`."""
    if profile == "default":
        options.precision, options.threshold, options.edgeitems, options.linewidth = 4, 1000, 3, 80
    elif profile == "short":
        options.precision, options.threshold, options.edgeitems, options.linewidth = 2, 1000, 2, 80
    elif profile == "full":
        options.precision, options.threshold, options.edgeitems, options.linewidth = 4, float("inf"), 3, 80
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(options, name, value)
    options.sci_mode = sci_mode


def _float_formatter(values):
    finite = values[np.isfinite(values)].astype(np.float64)
    nonzero = np.abs(finite[finite != 0])
    precision = options.precision
    if nonzero.size == 0:
        return lambda value: _special(value) or "0."
    low, high = nonzero.min(), nonzero.max()
    integral = np.all(np.ceil(finite) == finite)
    if integral:
        sci = high / low > 1000.0 or high > 1e8
        if options.sci_mode is not None:
            sci = options.sci_mode
        if sci:
            return lambda value: _special(value) or f"{value:.{precision}e}"
        return lambda value: _special(value) or f"{value:.0f}."
    sci = high / low > 1000.0 or high > 1e8 or low < 1e-4
    if options.sci_mode is not None:
        sci = options.sci_mode
    if sci:
        return lambda value: _special(value) or f"{value:.{precision}e}"
    return lambda value: _special(value) or f"{value:.{precision}f}"


def _special(value):
    if np.isnan(value):
        return "nan"
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    return None


def _element_formatter(array):
    kind = array.dtype.kind
    if kind == "b":
        return lambda value: "True" if value else "False"
    if kind in "iu":
        return lambda value: str(int(value))
    if kind == "c":
        real, imag = _float_formatter(array.real.ravel()), _float_formatter(array.imag.ravel())
        return lambda value: f"{real(value.real)}{'+' if value.imag >= 0 else '-'}{imag(abs(value.imag))}j"
    return _float_formatter(array.ravel())


def _summarized_values(array, summarize):
    if not summarize or array.ndim == 0:
        return array.ravel()
    edge = options.edgeitems
    parts = []

    def collect(sub):
        if sub.ndim == 0:
            parts.append(sub.reshape(1))
            return
        if sub.shape[0] > 2 * edge:
            for item in list(sub[:edge]) + list(sub[-edge:]):
                collect(np.asarray(item))
        else:
            for item in sub:
                collect(np.asarray(item))
    collect(array)
    return np.concatenate(parts) if parts else array.ravel()


def _format_array(array, indent, summarize):
    formatter = _element_formatter(array)
    values = _summarized_values(array, summarize)
    width = max((len(formatter(value)) for value in values), default=1)

    def element(value):
        return formatter(value).rjust(width)

    def block(sub, level):
        if sub.ndim == 0:
            return element(sub.item() if sub.dtype.kind != "b" else bool(sub))
        edge = options.edgeitems
        count = sub.shape[0]
        if summarize and count > 2 * edge:
            items = [block(sub[i], level + 1) for i in range(edge)] + ["..."] + \
                    [block(sub[i], level + 1) for i in range(count - edge, count)]
        else:
            items = [block(sub[i], level + 1) for i in range(count)]
        if sub.ndim == 1:
            return "[" + _wrap_line(items, indent + level + 1) + "]"
        separator = "," + "\n" * (sub.ndim - 1) + " " * (indent + level + 1)
        return "[" + separator.join(items) + "]"

    return block(array, 0)


def _wrap_line(items, indent):
    line_width = options.linewidth - indent
    lines, current = [], ""
    for index, item in enumerate(items):
        piece = item + ("," if index < len(items) - 1 else "")
        if current and len(current) + 1 + len(piece) > line_width:
            lines.append(current)
            current = piece
        else:
            current = piece if not current else current + " " + piece
    lines.append(current)
    return ("\n" + " " * indent).join(lines)


def tensor_repr(tensor):
    array = tensor._data
    prefix = "tensor("
    suffixes = []
    summarize = array.size > options.threshold
    if array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
    else:
        body = _format_array(array, len(prefix), summarize)
    dtype = tensor.dtype
    default_dtypes = (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool_)
    if dtype not in default_dtypes:
        suffixes.append(f"dtype={dtype!r}")
    if tensor._grad_fn is not None:
        suffixes.append(f"grad_fn=<{tensor._grad_fn.name()}>")
    elif tensor._requires_grad:
        suffixes.append("requires_grad=True")
    for suffix in suffixes:
        body += ",\n" + " " * len(prefix) + suffix if len(body.split("\n")[-1]) + len(suffix) + 2 > \
            options.linewidth else ", " + suffix
    return prefix + body + ")"
