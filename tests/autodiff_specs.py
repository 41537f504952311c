"""Table-driven specs for the autodiff rule tests (tests/test_autodiff_rules.py).

Each :class:`Spec` names a function of tensors (the differentiable arguments; indices,
masks and other constants live in the closure), the shapes and sampling domains of its
arguments, the dtypes to test and tolerances.  The test runs
``tenferro.autograd.gradcheck`` on it in forward and reverse mode to order 2.
"""
from dataclasses import dataclass, field
from typing import Callable, Tuple

import numpy as np

import tenferro as tf
from tenferro.autograd.extend import registry as _registry

from op_table import OPS as _OPS, Range

REAL = ("float64",)
COMPLEX = ("complex128",)
BOTH = REAL + COMPLEX


@dataclass
class Arg:
    shape: Tuple[int, ...]
    # Real parts (and imaginary parts, for complex dtypes) are drawn uniformly from
    # [low, high]; ``away`` keeps |x| >= away (e.g. away from a kink or a pole).
    low: float = -2.0
    high: float = 2.0
    away: float = 0.0
    points: Tuple[complex, ...] = None   # fixed values instead (shape (len(points),))


@dataclass
class Spec:
    name: str                      # shown in the test id; usually the op name
    fn: Callable                   # fn(*tensors) -> tensor (or tuple of tensors)
    args: Tuple[Arg, ...]
    dtypes: Tuple[str, ...] = REAL
    order: int = 2                 # highest derivative order checked
    modes: Tuple[str, ...] = ("jvp", "vjp")
    rtol: float = None             # None: gradcheck's per-dtype default
    atol: float = None
    prims: Tuple[str, ...] = field(default_factory=tuple)  # primitives this spec covers


SPECS = []


def spec(*args, **kwargs):
    s = Spec(*args, **kwargs)
    SPECS.append(s)
    return s


def sample(arg, dtype, rng):
    """A tensor drawn for ``arg`` (see :class:`Arg`)."""
    r = Range(arg.low, arg.high, arg.away)
    d = np.dtype(dtype)
    if arg.points is not None:
        return tf.asarray(np.asarray(arg.points, dtype=d).reshape(arg.shape))
    v = r.draw(rng, arg.shape)
    if d.kind == "c":
        v = v + 1j * r.draw(rng, arg.shape)
    return tf.asarray(np.asarray(v, dtype=d))


def points(*values):
    """An :class:`Arg` holding exactly ``values`` (a 1-D argument)."""
    return Arg((len(values),), points=tuple(values))


# -- elementwise --
# One spec per differentiable elementwise op of tests/op_table.py, drawn from its
# differentiation domain in its derivative dtypes.
from tenferro._ops.conversion import device_put_p as _device_put_p  # noqa: E402
from tenferro.autograd._check import check_p as _check_p  # noqa: E402


def _arg(shape, r):
    return Arg(shape, r.low, r.high, r.away)


def _op_spec(op, shapes, suffix=""):
    fn = getattr(tf, op.name)
    return spec(op.name + suffix, lambda *xs: fn(*xs),
                args=tuple(_arg(s, r) for s, r in zip(shapes, op.grad_ranges())),
                dtypes=op.grad_dtype_names(), prims=(op.name,))


_DIFFERENTIABLE = [op for op in _OPS.values() if _registry[op.name].differentiable]
for _op in _DIFFERENTIABLE:
    _op_spec(_op, ((3, 4),) if _op.arity == 1 else ((3, 1), (4,)))
# a 0-d operand beside a full one (its gradient sums over the broadcast)
for _name, _shapes in (("add", ((), (2, 3))), ("subtract", ((2, 3), ())),
                       ("multiply", ((), (2, 3))), ("divide", ((2, 3), ())),
                       ("power", ((), (2, 3))), ("maximum", ((2, 3), ()))):
    _op_spec(_OPS[_name], _shapes, suffix="_0d")

