"""`default_collate`: a list of samples -> one batch, as PyTorch builds it.

Tensors and NumPy arrays are stacked along a new first dimension; Python floats become a float64
tensor, ints an int64 tensor, bools a bool tensor (PyTorch's dtypes); strings stay a list; tuples,
lists, dicts and namedtuples are collated field by field.
"""

import collections.abc
import numbers

from ..._backend import np
from ..._tensor import Tensor, new_tensor
from ... import _dtype
from ...ops.creation import tensor
from . import _batch_memory

__all__ = ["default_collate", "default_convert"]

_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _stack(tensors):
    """Stack equal-shaped tensors; plain NumPy when none is in a graph (the usual case for data)."""
    first = tensors[0]
    for index, item in enumerate(tensors):
        if not isinstance(item, Tensor):
            raise TypeError(
                f"expected Tensor as element {index} in argument 0, but got {type(item).__name__} "
                f"(default_collate stacks the samples of a batch: sample 0 is a Tensor, sample {index} "
                "is not; give every sample the same types, or pass a collate_fn)"
            )
        if item.shape != first.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first.shape)} at entry 0 "
                f"and {list(item.shape)} at entry {index} (default_collate stacks the samples of a "
                "batch: give them one shape, or pass a collate_fn that pads them)"
            )
    if any(item._requires_grad for item in tensors):
        from ...ops import stack

        return stack(tensors, 0)
    arrays = [item._data for item in tensors]
    # In a DataLoader worker, a large batch is stacked straight into shared memory (see _batch_memory).
    out = _batch_memory.empty((len(arrays),) + first.shape, np.result_type(*{array.dtype for array in arrays}))
    return new_tensor(np.stack(arrays, out=out))


def _check_numeric_array(array):
    if array.dtype.kind in "OSUV":
        raise TypeError(_ERROR.format(array.dtype))


def default_collate(batch):
    """Merge a list of samples into a batch (see the module docstring for the rules per type)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(batch)
    if isinstance(elem, np.ndarray):
        _check_numeric_array(elem)
        return _stack([new_tensor(np.asarray(item)) for item in batch])
    if isinstance(elem, np.generic):
        _check_numeric_array(np.asarray(elem))
        return new_tensor(np.array(batch))
    if isinstance(elem, numbers.Integral):  # bools included: tensor() infers bool, int64 (or float for mixes)
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=_dtype.float64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([sample[key] for sample in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:  # a mapping type that cannot be built from a dict
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed  # PyTorch returns a list for tuples too
        try:
            return type(elem)(transposed)
        except TypeError:
            return transposed
    raise TypeError(_ERROR.format(type(elem)))


def default_convert(data):
    """Without batching (`batch_size=None`): NumPy arrays become tensors, inside containers too;
    everything else is left as it is."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSUV":
        return new_tensor(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "OSUV":
        return new_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(item) for item in data))
    if isinstance(data, tuple):
        return [default_convert(item) for item in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(item) for item in data])
        except TypeError:
            return [default_convert(item) for item in data]
    return data
