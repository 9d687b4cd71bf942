"""Collectives of Python objects: `all_gather_object`, `broadcast_object_list`, `gather_object`,
`scatter_object_list`.

An object travels as bytes. A tensor travels as its dtype, shape and raw memory, without pickle;
anything else is pickled, with the tensors inside it (a state dict, say) still sent as raw memory
beside the pickle. As in PyTorch, only use these with peers you trust: other objects are unpickled.
"""

import io
import json
import pickle

import numpy as np

from .._tensor import Tensor, new_tensor
from .collectives import _root, _start
from .process_group import resolve

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]

_TENSOR, _PICKLE = b"T", b"P"


def _tensor_header(tensor):
    array = np.ascontiguousarray(tensor._data)
    header = json.dumps(
        {"dtype": array.dtype.str, "shape": list(array.shape), "requires_grad": bool(tensor.requires_grad)}
    ).encode()
    return header, array


def _encode(obj):
    """One object as bytes: a tensor as header + memory, anything else as a pickle whose tensors are
    stored after it as raw memory."""
    if isinstance(obj, Tensor):
        header, array = _tensor_header(obj)
        return b"".join([_TENSOR, len(header).to_bytes(8, "little"), header, array.tobytes()])
    tensors = []

    class Pickler(pickle.Pickler):
        def persistent_id(self, value):
            if isinstance(value, Tensor):
                tensors.append(value)
                return len(tensors) - 1
            return None

    stream = io.BytesIO()
    Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    parts = [_PICKLE, len(stream.getvalue()).to_bytes(8, "little"), stream.getvalue()]
    for tensor in tensors:
        header, array = _tensor_header(tensor)
        parts += [len(header).to_bytes(8, "little"), header, array.tobytes()]
    return b"".join(parts)


def _read_tensor(data, offset):
    size = int.from_bytes(data[offset : offset + 8], "little")
    header = json.loads(bytes(data[offset + 8 : offset + 8 + size]))
    offset += 8 + size
    dtype = np.dtype(header["dtype"])
    count = int(np.prod(header["shape"], dtype=np.int64))
    array = np.frombuffer(data, dtype, count, offset).reshape(header["shape"]).copy()
    return new_tensor(array, requires_grad=header["requires_grad"]), offset + count * dtype.itemsize


def _decode(data):
    data = memoryview(data)
    kind = bytes(data[:1])
    if kind == _TENSOR:
        return _read_tensor(data, 1)[0]
    size = int.from_bytes(data[1:9], "little")
    pickled = bytes(data[9 : 9 + size])
    offset = 9 + size
    tensors = []
    while offset < len(data):
        tensor, offset = _read_tensor(data, offset)
        tensors.append(tensor)

    class Unpickler(pickle.Unpickler):
        def persistent_load(self, index):
            return tensors[index]

    return Unpickler(io.BytesIO(pickled)).load()


def _as_bytes(payload):
    return np.frombuffer(payload, np.uint8)


def _gather_payloads(group, payload, root=None):
    """Every rank's payload (bytes of varying size) on every rank, or on `root` only."""
    comm = group.comm
    sizes = np.array(comm.allgather(len(payload)), np.int64)
    if root is not None and group.rank() != root:
        request = comm.Igatherv(_as_bytes(payload), None, root=root)
        _start(group, "gather_object", [request], None, False)
        return None
    received = np.empty(int(sizes.sum()), np.uint8)
    displacements = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    target = [received, (list(sizes), list(displacements))]
    if root is None:
        request = comm.Iallgatherv(_as_bytes(payload), target)
    else:
        request = comm.Igatherv(_as_bytes(payload), target, root=root)
    _start(group, "all_gather_object", [request], None, False)
    return [received[start : start + size].tobytes() for start, size in zip(displacements, sizes)]


def all_gather_object(object_list, obj, group=None):
    """Every rank's `obj`, into `object_list[rank]` on every rank."""
    group = resolve(group)
    if group is None:
        return
    _check_length(object_list, group.size(), "all_gather_object", "object_list")
    for index, payload in enumerate(_gather_payloads(group, _encode(obj))):
        object_list[index] = _decode(payload)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Every rank's `obj` into `object_gather_list` on rank `dst`."""
    group = resolve(group)
    if group is None:
        return
    root = _root(group, dst, group_dst, "dst")
    if group.rank() == root:
        _check_length(object_gather_list, group.size(), "gather_object", "object_gather_list")
    payloads = _gather_payloads(group, _encode(obj), root)
    if payloads is not None:
        for index, payload in enumerate(payloads):
            object_gather_list[index] = _decode(payload)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replace `object_list`'s items on every rank with those of rank `src` (same length everywhere)."""
    group = resolve(group)
    if group is None:
        return
    root = _root(group, src, group_src, "src")
    payloads = [_encode(obj) for obj in object_list] if group.rank() == root else None
    sizes = group.comm.bcast([len(p) for p in payloads] if payloads is not None else None, root=root)
    if len(sizes) != len(object_list):
        raise ValueError(
            f"broadcast_object_list: object_list has {len(object_list)} items here but "
            f"{len(sizes)} on the source rank {src}; give every rank a list of the same length"
        )
    buffer = _as_bytes(b"".join(payloads)).copy() if payloads is not None else np.empty(sum(sizes), np.uint8)
    _start(group, "broadcast_object_list", [group.comm.Ibcast(buffer, root=root)], None, False)
    if group.rank() != root:
        offset = 0
        for index, size in enumerate(sizes):
            object_list[index] = _decode(buffer[offset : offset + size].tobytes())
            offset += size


def scatter_object_list(
    scatter_object_output_list, scatter_object_input_list=None, src=None, group=None, group_src=None
):
    """`scatter_object_input_list[rank]` of rank `src` into `scatter_object_output_list[0]` on each rank."""
    group = resolve(group)
    if group is None:
        return
    root = _root(group, src, group_src, "src")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError(
            "scatter_object_list: Expected argument scatter_object_output_list to be a list of size at least 1."
        )
    payloads = None
    if group.rank() == root:
        _check_length(scatter_object_input_list, group.size(), "scatter_object_list", "scatter_object_input_list")
        payloads = [_encode(obj) for obj in scatter_object_input_list]
    sizes = group.comm.bcast([len(p) for p in payloads] if payloads is not None else None, root=root)
    received = np.empty(sizes[group.rank()], np.uint8)
    source = None
    if payloads is not None:
        displacements = list(np.concatenate([[0], np.cumsum(sizes)[:-1]]))
        source = [_as_bytes(b"".join(payloads)), (sizes, displacements)]
    request = group.comm.Iscatterv(source, received, root=root)
    _start(group, "scatter_object_list", [request], None, False)
    scatter_object_output_list[0] = _decode(received.tobytes())


def _check_length(items, count, operation, argument):
    if not isinstance(items, list) or len(items) != count:
        raise ValueError(f"{operation}: {argument} must be a list of {count} items (one per rank)")