# Complex derivatives in all four quadrants and beside (not on) every branch cut and
# pole (each op's ``beside`` points in tests/op_table.py, 0.02 off; the
# finite-difference step is 1e-6): a rule on the wrong branch (e.g. arccosh's
# rsqrt(z*z - 1) for Re z < 0) agrees with finite differences in the first quadrant only.
QUADRANTS = (0.6 + 0.8j, -0.7 + 0.5j, -0.4 - 0.9j, 0.8 - 0.3j,
             1.7 + 1.3j, -1.6 + 1.2j, -1.4 - 1.8j, 1.9 - 1.1j)
for _op in _DIFFERENTIABLE:
    if _op.arity == 1 and COMPLEX[0] in _op.grad_dtype_names():
        spec(_op.name + "_quadrants", lambda x, _f=getattr(tf, _op.name): _f(x),
             args=(points(*QUADRANTS, *_op.beside),), dtypes=COMPLEX, prims=(_op.name,))
# complex binary ops over all quadrants: power's base beside its cut, divide near its pole
_POW_BASES = QUADRANTS + _OPS["power"].beside
spec("power_quadrants", lambda x, y: tf.power(x, y),
     args=(points(*_POW_BASES), Arg((len(_POW_BASES),), -1.5, 1.5)), dtypes=COMPLEX,
     prims=("power",))
spec("divide_quadrants", lambda x, y: x / y,
     args=(Arg((len(QUADRANTS),)), points(*(0.1 * z for z in QUADRANTS))), dtypes=COMPLEX,
     prims=("divide",))

_WHERE_MASK = np.array([[True], [False], [True]])
spec("where", lambda x, y: tf.where(tf.asarray(_WHERE_MASK), x, y),
     args=(Arg((4,)), Arg((3, 4))), dtypes=BOTH, prims=("where",))
# lo and hi drawn independently: some lo > hi, where clip gives hi (as NumPy, PyTorch)
spec("clip", lambda x, lo, hi: tf.clip(x, lo, hi),
     args=(Arg((3, 4)), Arg((3, 1), -1.0, 1.0), Arg((4,), -1.0, 1.0)), dtypes=REAL,
     prims=("clip",))
spec("clip_0d", lambda x, lo, hi: tf.clip(x, lo, hi),
     args=(Arg(()), Arg((), -1.0, 0.0), Arg((2,), 0.0, 1.0)), dtypes=REAL, prims=("clip",))
spec("convert_to_complex", lambda x: tf.astype(x, tf.complex128), args=(Arg((3, 4)),),
     dtypes=REAL, prims=("convert",))
spec("convert_to_real", lambda z: tf.astype(z, tf.float64), args=(Arg((3, 4)),),
     dtypes=COMPLEX, prims=("convert",))
spec("copy", lambda x: tf.copy(x), args=(Arg((3, 4)),), dtypes=BOTH, prims=("copy",))
# to_device to the same device returns its input: bind the primitive itself
spec("device_put", lambda x: _device_put_p.bind(x, device=x.device), args=(Arg((3, 4)),),
     dtypes=BOTH, prims=("device_put",))
# the runtime check passes its value through (check() binds it only when traced)
spec("check", lambda x: _check_p.bind(x * x, tf.abs(x) < 10, error=ValueError,
                                      message="never"), args=(Arg((3, 4)),), dtypes=BOTH,
     prims=("check",))


# -- structural --
# Reductions, scans, views, gathers/scatters, joining and matmul through the public ops.
# Index tensors, masks and constant operands live in the closures.  Max/min specs use
# continuous random inputs (ties have probability zero: finite differences are not
# defined at ties; tie-splitting is unit-tested).  Arguments drawn with low == high == 0
# put exact zeros where prod/cumprod must differentiate through them.

def _i64(a):
    return tf.asarray(np.asarray(a, dtype=np.int64))


_MASK23 = tf.asarray(np.array([[True, False, True], [False, True, True]]))
_COND34 = tf.asarray(np.array([[True, False, True, False], [False, False, True, True],
                               [True, True, False, True]]))
_ZERO = Arg((1,), low=0.0, high=0.0)
_ZEROS2 = Arg((2,), low=0.0, high=0.0)

