"""Shape ops. Most return views: tensors on the same memory as their input, which share its version
counter and remember how to replay the view from the base (for in-place ops through a view)."""

from .._backend import np, broadcast_view
from .._validation import allocate, size_argument
from .._sparse_coo import SparseCoo
from .._tensor import INFERENCE_COUNTER, Tensor, creation as _creation, new_tensor as _wrap
from .. import _dtype
from ..autograd.grad_mode import state as _grad_state
from ..autograd.function import Primitive
from ._common import normalize_dim, normalize_dims
from ._tangents import linear_jvp
from ._declare import op, alias
from . import sparse_coo

# Tensor.new_* are creation functions; listed here because shape's __all__ makes methods.
from .creation import new_zeros, new_ones, new_empty, new_full, tensor_new_tensor as new_tensor

__all__ = [
    "view",
    "reshape",
    "expand",
    "expand_as",
    "broadcast_to",
    "transpose",
    "swapaxes",
    "swapdims",
    "permute",
    "t",
    "squeeze",
    "unsqueeze",
    "flatten",
    "unflatten",
    "view_as",
    "reshape_as",
    "contiguous",
    "movedim",
    "moveaxis",
    "adjoint",
    "new_zeros",
    "new_ones",
    "new_empty",
    "new_full",
    "new_tensor",
]


def parse_shape(shape, op_name="view", argument="size"):
    """`f(2, 3)`, `f((2, 3))` and `f(torch.Size([2, 3]))` all mean the shape (2, 3); floats are refused."""
    return size_argument(shape, op_name, argument)


def make_view(output, source, replay):
    """Record that `output` is a view of `source`: same memory, same version counter, and a way to
    rebuild it from the base (`replay`, a function of one tensor) for in-place ops on the view."""
    counter = source._version_counter
    if counter is INFERENCE_COUNTER or _creation.version_counter is not None:
        return _inference_view(output, source, replay)
    base = source._base
    parent_replay = source._view_replay if base is not None else None
    output._base = source if base is None else base
    output._version_counter = counter = source._shared_version_counter()
    output._view_version = counter.value  # when its grad_fn was made (see refresh_view_grad_fn)
    if not _grad_state.enabled:
        replay = _MadeInNoGradMode(replay)
    output._view_replay = replay if parent_replay is None else _ChainedReplay(parent_replay, replay)
    return output


def _inference_view(output, source, replay):
    """PyTorch's rules for views that involve inference mode (see `inference_mode`)."""
    if source._version_counter is INFERENCE_COUNTER:
        # of an inference tensor: an inference tensor on the same memory, not tracked as a view
        # (`_is_view()` False, no `_base`), as in PyTorch; made outside inference mode, a plain one
        output._version_counter = INFERENCE_COUNTER
        if _creation.version_counter is None:
            output._requires_grad, output._grad_fn = False, None
        return output
    base = source._base
    parent_replay = source._view_replay if base is not None else None
    output._base = source if base is None else base
    output._version_counter = counter = source._shared_version_counter()
    output._view_version = counter.value
    replay = replay if parent_replay is None else _ChainedReplay(parent_replay, replay)
    if counter is not INFERENCE_COUNTER:  # a normal tensor's view made inside keeps requires_grad
        output._requires_grad = source._requires_grad
        replay = _MadeInInferenceMode(replay)
    output._view_replay = replay
    return output


class _MadeInInferenceMode:
    """The replay of a view of a normal tensor made in inference mode: it has no history to rebuild,
    so an in-place change through it, or (once its base changed) asking for its grad_fn, is refused."""

    __slots__ = ("replay",)

    def __init__(self, replay):
        self.replay = replay

    def __call__(self, tensor):
        raise RuntimeError(
            "A view was created in inference mode and its base or another view of its base has been "
            "modified inplace in normal mode. (Make the view outside inference mode if it is needed for "
            "autograd, or clone() it.)"
        )

    forbids_inplace = True

    def inplace_error(self, output_nr):
        return RuntimeError(
            "A view was created in inference mode and is being modified inplace in normal mode. (Make the "
            "view outside inference mode if the change must be recorded, or modify a clone.)"
        )


_NO_GRAD_ADVICE = (
    " with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
    "clarify your code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
)


class _MadeInNoGradMode:
    """The replay of a view made under no_grad: the view has no history, so once gradients are involved
    (its base requires grad) PyTorch forbids changing it in place with grad mode on, and asking for its
    grad_fn once it or its base changed in place: which history was meant is ambiguous."""

    __slots__ = ("replay",)
    forbids_inplace = made_in_no_grad = True

    def __init__(self, replay):
        self.replay = replay

    def __call__(self, tensor):
        raise self.changed_error()

    @staticmethod
    def changed_error():
        return RuntimeError(
            "A view was created in no_grad mode and its base or another view of its base has been modified "
            "inplace" + _NO_GRAD_ADVICE
        )

    @staticmethod
    def inplace_error(output_nr):
        return RuntimeError("A view was created in no_grad mode and is being modified inplace" + _NO_GRAD_ADVICE)

    @staticmethod
    def nested_inplace_error(output_nr):
        return RuntimeError(
            f"Output {output_nr} of View is a view of a view which was created in no_grad mode and is being "
            "modified inplace" + _NO_GRAD_ADVICE
        )


