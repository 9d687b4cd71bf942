"""Op table: joining and splitting (cat, stack, split, ...), flips, rolls, repeats, diagonals, windows,
and the shape ops owned with them (view, reshape, flatten, squeeze, expand, movedim, ...).

Cases are written once as `f(lib, *tensors)` and run with lib = ember and lib = torch.
"""

import numpy as np

import ember

from .op_table import OpCase


def case(name, function, numpy_fn, shapes, **options):
    return OpCase(
        "join_" + name,
        lambda *xs: function(ember, *xs),
        numpy_fn,
        shapes,
        torch_fn=lambda t, *xs: function(t, *xs),
        **options,
    )


def _np_repeat_interleave(a, repeats, axis):
    return np.repeat(a, repeats, axis=axis)


def _np_diag_embed(a, offset=0):
    size = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (size, size))
    for position in range(a.shape[-1]):
        row, column = (position, position + offset) if offset >= 0 else (position - offset, position)
        out[..., row, column] = a[..., position]
    return out


def _np_unfold(a, dim, size, step):
    count = (a.shape[dim] - size) // step + 1
    windows = [np.take(a, range(i * step, i * step + size), axis=dim) for i in range(count)]
    return np.moveaxis(np.stack(windows, axis=dim), dim + 1, -1)