# reductions
spec("sum_axes", lambda x: tf.sum(x, axis=(0, 2)), (Arg((3, 4, 5)),), BOTH, prims=("sum",))
spec("sum_all", lambda x: tf.sum(x), (Arg((3, 4)),), BOTH, prims=("sum",))
spec("sum_keepdims", lambda x: tf.sum(x, axis=-1, keepdims=True), (Arg((3, 4)),), BOTH,
     prims=("sum", "reshape"))
spec("sum_empty_axes", lambda x: tf.sum(x, axis=()), (Arg((3, 2)),), BOTH, prims=("sum",))
spec("prod_axis", lambda x: tf.prod(x, axis=1), (Arg((3, 4, 2)),), BOTH, prims=("prod",))
spec("prod_axes_keepdims", lambda x: tf.prod(x, axis=(0, -1), keepdims=True),
     (Arg((2, 3, 3)),), BOTH, prims=("prod", "reshape"))
spec("prod_all", lambda x: tf.prod(x), (Arg((2, 3)),), BOTH, prims=("prod",))
spec("prod_one_zero", lambda x, z: tf.prod(tf.concatenate([x[:2], z, x[2:]])),
     (Arg((4,)), _ZERO), BOTH, prims=("prod", "concatenate", "basic_index"))
spec("prod_two_zeros", lambda x, z: tf.prod(tf.concatenate([z[:1], x, z[1:]])),
     (Arg((3,)), _ZEROS2), BOTH, prims=("prod", "concatenate", "basic_index"))
spec("max_axis", lambda x: tf.max(x, axis=1), (Arg((3, 4, 2)),), BOTH, prims=("max",))
spec("max_all", lambda x: tf.max(x), (Arg((3, 4)),), BOTH, prims=("max",))
spec("min_axes_keepdims", lambda x: tf.min(x, axis=(0, 2), keepdims=True),
     (Arg((3, 4, 2)),), BOTH, prims=("min", "reshape"))
spec("min_neg_axis", lambda x: tf.min(x, axis=-1), (Arg((3, 5)),), BOTH, prims=("min",))
spec("mean", lambda x: tf.mean(x, axis=0), (Arg((3, 4)),), BOTH, prims=("sum", "divide"))
spec("mean_keepdims", lambda x: tf.mean(x, axis=(0, 1), keepdims=True), (Arg((3, 4, 2)),),
     BOTH, prims=("sum", "reshape", "divide"))
spec("var_ddof", lambda x: tf.var(x, axis=1, ddof=1), (Arg((3, 5)),), BOTH,
     prims=("sum", "subtract", "multiply", "broadcast_to"))
spec("std_keepdims", lambda x: tf.std(x, axis=(0, 1), keepdims=True), (Arg((3, 4, 2)),),
     BOTH, prims=("sum", "sqrt", "reshape"))
spec("logsumexp", lambda x: tf.logsumexp(x, axis=-1), (Arg((3, 4)),), BOTH,
     prims=("max", "sum", "exp", "log", "where"))
spec("logsumexp_all_keepdims", lambda x: tf.logsumexp(x, keepdims=True), (Arg((3, 4)),),
     REAL, prims=("max", "sum", "exp", "log"))

# scans
spec("cumsum_axis", lambda x: tf.cumsum(x, axis=1), (Arg((3, 4, 2)),), BOTH,
     prims=("cumsum",))
spec("cumsum_flat", lambda x: tf.cumsum(x), (Arg((3, 4)),), BOTH,
     prims=("cumsum", "reshape"))
spec("cumprod_axis", lambda x: tf.cumprod(x, axis=0), (Arg((5, 3)),), BOTH,
     prims=("cumprod",))
spec("cumprod_neg_axis", lambda x: tf.cumprod(x, axis=-1), (Arg((2, 3, 9)),), BOTH,
     prims=("cumprod",))
spec("cumprod_one_zero", lambda x, z: tf.cumprod(tf.concatenate([x[:2], z, x[2:]])),
     (Arg((5,)), _ZERO), BOTH, prims=("cumprod", "concatenate", "basic_index"))