class _ChainedReplay:
    __slots__ = ("first", "second")

    def __init__(self, first, second):
        self.first, self.second = first, second

    def __call__(self, tensor):
        return self.second(self.first(tensor))

    @property
    def forbids_inplace(self):
        """A view of (or through) an output of split/chunk/unbind is as read-only as that output."""
        return self._forbidding() is not None

    @property
    def made_in_no_grad(self):
        return any(getattr(part, "made_in_no_grad", False) for part in (self.first, self.second))

    def changed_error(self):
        return _MadeInNoGradMode.changed_error()

    def inplace_error(self, output_nr):
        part = self._forbidding()
        if part is self.first and hasattr(part, "nested_inplace_error"):  # this view was made from it
            return part.nested_inplace_error(output_nr)
        return part.inplace_error(output_nr)

    def _forbidding(self):
        for part in (self.first, self.second):
            if getattr(part, "forbids_inplace", False):
                return part
        return None


class _Replay:
    """`function(tensor, *args)` as a one-argument callable, kept by views to rebuild themselves."""

    __slots__ = ("function", "args")

    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __call__(self, tensor):
        return self.function(tensor, *self.args)


def _infer_shape(shape, size, op_name="view"):
    """`shape` with its -1 resolved, checked against `size` elements (PyTorch's messages)."""
    inferred = None
    known = 1
    for position, length in enumerate(shape):
        if length == -1:
            if inferred is not None:
                raise RuntimeError("only one dimension can be inferred")
            inferred = position
        elif length < 0:
            raise RuntimeError(f"invalid shape dimension {length}")
        else:
            known *= length
    if inferred is None:
        if known != size:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        return shape
    if known == 0:
        if size == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    if size % known:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return shape[:inferred] + (size // known,) + shape[inferred + 1 :]


class View(Primitive, node="ViewBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.input_shape = a.shape
        try:
            return a.reshape(shape, copy=False)
        except ValueError:
            raise RuntimeError(
                f"view size is not compatible with input tensor's size and stride (at least one dimension "
                f"spans across two contiguous subspaces): shape {list(a.shape)} with strides "
                f"{[s // a.itemsize for s in a.strides]} viewed as {list(shape)}. Use .reshape(...) instead."
            ) from None

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape), None

    jvp = linear_jvp


class UnsafeView(View, node="UnsafeViewBackward0"):
    """The reshape of a fresh contiguous copy (what reshape does when a view is impossible)."""


def _can_view(array, shape):
    """Whether NumPy can give `shape` without copying (so reshape returns a view)."""
    if array.flags.c_contiguous or array.size <= 1:
        return True
    try:
        np.reshape(array, shape, copy=False)
        return True
    except (ValueError, MemoryError):  # NumPy may try to allocate before finding it cannot view
        return False


@op(View, method=True)
def view(input, *shape):
    """A tensor with the same data and a new shape; the data must not need copying (else use reshape).

    `view(dtype)` reinterprets the bytes as another dtype (of another element size, the last dim
    changes size by the ratio).
    """
    if (
        len(shape) == 1
        and not isinstance(shape[0], (tuple, list, int, Tensor))
        and (isinstance(shape[0], _dtype.dtype) or isinstance(shape[0], str))
    ):
        return _view_as_dtype(input, _dtype.to_dtype(shape[0]))
    shape = _infer_shape(parse_shape(shape), input._data.size)
    return make_view(View.apply(input, shape), input, _Replay(view, shape))


def _view_as_dtype(input, dtype):
    array = input._data
    if dtype.itemsize != array.itemsize:
        _check_resizing_view(input, dtype)
    if input._requires_grad and dtype.numpy_dtype != array.dtype:
        raise RuntimeError(
            f"view(dtype): cannot reinterpret a tensor that requires grad as {dtype}: the gradient "
            "has no meaning through a bit cast. Use .detach().view(dtype)."
        )
    output = _wrap(array.view(dtype.numpy_dtype))
    return make_view(output, input, _Replay(_view_as_dtype, dtype))


def _check_resizing_view(input, dtype):
    """PyTorch's conditions for viewing elements as ones of another size: the last dim changes size by
    the ratio, so it must be contiguous and (to a larger type) divisible by it."""
    array, what = input._data, f"to view {input.dtype} as {dtype} (different element sizes)"
    if array.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    if array.strides[-1] != array.itemsize and array.shape[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {array.strides[-1] // array.itemsize}")
    if dtype.itemsize > array.itemsize:
        ratio = dtype.itemsize // array.itemsize
        if array.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {array.shape[-1]}")
        if any(stride % dtype.itemsize for stride in array.strides[:-1]):
            raise RuntimeError(f"self.stride(i) must be divisible by {ratio} for every dim but the last {what}")


@op(View, UnsafeView, method=True)
def reshape(input, *shape):
    """`view` when possible, else a contiguous copy with the new shape (grad_fn UnsafeViewBackward0)."""
    shape = _infer_shape(parse_shape(shape, "reshape", "shape"), input._data.size)
    if _can_view(input._data, shape):
        return make_view(View.apply(input, shape), input, _Replay(reshape, shape))
    from .conversion import clone

    return UnsafeView.apply(clone(input), shape)


@op(method=True)
def view_as(input, other):
    """A view of `input` with the shape of `other`."""
    return view(input, other.shape)


@op(method=True)
def reshape_as(input, other):
    """`input` reshaped to the shape of `other` (a view when possible)."""
    return reshape(input, other.shape)


@op(method=True)
def flatten(input, start_dim=0, end_dim=-1):
    """The dimensions from `start_dim` to `end_dim` merged into one (a view when possible); a 0-d tensor gives 1-d."""
    ndim = input._data.ndim
    if ndim == 0:
        return reshape(input, 1)
    start, end = normalize_dim(start_dim, ndim, "flatten"), normalize_dim(end_dim, ndim, "flatten")
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = input._data.shape
    new_shape = shape[:start] + (int(np.prod(shape[start : end + 1])),) + shape[end + 1 :]
    return reshape(input, new_shape)


@op(method=True)
def unflatten(input, dim, sizes):
    """Dimension `dim` split into `sizes` (one of them may be -1), the inverse of `flatten`."""
    ndim = input._data.ndim
    dim = normalize_dim(dim, ndim, "unflatten")
    shape = input._data.shape
    sizes = size_argument((sizes,), "unflatten", "sizes")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        sizes = _infer_shape(sizes, shape[dim])
    except RuntimeError:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
            f"({shape[dim]}) in the input tensor"
        ) from None
    return reshape(input, shape[:dim] + sizes + shape[dim + 1 :])


class Expand(Primitive, node="ExpandBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.input_shape = a.shape
        # Writable, as PyTorch's expand (a read-only view would stop writes through views of it).
        return broadcast_view(a, shape, writeable=True)

    @staticmethod
    def backward(ctx, grad):
        from .broadcast import sum_to_shape

        return sum_to_shape(grad, ctx.input_shape), None

    jvp = linear_jvp


@op(Expand, method=True)
def expand(input, *sizes):
    """Broadcast size-1 dims to `sizes` (-1 keeps a dim) as a view; nothing is copied."""
    sizes = parse_shape(sizes, "expand")
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({len(shape)})"
        )
    offset = len(sizes) - len(shape)
    for i, size in enumerate(sizes[:offset]):
        if size < 0:
            raise RuntimeError(
                f"The expanded size of the tensor ({size}) isn't allowed in a leading, non-existing dimension {i}"
            )
    target = sizes[:offset] + tuple(shape[i] if size == -1 else size for i, size in enumerate(sizes[offset:]))
    for i, size in enumerate(shape):
        if size != 1 and size != target[i + offset] or target[i + offset] < 0:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[i + offset]}) must match the existing size ({size}) "
                f"at non-singleton dimension {i + offset}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shape)}"
            )
    return make_view(Expand.apply(input, target), input, _Replay(expand, target))


