"""Questions about a tensor asked as functions (`torch.is_complex(x)` ...), and `resolve_conj` /
`resolve_neg`. ember keeps no lazy conjugate or negative bits: `is_conj` and `is_neg` are always
False and the resolve ops return their input itself, as PyTorch does for a tensor without the bit.
"""

from .._tensor import Tensor
from ._declare import op

__all__ = [
    "is_complex",
    "is_nonzero",
    "is_same_size",
    "is_signed",
    "is_inference",
    "is_conj",
    "is_neg",
    "resolve_conj",
    "resolve_neg",
]


def _tensor(input, op_name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input


def is_complex(input):
    """Whether the dtype is complex."""
    return _tensor(input, "is_complex").is_complex()


def is_nonzero(input):
    """The truth of a one-element tensor; RuntimeError for none or several elements."""
    return _tensor(input, "is_nonzero").is_nonzero()


def is_same_size(input, other):
    """Whether both tensors have the same shape."""
    return _tensor(input, "is_same_size").is_same_size(_tensor(other, "is_same_size"))


def is_signed(input):
    """Whether the dtype can hold negative numbers (False for bool and uint8)."""
    return _tensor(input, "is_signed").is_signed()


def is_inference(input):
    """Whether the tensor was made in inference mode with PyTorch's inference bit (never in ember)."""
    return _tensor(input, "is_inference").is_inference()


def is_conj(input):
    """Whether the tensor carries a lazy conjugation: never in ember, which conjugates at once."""
    return _tensor(input, "is_conj").is_conj()


def is_neg(input):
    """Whether the tensor carries a lazy negation: never in ember."""
    return _tensor(input, "is_neg").is_neg()


@op(method=True)
def resolve_conj(input):
    """`input` with any lazy conjugation applied: ember has none, so `input` itself."""
    return _tensor(input, "resolve_conj")


@op(method=True)
def resolve_neg(input):
    """`input` with any lazy negation applied: ember has none, so `input` itself."""
    return _tensor(input, "resolve_neg")