spec("cumprod_first_zero", lambda x, z: tf.cumprod(tf.concatenate([z, x])),
     (Arg((4,)), _ZERO), BOTH, prims=("cumprod", "concatenate"))
spec("cumprod_two_zeros",
     lambda x, z: tf.cumprod(tf.concatenate([x[:1], z[:1], x[1:3], z[1:], x[3:]])),
     (Arg((5,)), _ZEROS2), BOTH, prims=("cumprod", "concatenate", "basic_index"))

# shape ops
spec("reshape", lambda x: tf.reshape(x, (6, -1)), (Arg((3, 4, 2)),), BOTH,
     prims=("reshape",))
spec("reshape_of_transpose", lambda x: tf.reshape(x.T, (-1,)), (Arg((3, 4)),), BOTH,
     prims=("reshape", "permute_dims"))
spec("transpose", lambda x: tf.transpose(x, (1, 2, 0)), (Arg((2, 3, 4)),), BOTH,
     prims=("permute_dims",))
spec("matrix_transpose", lambda x: x.mT, (Arg((2, 3, 4)),), BOTH, prims=("permute_dims",))
spec("moveaxis", lambda x: tf.moveaxis(x, 0, -1), (Arg((2, 3, 4)),), BOTH,
     prims=("permute_dims",))
spec("broadcast_to", lambda x: tf.broadcast_to(x, (2, 3, 4)), (Arg((3, 1)),), BOTH,
     prims=("broadcast_to",))
spec("broadcast_to_0d", lambda x: tf.broadcast_to(x, (2, 3)), (Arg(()),), BOTH,
     prims=("broadcast_to",))
spec("expand_dims", lambda x: tf.expand_dims(x, (0, -1)), (Arg((3, 4)),), BOTH,
     prims=("reshape",))
spec("squeeze", lambda x: tf.squeeze(x, 1), (Arg((3, 1, 4)),), BOTH, prims=("reshape",))
spec("flip", lambda x: tf.flip(x, axis=(0, 2)), (Arg((2, 3, 4)),), BOTH,
     prims=("basic_index",))
spec("slice_mixed", lambda x: x[1:3, ::-1, None, 0], (Arg((4, 5, 6)),), BOTH,
     prims=("basic_index",))
spec("slice_ellipsis_int", lambda x: x[..., -1, 1::2], (Arg((2, 3, 5)),), BOTH,
     prims=("basic_index",))
spec("slice_all_ints", lambda x: x[1, 2], (Arg((3, 4)),), BOTH, prims=("basic_index",))
spec("diagonal", lambda x: tf.diagonal(x, 1), (Arg((3, 4)),), BOTH, prims=("diagonal",))
spec("diagonal_3d", lambda x: tf.diagonal(x, -1, 0, 2), (Arg((4, 2, 3)),), BOTH,
     prims=("diagonal",))
spec("trace_batched", lambda x: tf.sum(tf.diagonal(x, axis1=-2, axis2=-1), axis=-1),
     (Arg((2, 3, 3)),), BOTH, prims=("diagonal", "sum"))
spec("diag_extract", lambda x: tf.diag(x, -1), (Arg((4, 3)),), BOTH,
     prims=("diagonal", "copy"))
spec("diag_build", lambda v: tf.diag(v, 1), (Arg((3,)),), BOTH, prims=("take", "where"))

# gathers, scatters, advanced indexing
spec("take_repeated", lambda x: tf.take(x, [0, 2, 2, 1], axis=1), (Arg((3, 4)),), BOTH,
     prims=("take",))
spec("take_flat_2d_index", lambda x: tf.take(x, [[0, 5], [5, 11]]), (Arg((3, 4)),), BOTH,
     prims=("take", "reshape"))
spec("take_along_axis", lambda x: tf.take_along_axis(x, _i64([[0, 0, 3], [1, 1, 1],
                                                             [2, 3, 3]]), axis=1),
     (Arg((3, 4)),), BOTH, prims=("take_along_axis",))
spec("take_along_axis_broadcast",
     lambda x: tf.take_along_axis(x, _i64([[2, 0, 2]]), axis=0), (Arg((3, 3)),), BOTH,
     prims=("take_along_axis", "broadcast_to"))