@op(method=True)
def expand_as(input, other):
    """`input` expanded to the shape of `other` (a view, as `expand`)."""
    return expand(input, other.shape)


@op(method=True)
def broadcast_to(input, size):
    """`input` broadcast to `size` (a view, as `expand`; -1 keeps a size)."""
    return expand(input, size)


class Permute(Primitive, node="PermuteBackward0"):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return a.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        return permute(grad, tuple(np.argsort(ctx.dims))), None

    jvp = linear_jvp


class Transpose(Primitive, node="TransposeBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a, dim0, dim1):
        ctx.dim0, ctx.dim1 = dim0, dim1
        return a.swapaxes(dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.swapaxes(ctx.dim0, ctx.dim1), None, None  # (an array's swapaxes when on arrays)

    jvp = linear_jvp


class T(Primitive, node="TBackward0", backward_on_arrays=True):
    """A matrix's transpose (`t()`). Unary rather than a Transpose(0, 1), so that recording it takes
    the one-argument path: every linear layer records one (see ops.linear_layers)."""

    @staticmethod
    def forward(ctx, a):
        return a.swapaxes(0, 1)

    @staticmethod
    def backward(ctx, grad):
        return grad.swapaxes(0, 1)

    jvp = linear_jvp


@op(Permute, method=True)
def permute(input, *dims):
    """A view with the dimensions in the order `dims` (`x.permute(2, 0, 1)` or `x.permute((2, 0, 1))`)."""
    dims = parse_shape(dims, "permute", "dims")
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal "
            f"to len(dims) = {len(dims)}".replace("(sparse_coo)", "")
        )
    normalized = tuple(normalize_dim(d, ndim, "permute") for d in dims)
    if len(set(normalized)) != ndim:
        raise RuntimeError(f"permute(): duplicate dims are not allowed (got {list(dims)})")
    return make_view(Permute.apply(input, normalized), input, _Replay(permute, normalized))


@op(Transpose, method=True)
def transpose(input, dim0, dim1):
    """Swap two dims (a view; of a sparse matrix, a new sparse tensor)."""
    ndim = input._data.ndim
    if type(input._data) is SparseCoo:
        return sparse_coo.transpose_sparse(input, dim0, dim1)
    dim0, dim1 = normalize_dim(dim0, ndim, "transpose"), normalize_dim(dim1, ndim, "transpose")
    return make_view(Transpose.apply(input, dim0, dim1), input, _Replay(transpose, dim0, dim1))


@op(method=True)
def adjoint(input):
    """The conjugate transpose of (a batch of) matrices: the last two dims swapped, complex values
    conjugated (`x.mH`)."""
    if input._data.ndim < 2:
        raise RuntimeError(
            f"tensor.adjoint() is only supported on matrices or batches of matrices. Got {input._data.ndim}-D tensor."
        )
    return transpose(input, -2, -1).conj()


@op(View, Transpose, T, method=True)
def t(input):
    """Transpose a matrix (0-d and 1-d tensors are returned as they are)."""
    ndim = input._data.ndim
    if type(input._data) is SparseCoo:
        return sparse_coo.transpose_sparse(input, 0, 1)
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    if ndim < 2:
        return make_view(View.apply(input, input._data.shape), input, _Replay(t))
    return make_view(T.apply(input), input, _Replay(t))


@op(method=True)
def movedim(input, source, destination):
    """`input` with the dimensions `source` moved to the positions `destination`, the others kept in order (a view)."""
    ndim = input._data.ndim
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    source = [normalize_dim(d, ndim, "movedim") for d in source]
    destination = [normalize_dim(d, ndim, "movedim") for d in destination]
    order = [d for d in range(ndim) if d not in source]
    for dst, src in sorted(zip(destination, source)):
        order.insert(dst, src)
    return permute(input, tuple(order))


class Squeeze(Primitive, node="SqueezeBackward0"):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.input_shape = a.shape
        return a.squeeze(axis=dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape), None

    jvp = linear_jvp


class SqueezeDim(Squeeze, node="SqueezeBackward1"):
    pass


class SqueezeDims(Squeeze, node="SqueezeBackward2"):
    pass


class Unsqueeze(Primitive, node="UnsqueezeBackward0"):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return a[(slice(None),) * dim + (None,)]

    @staticmethod
    def backward(ctx, grad):
        return squeeze(grad, ctx.dim), None

    jvp = linear_jvp


@op(Squeeze, SqueezeDim, SqueezeDims, method=True)
def squeeze(input, dim=None):
    """Drop size-1 dims: all of them, or those among `dim` (an int or a tuple) that have size 1."""
    shape = input._data.shape
    function = Squeeze if dim is None else SqueezeDim if isinstance(dim, (int, np.integer)) else SqueezeDims
    dims = normalize_dims(dim, len(shape), "squeeze") if shape else ()
    dims = tuple(d for d in dims if shape[d] == 1)
    return make_view(function.apply(input, dims), input, _Replay(squeeze, dim))


@op(Unsqueeze, method=True)
def unsqueeze(input, dim):
    """Insert a size-1 dim at `dim` (negative counts from the end of the result)."""
    ndim = input._data.ndim + 1
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    dim = dim % ndim
    return make_view(Unsqueeze.apply(input, dim), input, _Replay(unsqueeze, dim))


class Contiguous(Primitive, node="CloneBackward0"):
    @staticmethod
    def forward(ctx, a):
        return allocate(lambda _: np.ascontiguousarray(a), a.shape, a.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad

    jvp = linear_jvp


@op(Contiguous, method=True)
def contiguous(input, memory_format=None):
    """The tensor itself when its memory is C-contiguous, else a contiguous copy."""
    if input._data.flags.c_contiguous:
        return input
    return Contiguous.apply(input)


# PyTorch's other names for the ops above.
swapaxes = alias(transpose, "swapaxes", method=True)
swapdims = alias(transpose, "swapdims", method=True)
moveaxis = alias(movedim, "moveaxis", method=True)
