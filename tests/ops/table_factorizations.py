"""Op table: LU factorization and the solvers on factors, triangular and Cholesky solves, and the
matrix exponential (names start with `linalg_`, so `-k linalg_` runs them with the other linear
algebra cases). Factors that PyTorch reads from one triangle are built inside the case from a
random matrix (masked and kept away from singular), so finite differences see the same function
as the analytic gradient; torch's deprecated spellings are called with their notice silenced."""

import warnings

import numpy as np

import ember

from .op_table import OpCase


def _quiet(function):
    def call(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return function(*args, **kwargs)

    return call


def _well_conditioned(shapes, rng):
    arrays = []
    for shape in shapes:
        x = rng.uniform(-1, 1, size=shape)
        if len(shape) >= 2 and shape[-1] == shape[-2]:
            x = x + 3 * np.eye(shape[-1])
        arrays.append(x)
    return arrays


def _lower_factor(m, raw):
    """A lower-triangular factor with a diagonal away from zero, from any square matrix."""
    n = raw.shape[-1]
    return raw.tril() + 3 * m.eye(n, dtype=raw.dtype)


def _numpy_matrix_exp(a):
    values, vectors = np.linalg.eig(a)
    return (vectors @ (np.exp(values)[..., None] * np.linalg.inv(vectors))).real


def _numpy_gram(raw):
    """L L^T of the factor `_lower_factor` builds from `raw`."""
    lower = np.tril(raw) + 3 * np.eye(raw.shape[-1])
    return lower @ np.swapaxes(lower, -1, -2)


def _householder_inputs(complex_values=False):
    """(reflectors, tau[, other]) as LAPACK's geqrf packs them for a random matrix of the first shape (tau
    cut to the second shape's length); any further shapes get plain random matrices."""

    def random(shape, rng):
        values = rng.uniform(-1, 1, size=shape)
        return values + 1j * rng.uniform(-1, 1, size=shape) if complex_values else values

    def make(shapes, rng):
        transposed, tau = np.linalg.qr(random(shapes[0], rng), mode="raw")
        reflectors = np.swapaxes(transposed, -1, -2).copy()
        return [reflectors, tau[..., : shapes[1][-1]].copy()] + [random(shape, rng) for shape in shapes[2:]]

    return make


def _numpy_householder_matrix(reflectors, tau):
    """Q = H_1 ... H_k as a full matrix, each H_i = I - tau_i v_i v_i^H formed explicitly."""
    rows = reflectors.shape[-2]
    q = np.broadcast_to(np.eye(rows, dtype=reflectors.dtype), reflectors.shape[:-2] + (rows, rows))
    for i in range(tau.shape[-1]):
        v = np.tril(reflectors, -1)[..., :, i] + np.eye(rows)[:, i]
        outer = v[..., :, None] * v.conj()[..., None, :]
        q = q @ (np.eye(rows) - tau[..., i, None, None] * outer)
    return q


def _numpy_householder_product(reflectors, tau):
    return _numpy_householder_matrix(reflectors, tau)[..., : reflectors.shape[-1]]


def _numpy_ormqr(left, transpose):
    def product(reflectors, tau, other):
        q = _numpy_householder_matrix(reflectors, tau)
        q = np.swapaxes(q, -1, -2).conj() if transpose else q
        return q @ other if left else other @ q

    return product


def _ormqr_case(name, shapes, left, transpose, complex_values=False):
    return OpCase(
        name,
        lambda a, tau, other: ember.ormqr(a, tau, other, left=left, transpose=transpose),
        _numpy_ormqr(left, transpose),
        shapes,
        make_inputs=_householder_inputs(complex_values),
        torch_fn=lambda torch, a, tau, other: torch.ormqr(a, tau, other, left=left, transpose=transpose),
    )


_LEFT_SHAPES = [((5, 3), (3,), (5, 2)), ((2, 4, 4), (2, 4), (2, 4, 3))]
_RIGHT_SHAPES = [((4, 3), (3,), (2, 4)), ((2, 3, 3), (2, 3), (2, 2, 3))]


CASES = [
    OpCase(
        "linalg_matrix_exp",
        ember.matrix_exp,
        _numpy_matrix_exp,
        [((3, 3),), ((2, 4, 4),), ((1, 1),)],
        domain=(-1.5, 1.5),
        torch_fn=lambda torch, a: torch.matrix_exp(a),
    ),
    OpCase(
        "linalg_lu_factor",
        lambda a: ember.linalg.lu_factor(a).LU,
        None,
        [((4, 4),), ((2, 3, 3),)],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, a: torch.linalg.lu_factor(a).LU,
    ),
    OpCase(
        "linalg_lu_deprecated",
        _quiet(lambda a: ember.lu(a)[0]),
        None,
        [((3, 3),)],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, a: _quiet(torch.lu)(a)[0],
    ),
    OpCase(
        "linalg_lu_unpacked",
        lambda a: tuple(ember.linalg.lu(a)[1:]),
        None,
        [((4, 4),)],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, a: tuple(torch.linalg.lu(a)[1:]),
    ),
    OpCase(
        "linalg_lu_unpack",
        lambda packed: tuple(ember.lu_unpack(packed, ember.tensor([2, 3, 3], dtype=ember.int32))[1:]),
        None,
        [((3, 3),), ((3, 5),)],
        torch_fn=lambda torch, packed: tuple(torch.lu_unpack(packed, torch.tensor([2, 3, 3], dtype=torch.int32))[1:]),
    ),
    OpCase(
        "linalg_lu_solve",
        lambda b, a: ember.linalg.lu_solve(*ember.linalg.lu_factor(a), b),
        lambda b, a: np.linalg.solve(a, b),
        [((3, 2), (3, 3)), ((2, 4, 1), (2, 4, 4))],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, b, a: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b),
    ),
    OpCase(
        "linalg_lu_solve_adjoint_right",
        lambda b, a: ember.linalg.lu_solve(*ember.linalg.lu_factor(a), b, left=False, adjoint=True),
        lambda b, a: np.linalg.solve(a, b.T).T,
        [((2, 3), (3, 3))],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, b, a: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, left=False, adjoint=True),
    ),
    OpCase(
        "linalg_lu_solve_deprecated",
        _quiet(lambda b, a: ember.lu_solve(b, *ember.lu(a))),
        lambda b, a: np.linalg.solve(a, b),
        [((3, 2), (3, 3))],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, b, a: _quiet(torch.lu_solve)(b, *_quiet(torch.lu)(a)),
    ),
    OpCase(
        "linalg_solve_triangular",
        lambda a, b: ember.linalg.solve_triangular(a, b, upper=True),
        lambda a, b: np.linalg.solve(np.triu(a), b),
        [((3, 3), (3, 2)), ((2, 3, 3), (3, 1))],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, a, b: torch.linalg.solve_triangular(a, b, upper=True),
    ),
    OpCase(
        "linalg_solve_triangular_unit_right",
        lambda a, b: ember.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        lambda a, b: b @ np.linalg.inv(np.tril(a, -1) + np.eye(a.shape[-1])),
        [((3, 3), (2, 3))],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
    ),
    OpCase(
        "linalg_triangular_solve",
        _quiet(lambda b, a: ember.triangular_solve(b, a, upper=False, transpose=True).solution),
        lambda b, a: np.linalg.solve(np.tril(a).T, b),
        [((3, 2), (3, 3))],
        make_inputs=_well_conditioned,
        torch_fn=lambda torch, b, a: _quiet(torch.triangular_solve)(b, a, upper=False, transpose=True).solution,
    ),
    OpCase(
        "linalg_cholesky_solve",
        lambda b, raw: ember.cholesky_solve(b, _lower_factor(ember, raw)),
        lambda b, raw: np.linalg.solve(_numpy_gram(raw), b),
        [((3, 2), (3, 3)), ((2, 4, 1), (2, 4, 4))],
        torch_fn=lambda torch, b, raw: torch.cholesky_solve(b, _lower_factor(torch, raw)),
    ),
    OpCase(
        "linalg_cholesky_solve_upper",
        lambda b, raw: ember.cholesky_solve(b, _lower_factor(ember, raw).mT, upper=True),
        lambda b, raw: np.linalg.solve(_numpy_gram(raw), b),
        [((3, 2), (3, 3))],
        torch_fn=lambda torch, b, raw: torch.cholesky_solve(b, _lower_factor(torch, raw).mT, upper=True),
    ),
    OpCase(
        "linalg_cholesky_inverse",
        lambda raw: ember.cholesky_inverse(_lower_factor(ember, raw)),
        lambda raw: np.linalg.inv(_numpy_gram(raw)),
        [((3, 3),), ((2, 2, 2),)],
        torch_fn=lambda torch, raw: torch.cholesky_inverse(_lower_factor(torch, raw)),
    ),
    OpCase(
        "linalg_geqrf",
        lambda a: tuple(ember.geqrf(a)),
        None,
        [((4, 3),), ((3, 5),), ((2, 3, 3),)],
        grad=False,
        gradgrad=False,
        differentiable_inputs=(),  # PyTorch defines no derivative for geqrf
        torch_fn=lambda torch, a: tuple(torch.geqrf(a)),
    ),
    OpCase(
        "linalg_householder_product",
        ember.linalg.householder_product,
        _numpy_householder_product,
        # tall, square, batched, and fewer reflectors than columns
        [((5, 3), (3,)), ((3, 3), (3,)), ((2, 4, 3), (2, 3)), ((4, 3), (2,))],
        make_inputs=_householder_inputs(),
        torch_fn=lambda torch, a, tau: torch.linalg.householder_product(a, tau),
    ),
    OpCase(
        "linalg_householder_product_complex",
        ember.linalg.householder_product,
        _numpy_householder_product,
        [((4, 3), (3,))],
        make_inputs=_householder_inputs(complex_values=True),
        torch_fn=lambda torch, a, tau: torch.linalg.householder_product(a, tau),
    ),
    OpCase(
        "linalg_orgqr_method",
        lambda a, tau: a.orgqr(tau),
        _numpy_householder_product,
        [((4, 2), (2,))],
        make_inputs=_householder_inputs(),
        torch_fn=lambda torch, a, tau: a.orgqr(tau),
    ),
    _ormqr_case("linalg_ormqr_left", _LEFT_SHAPES, left=True, transpose=False),
    _ormqr_case("linalg_ormqr_left_transpose", _LEFT_SHAPES, left=True, transpose=True),
    _ormqr_case("linalg_ormqr_right", _RIGHT_SHAPES, left=False, transpose=False),
    _ormqr_case("linalg_ormqr_right_transpose", _RIGHT_SHAPES, left=False, transpose=True),
    _ormqr_case(
        "linalg_ormqr_complex_left_transpose", _LEFT_SHAPES[:1], left=True, transpose=True, complex_values=True
    ),
    _ormqr_case("linalg_ormqr_complex_right", _RIGHT_SHAPES[:1], left=False, transpose=False, complex_values=True),
    OpCase(
        "linalg_ormqr_method",
        lambda a, tau, other: a.ormqr(tau, other, False, True),
        _numpy_ormqr(left=False, transpose=True),
        [((3, 2), (2,), (4, 3))],
        make_inputs=_householder_inputs(),
        torch_fn=lambda torch, a, tau, other: a.ormqr(tau, other, False, True),
    ),
]