spec("scatter_add", lambda v: tf.scatter_add((4, 3), _i64([0, 2, 2]), v, 0),
     (Arg((3, 3)),), BOTH, prims=("scatter_add",))
spec("scatter_add_along_axis",
     lambda v: tf.scatter_add_along_axis((3, 4), _i64([[0, 0], [3, 1], [2, 2]]), v, 1),
     (Arg((3, 2)),), BOTH, prims=("scatter_add_along_axis",))
spec("mask_index", lambda x: x[_MASK23], (Arg((2, 3)),), BOTH,
     prims=("take", "reshape", "permute_dims"))
spec("advanced_index_rows", lambda x: x[[0, 2, 2]], (Arg((3, 4)),), BOTH, prims=("take",))
spec("advanced_index_pairs", lambda x: x[[0, 2, 2], [1, 1, 3]], (Arg((3, 4)),), BOTH,
     prims=("take", "reshape"))
spec("advanced_index_split", lambda x: x[[1, 0], :, [2, 2]], (Arg((2, 3, 4)),), BOTH,
     prims=("take", "reshape", "permute_dims"))

# joining and padding
spec("concatenate3", lambda a, b, c: tf.concatenate([a, b, c], axis=1),
     (Arg((2, 3)), Arg((2, 1)), Arg((2, 2))), BOTH, prims=("concatenate",))
spec("concatenate_flat", lambda a, b: tf.concatenate([a, b], axis=None),
     (Arg((2, 3)), Arg((4,))), BOTH, prims=("concatenate", "reshape"))
spec("concatenate_with_constant",
     lambda a: tf.concatenate([a, tf.ones((1, 3), dtype=a.dtype)], axis=0),
     (Arg((2, 3)),), BOTH, prims=("concatenate",))
spec("stack", lambda a, b: tf.stack([a, b], axis=1), (Arg((2, 3)), Arg((2, 3))), BOTH,
     prims=("concatenate", "reshape"))
for _mode, _w in (("constant", ((1, 2), (0, 3))), ("edge", ((2, 1), (1, 0))),
                  ("reflect", ((4, 3), (1, 2))), ("symmetric", ((3, 4), (2, 0))),
                  ("wrap", ((5, 2), (1, 3)))):
    spec("pad_" + _mode, lambda x, _m=_mode, _pw=_w: tf.pad(x, _pw, mode=_m),
         (Arg((3, 2)),), BOTH,
         prims=("concatenate", "basic_index") + (("broadcast_to", "copy")
                                                 if _mode == "edge" else ()))
spec("pad_constant_value", lambda x: tf.pad(x, 2, constant_values=1.5), (Arg((2, 2)),),
     BOTH, prims=("concatenate",))
spec("tril", lambda x: tf.tril(x, -1), (Arg((2, 3, 4)),), BOTH, prims=("where",))
spec("triu", lambda x: tf.triu(x, 1), (Arg((4, 3)),), BOTH, prims=("where",))
spec("where_fixed_cond", lambda x, y: tf.where(_COND34, x, y), (Arg((3, 4)), Arg((4,))),
     BOTH, prims=("where",))

# einsum (its own rules; tests/test_einsum.py checks many more expressions)
spec("einsum_chain", lambda a, b, c: tf.einsum("ij,jk,kl->il", a, b, c),
     (Arg((2, 3)), Arg((3, 2)), Arg((2, 3))), BOTH, prims=("einsum",))
spec("einsum_three_way_step",  # one step over three operands: the rule itself, not the stepwise form
     lambda a, b, c: tf.einsum("ij,jk,ki->", a, b, c, optimize=[(0, 1, 2)]),
     (Arg((2, 3)), Arg((3, 2)), Arg((2, 2))), BOTH, prims=("einsum",))
spec("einsum_trace_diag", lambda a, v: tf.einsum("iij,j->i", a, v),
     (Arg((3, 3, 2)), Arg((2,))), BOTH, prims=("einsum",))

# tenferro.dask.einsum (tests/test_dask_einsum.py checks more; only where dask is installed)
import importlib.util  # noqa: E402

