"""Named-tuple results of ops such as `max(dim)`, `sort` and `topk`, as `torch.return_types`.

`values, indices = x.max(dim=1)` unpacks like a tuple, `result.values` reads a field, and the repr
is PyTorch's, so printed output matches a script run under PyTorch::

    torch.return_types.max(
    values=tensor([3., 5.]),
    indices=tensor([1, 0]))
"""

import collections

__all__ = [
    "max",
    "min",
    "median",
    "nanmedian",
    "mode",
    "kthvalue",
    "topk",
    "sort",
    "aminmax",
    "cummax",
    "cummin",
    "frexp",
    "histogramdd",
    "geqrf",
]


def _structseq(name, fields):
    """A tuple type with named fields whose repr is `torch.return_types.<name>(...)`."""
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        items = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{items})"

    namespace = {
        "__slots__": (),
        "__repr__": __repr__,
        "__str__": __repr__,
        "__module__": __name__,
        "n_fields": len(fields),
        "n_sequence_fields": len(fields),
        "n_unnamed_fields": 0,
    }
    return type(name, (base,), namespace)


max = _structseq("max", ("values", "indices"))  # noqa: A001
min = _structseq("min", ("values", "indices"))  # noqa: A001
median = _structseq("median", ("values", "indices"))
nanmedian = _structseq("nanmedian", ("values", "indices"))
mode = _structseq("mode", ("values", "indices"))
kthvalue = _structseq("kthvalue", ("values", "indices"))
topk = _structseq("topk", ("values", "indices"))
sort = _structseq("sort", ("values", "indices"))
cummax = _structseq("cummax", ("values", "indices"))
cummin = _structseq("cummin", ("values", "indices"))
aminmax = _structseq("aminmax", ("min", "max"))
frexp = _structseq("frexp", ("mantissa", "exponent"))
histogramdd = _structseq("histogramdd", ("hist", "bin_edges"))
geqrf = _structseq("geqrf", ("a", "tau"))