CASES = [
    case(
        "cat",
        lambda lib, a, b: lib.cat([a, b], 1),
        lambda a, b: np.concatenate([a, b], 1),
        [((2, 3), (2, 4)), ((2, 1, 3), (2, 2, 3))],
    ),
    case(
        "cat_negative_dim_three",
        lambda lib, a, b, c: lib.cat((a, b, c), -1),
        lambda a, b, c: np.concatenate([a, b, c], -1),
        [((2, 3), (2, 1), (2, 2))],
    ),
    case(
        "cat_skips_legacy_empty",
        lambda lib, a: lib.cat([a, lib.zeros(0, dtype=a.dtype), a]),
        lambda a: np.concatenate([a, a]),
        [((2, 3),)],
    ),
    case("concat_alias", lambda lib, a, b: lib.concat([a, b]), lambda a, b: np.concatenate([a, b]), [((2, 3), (1, 3))]),
    case("stack", lambda lib, a, b: lib.stack([a, b], 1), lambda a, b: np.stack([a, b], 1), [((2, 3), (2, 3))]),
    case("stack_scalars", lambda lib, a, b: lib.stack([a, b]), lambda a, b: np.stack([a, b]), [((), ())]),
    case("stack_last", lambda lib, a, b: lib.stack([a, b], -1), lambda a, b: np.stack([a, b], -1), [((2, 3), (2, 3))]),
    case(
        "hstack",
        lambda lib, a, b: lib.hstack([a, b]),
        np.hstack.__call__ if False else lambda a, b: np.hstack([a, b]),
        [((2, 3), (2, 1)), ((3,), (2,))],
    ),
    case(
        "vstack", lambda lib, a, b: lib.vstack([a, b]), lambda a, b: np.vstack([a, b]), [((3,), (3,)), ((2, 3), (1, 3))]
    ),
    case(
        "dstack", lambda lib, a, b: lib.dstack([a, b]), lambda a, b: np.dstack([a, b]), [((2, 3), (2, 3)), ((3,), (3,))]
    ),
    case(
        "column_stack",
        lambda lib, a, b: lib.column_stack([a, b]),
        lambda a, b: np.column_stack([a, b]),
        [((3,), (3,)), ((3, 2), (3,))],
    ),
    case("split_int", lambda lib, a: lib.split(a, 2, 1), lambda a: np.split(a, [2], 1), [((2, 3),)]),
    case("split_sizes", lambda lib, a: a.split([1, 0, 2], 0), lambda a: np.split(a, [1, 1], 0), [((3, 2),)]),
    case("split_then_use_one", lambda lib, a: a.split(1)[1] * 2, lambda a: a[1:2] * 2, [((3, 2),)]),
    case("chunk", lambda lib, a: a.chunk(3, -1), lambda a: np.split(a, [2, 4], -1), [((2, 5),)]),
    case(
        "tensor_split_sections",
        lambda lib, a: lib.tensor_split(a, 3, 1),
        lambda a: np.array_split(a, 3, 1),
        [((2, 7),)],
    ),
    case("tensor_split_indices", lambda lib, a: a.tensor_split([1, 4]), lambda a: np.split(a, [1, 4]), [((5, 2),)]),
    case("unbind", lambda lib, a: a.unbind(1), lambda a: tuple(np.moveaxis(a, 1, 0)), [((2, 3),)]),
    case("narrow", lambda lib, a: a.narrow(1, 1, 2), lambda a: a[:, 1:3], [((3, 4),)]),
    case("narrow_negative_start", lambda lib, a: lib.narrow(a, 0, -2, 2), lambda a: a[-2:], [((3, 4),)]),
    case("flip", lambda lib, a: a.flip((0, 2)), lambda a: np.flip(a, (0, 2)), [((2, 3, 2),)]),
    case(
        "fliplr_flipud",
        lambda lib, a: lib.fliplr(a) * lib.flipud(a),
        lambda a: np.fliplr(a) * np.flipud(a),
        [((3, 3),)],
    ),
    case("roll_flat", lambda lib, a: a.roll(2), lambda a: np.roll(a, 2), [((3, 4),)]),
    case("roll_dims", lambda lib, a: a.roll((1, -1), (0, 1)), lambda a: np.roll(a, (1, -1), (0, 1)), [((3, 4),)]),
    case("repeat", lambda lib, a: a.repeat(2, 1, 3), lambda a: np.tile(a, (2, 1, 3)), [((2, 3),), ((),)]),
    case("tile", lambda lib, a: a.tile((2,)), lambda a: np.tile(a, 2), [((2, 3),)]),
    case(
        "repeat_interleave_int",
        lambda lib, a: a.repeat_interleave(2, dim=1),
        lambda a: _np_repeat_interleave(a, 2, 1),
        [((2, 3),)],
    ),
    case("repeat_interleave_flat", lambda lib, a: lib.repeat_interleave(a, 3), lambda a: np.repeat(a, 3), [((2, 2),)]),
    case(
        "repeat_interleave_tensor",
        lambda lib, a: a.repeat_interleave(lib.tensor([1, 0, 2]), dim=0),
        lambda a: _np_repeat_interleave(a, [1, 0, 2], 0),
        [((3, 2),)],
    ),
    case("tril", lambda lib, a: a.tril(), np.tril, [((3, 4),), ((2, 3, 3),)]),
    case("triu_offset", lambda lib, a: lib.triu(a, -1), lambda a: np.triu(a, -1), [((3, 4),)]),
    case("diagonal", lambda lib, a: a.diagonal(), lambda a: np.diagonal(a), [((3, 4),)]),
    case(
        "diagonal_offset_dims",
        lambda lib, a: lib.diagonal(a, -1, 2, 0),
        lambda a: np.diagonal(a, -1, 2, 0),
        [((3, 2, 4),)],
    ),
    case("diag_matrix", lambda lib, a: lib.diag(a, 1), lambda a: np.diag(a, 1), [((3, 4),)]),
    case("diag_vector", lambda lib, a: lib.diag(a, -1), lambda a: np.diag(a, -1), [((3,),)]),
    case("diag_embed", lambda lib, a: lib.diag_embed(a), _np_diag_embed, [((2, 3),)]),
    case("diag_embed_offset", lambda lib, a: lib.diag_embed(a, 2), lambda a: _np_diag_embed(a, 2), [((3,),)]),
    case("diagflat", lambda lib, a: lib.diagflat(a), lambda a: np.diagflat(a), [((2, 2),)]),
    case(
        "meshgrid_ij",
        lambda lib, a, b: lib.meshgrid(a, b, indexing="ij"),
        lambda a, b: np.meshgrid(a, b, indexing="ij"),
        [((3,), (2,))],
    ),
    case(
        "meshgrid_xy",
        lambda lib, a, b, c: lib.meshgrid(a, b, c, indexing="xy"),
        lambda a, b, c: np.meshgrid(a, b, c, indexing="xy"),
        [((3,), (2,), (4,))],
    ),
    case(
        "cartesian_prod",
        lambda lib, a, b: lib.cartesian_prod(a, b),
        lambda a, b: np.stack([g.reshape(-1) for g in np.meshgrid(a, b, indexing="ij")], 1),
        [((3,), (2,))],
    ),
    case("unfold", lambda lib, a: a.unfold(1, 2, 1), lambda a: _np_unfold(a, 1, 2, 1), [((2, 5),)]),
    case("unfold_step", lambda lib, a: a.unfold(0, 3, 2), lambda a: _np_unfold(a, 0, 3, 2), [((7, 2),)]),
    # shape ops
    case("view_infer", lambda lib, a: a.view(2, -1, 3), lambda a: a.reshape(2, -1, 3), [((4, 3),)]),
    case("reshape_copy", lambda lib, a: a.transpose(0, 1).reshape(-1), lambda a: a.T.reshape(-1), [((3, 4),)]),
    case("flatten_range", lambda lib, a: a.flatten(1, 2), lambda a: a.reshape(2, 12, 1), [((2, 3, 4, 1),)]),
    case("unflatten", lambda lib, a: a.unflatten(1, (2, -1)), lambda a: a.reshape(3, 2, 2), [((3, 4),)]),
    case("squeeze_dims", lambda lib, a: a.squeeze((0, 2)), lambda a: a.reshape(3, 2), [((1, 3, 1, 2),)]),
    case("unsqueeze_negative", lambda lib, a: a.unsqueeze(-1), lambda a: a[..., None], [((3, 4),)]),
    case("expand_keep", lambda lib, a: a.expand(2, -1, 4), lambda a: np.broadcast_to(a, (2, 3, 4)), [((3, 1),)]),
    case(
        "broadcast_to",
        lambda lib, a: lib.broadcast_to(a, (3, 2, 2)),
        lambda a: np.broadcast_to(a, (3, 2, 2)),
        [((2, 1),)],
    ),
    case(
        "movedim",
        lambda lib, a: lib.movedim(a, (0, 1), (2, 0)),
        lambda a: np.moveaxis(a, (0, 1), (2, 0)),
        [((2, 3, 4),)],
    ),
    case(
        "swapaxes_mT",
        lambda lib, a: a.swapaxes(0, 1).mT,
        lambda a: np.swapaxes(np.swapaxes(a, 0, 1), -1, -2),
        [((2, 3, 4),)],
    ),
    case("contiguous_of_transpose", lambda lib, a: a.t().contiguous(), lambda a: a.T.copy(), [((3, 4),)]),
]