if importlib.util.find_spec("dask") is not None:
    import tenferro.dask as _tdask

    spec("dask_einsum_sliced", lambda a, b, c: _tdask.einsum("ij,jk,kl->il", a, b, c,
                                                             slices="jk"),
         (Arg((2, 3)), Arg((3, 2)), Arg((2, 3))), BOTH, prims=("dask.einsum",))
    # the joint VJP: its derivatives in the operands and in the output cotangent w
    spec("dask_einsum_vjp", lambda a, b, c, w: tf.vjp(
        lambda *o: _tdask.einsum("ij,jk,kl->il", *o, slices="jk"), a, b, c)[1](w),
         (Arg((2, 3)), Arg((3, 2)), Arg((2, 3)), Arg((2, 3))), BOTH,
         prims=("dask.einsum_vjp",))
    # the joint JVP: its derivatives in the operands and in their tangents
    spec("dask_einsum_jvp", lambda a, b, c, ta, tc: tf.jvp(
        lambda x, z: _tdask.einsum("ij,jk,kl->il", x, b, z, slices="jk"), (a, c),
        (ta, tc))[1], (Arg((2, 3)), Arg((3, 2)), Arg((2, 3)), Arg((2, 3)), Arg((2, 3))),
         BOTH, prims=("dask.einsum_jvp",))

# matmul
spec("matmul_batched", lambda a, b: tf.matmul(a, b), (Arg((2, 3, 4)), Arg((2, 4, 5))),
     BOTH, prims=("matmul",))
spec("matmul_broadcast", lambda a, b: a @ b, (Arg((3, 4)), Arg((2, 4, 2))), BOTH,
     prims=("matmul", "broadcast_to"))
spec("matmul_broadcast_both", lambda a, b: a @ b, (Arg((2, 1, 3, 4)), Arg((3, 4, 2))),
     BOTH, prims=("matmul", "broadcast_to"))
spec("matmul_vec_mat", lambda v, m: v @ m, (Arg((3,)), Arg((2, 3, 4))), BOTH,
     prims=("matmul", "reshape", "broadcast_to"))
spec("matmul_mat_vec", lambda m, v: m @ v, (Arg((3, 4)), Arg((4,))), BOTH,
     prims=("matmul", "reshape"))
spec("matmul_vec_vec", lambda u, v: tf.matmul(u, v), (Arg((4,)), Arg((4,))), BOTH,
     prims=("matmul", "reshape"))
spec("dot", lambda a, b: tf.dot(a, b), (Arg((3, 4)), Arg((4, 2))), BOTH, prims=("matmul",))
spec("vdot", lambda a, b: tf.vdot(a, b), (Arg((2, 3)), Arg((6,))), BOTH,
     prims=("matmul", "conj", "reshape"))
spec("outer", lambda a, b: tf.outer(a, b), (Arg((3,)), Arg((2, 2))), BOTH,
     prims=("multiply", "reshape"))


# The adjoint primitives the VJPs of basic_index and diagonal introduce (not public ops).
def _basic_index_transpose(x):
    from tenferro._ops.shape import basic_index_transpose_p

    return basic_index_transpose_p.bind(x, key=(("s", 4, 0, -2), ("n",), ("i", 1)),
                                        shape=(5, 3))


def _diagonal_transpose(x):
    from tenferro._ops.shape import diagonal_transpose_p

    return diagonal_transpose_p.bind(x, offset=-1, axis1=2, axis2=0, shape=(4, 2, 3))


spec("basic_index_transpose", _basic_index_transpose, (Arg((2, 1)),), BOTH,
     prims=("basic_index_transpose",))
spec("diagonal_transpose", _diagonal_transpose, (Arg((2, 2)),), BOTH,
     prims=("diagonal_transpose",))


# linalg (tests/test_linalg.py checks each op in more cases)
import tenferro.linalg as _tl  # noqa: E402


def _spd(x):
    return x @ tf.conj(tf.matrix_transpose(x)) + 3.0 * tf.eye(x.shape[-1], dtype=x.dtype)


spec("linalg.cholesky", lambda x: _tl.cholesky(_spd(x), lower=True), (Arg((3, 3)),), BOTH,
     prims=("linalg.cholesky",))
spec("linalg.solve_triangular", lambda a, b: _tl.solve_triangular(
    a + 4.0 * tf.eye(3, dtype=a.dtype), b, trans=2, lower=True), (Arg((3, 3)), Arg((3, 2))),
    BOTH, prims=("linalg.triangular_solve",))


# linalg LU family (tests/test_linalg_lu.py checks each op in more cases)
import tenferro.linalg._lu as _tlu  # noqa: E402


def _wc(a):
    return a + 4.0 * tf.eye(a.shape[-1], dtype=a.dtype)


spec("linalg.solve", lambda a, b: _tlu.solve(_wc(a), b), (Arg((3, 3)), Arg((3, 2))), BOTH,
     prims=("linalg.solve",))
spec("linalg.lu_factor", lambda a: _tlu.lu_factor(_wc(a))[0], (Arg((3, 3)),), BOTH,
     prims=("linalg.lu_factor",))
spec("linalg.lu_solve", lambda a, b: _tlu.lu_solve(_tlu.lu_factor(_wc(a)), b, trans=2),
     (Arg((3, 3)), Arg((3, 2))), BOTH, prims=("linalg.lu_solve",))
spec("linalg.det", lambda a: _tlu.det(a), (Arg((3, 3)),), BOTH, prims=("linalg.det",))
spec("linalg.lu_factor (tall), lu (wide)", lambda a: (_tlu.lu_factor(a)[0], *_tlu.lu(
    tf.matrix_transpose(a))[1:]), (Arg((4, 3)),), BOTH, prims=("linalg.lu_factor",))


# linalg QR (tests/test_linalg_qr.py checks each mode and shape class)
import tenferro.linalg._qr as _tqr  # noqa: E402

spec("linalg.qr", lambda a: _tqr.qr(a, mode="economic"), (Arg((4, 3)),), BOTH,
     prims=("linalg.qr",))
spec("linalg.qr (wide)", lambda a: _tqr.qr(a, mode="economic"), (Arg((2, 3)),), BOTH,
     prims=("linalg.qr",))
spec("linalg.qr_r", lambda a: _tqr.qr(a, mode="r")[0], (Arg((4, 3)),), BOTH,
     prims=("linalg.qr_r",))


def _herm(x):
    return x + tf.conj(tf.matrix_transpose(x))


spec("linalg.eigh", lambda x: (lambda w, v: (w, (v * tf.expand_dims(tf.sin(w), -2))
                                             @ tf.conj(tf.matrix_transpose(v))))(
    *_tl.eigh(_herm(x))), (Arg((3, 3)),), BOTH, prims=("linalg.eigh",))
spec("linalg.eigvalsh", lambda x: _tl.eigvalsh(_herm(x)), (Arg((3, 3)),), BOTH,
     prims=("linalg.eigvalsh",))
spec("linalg.svd", lambda x: (lambda u, s, vh: (s, (u * tf.expand_dims(tf.sin(s), -2)) @ vh))(
    *_tl.svd(x, full_matrices=False)), (Arg((4, 3)),), BOTH, prims=("linalg.svd",))
spec("linalg.svdvals", lambda x: _tl.svdvals(x), (Arg((3, 4)),), BOTH,
     prims=("linalg.svdvals",))


# linalg least squares (tests/test_linalg_lstsq.py checks each op in more cases)
import tenferro.linalg._lstsq as _tls  # noqa: E402

spec("linalg.lstsq", lambda a, b: (lambda x, res, rank, s: (x, s))(*_tls.lstsq(a, b)),
     (Arg((4, 3)), Arg((4, 2))), BOTH, prims=("linalg.lstsq",))
spec("linalg.pinv", lambda a: _tls.pinv(a), (Arg((3, 4)),), BOTH, prims=("linalg.pinv",))


# linalg eig (tests/test_linalg_eig.py checks each op in more cases)
import tenferro.linalg._eig as _teig  # noqa: E402

spec("linalg.eig", lambda x: (lambda w, vl, vr: (w, tf.abs(vl) ** 2, tf.abs(vr) ** 2))(
    *_teig.eig(x, left=True)), (Arg((3, 3)),), BOTH, prims=("linalg.eig",))
spec("linalg.eigvals", lambda x: _teig.eigvals(x), (Arg((3, 3)),), BOTH,
     prims=("linalg.eigvals",))
spec("linalg.eig_gen", lambda a, b: (lambda w, vl, vr: (w, tf.abs(vl) ** 2, tf.abs(vr) ** 2))(
    *_teig.eig(a, _wc(b), left=True)), (Arg((3, 3)), Arg((3, 3))), BOTH,
    prims=("linalg.eig_gen",))
spec("linalg.eigvals_gen", lambda a, b: _teig.eigvals(a, _wc(b)), (Arg((3, 3)), Arg((3, 3))),
     BOTH, prims=("linalg.eigvals_gen",))


# linalg expm / norm (tests/test_linalg_expm.py and test_linalg_norm.py check more cases)
import tenferro.linalg._expm as _tle  # noqa: E402
import tenferro.linalg._norm as _tln  # noqa: E402

spec("linalg.expm", lambda a: _tle.expm(a), (Arg((3, 3)),), BOTH, prims=("linalg.expm",))
spec("linalg.expm_frechet", lambda a, e: _tle.expm_frechet(a, e), (Arg((3, 3)), Arg((3, 3))),
     BOTH, prims=("linalg.expm_frechet",))
spec("linalg.vector_norm", lambda x: (_tln.norm(x, axis=1), _tln.norm(x, 3, axis=0),
                                      _tln.norm(x, "fro")), (Arg((3, 4), away=0.1),), BOTH,
     prims=("linalg.vector_norm",))


# traced graphs: the checkpoint call primitive, bound here on a traced segment directly
# (tests/test_traced_checkpoint.py checks tenferro.checkpoint inside traces)
from tenferro.autograd._checkpoint import checkpoint_p as _checkpoint_p  # noqa: E402

_SEGMENTS = {}


def _checkpointed(x, w):
    key = (x.shape, x.dtype)   # one segment graph per signature
    if key not in _SEGMENTS:
        spec_ = tf.TensorSpec(x.shape, x.dtype)
        _SEGMENTS[key] = tf.make_graph(lambda x, w: (tf.sin(x * w), tf.exp(x) * w), spec_, spec_)
    return _checkpoint_p.bind(x, w, graph=_SEGMENTS[key])


spec("checkpoint", _checkpointed, (Arg((3,)), Arg((3,))), BOTH, prims=("checkpoint",))


# the fused_elementwise primitive, bound on a compiled program's fused sub-graph directly
# (tests/test_traced_fusion.py checks fusion itself)
_FUSED = {}


def _fused(x, w):
    key = (x.shape, x.dtype)
    if key not in _FUSED:
        spec_ = tf.TensorSpec(x.shape, x.dtype)
        prog = tf.compile(tf.make_graph(lambda x, w: (tf.sin(x * w) + x, tf.exp(x * w) * w),
                                   spec_, spec_))
        node, = prog.graph.nodes
        _FUSED[key] = node.params["graph"]
    return _fused_p.bind(x, w, graph=_FUSED[key])


from tenferro._fused import fused_p as _fused_p  # noqa: E402

spec("fused_elementwise", _fused, (Arg((3,)), Arg((3,))), BOTH, prims=("fused_elementwise",))

# tenferro.special (tests/test_special.py checks values and edges)
import special_specs  # noqa: E402,F401  (appends its specs to SPECS)

# tenferro.fft (tests/test_fft_ad.py checks every function in more cases)
import fft_specs  # noqa: E402,F401  (appends its specs to SPECS)

# tenferro.nn (tests/test_nn_act.py checks values, kinks and edges against PyTorch)
import nn_act_specs  # noqa: E402,F401  (appends its specs to SPECS)
# tenferro.nn's convolutions and poolings (tests/test_nn_conv.py checks many more cases)
import nn_conv_specs  # noqa: E402,F401  (appends its specs to SPECS)
