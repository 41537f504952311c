"""Batching rules (``tenferro.vmap``) of the linalg primitives, registered through the
public :func:`tenferro.autograd.extend.def_batch_rule` like a third party's.

Every linalg primitive takes a leading batch of matrices ``[..., m, n]`` natively, so
the vmapped batch is one more leading dimension: the inputs are given the batch
(unbatched ones broadcast, a view) and the primitive is bound once.  The exceptions:

* ``solve``, ``triangular_solve`` and ``lu_solve`` with a matrix (factors) shared by
  the whole batch (not batched, no batch dimensions): the right-hand sides become the
  columns of one right-hand side (one factorization and one solve for the batch);
  ``solve``'s vector ``b`` per example gains a column axis;
* ``vector_norm``: its reduced ``axes`` shift past the batch axis.
"""
from .. import _ops
from ..autograd.extend import bind, def_batch_rule
from ..batching import materialize, rules
from ._eig import eig_gen_p, eig_p, eigvals_gen_p, eigvals_p
from ._eigh import eigh_p, eigvalsh_p
from ._expm import expm_frechet_p, expm_p
from ._lstsq import lstsq_p, pinv_p
from ._lu import det_p, lu_factor_p, lu_permutation_p, lu_solve_p, solve_p
from ._norm import vector_norm_p
from ._qr import qr_p, qr_r_p
from ._svd import svd_p, svdvals_p
from ._triangular import cholesky_p, triangular_solve_p


def leading_batch(prim):
    """The rule of a primitive over leading batch dimensions: one bind on the batch."""
    def rule(args, batched, params, size):
        return bind(prim, tuple(materialize(x, b, size) for x, b in zip(args, batched)),
                    params)
    return def_batch_rule(prim, rule)


for _p in (cholesky_p, triangular_solve_p, eigh_p, eigvalsh_p, svd_p, svdvals_p, lu_factor_p,
           lu_solve_p, det_p, lu_permutation_p, eig_p, eigvals_p, eig_gen_p, eigvals_gen_p,
           qr_p, qr_r_p, lstsq_p, pinv_p, expm_p, expm_frechet_p):
    leading_batch(_p)


def _shared_matrix(prim, args, batched, params, size):
    """``prim(*matrices, b)`` for matrices shared by the batch (no batch dimensions of
    their own) and a batch of right-hand sides ``b`` [B, n, k] or [B, n]: one call, the
    right-hand sides as the columns of one [n, B*k]; None where that does not apply."""
    *mats, b = args
    if any(batched[:-1]) or mats[0].ndim != 2 or not batched[-1] or b.ndim not in (2, 3):
        return None
    vec = b.ndim == 2
    b3 = _ops.reshape(b, b.shape + (1,)) if vec else b
    n, k = b3.shape[1], b3.shape[2]
    out = bind(prim, tuple(mats) + (_ops.reshape(_ops.moveaxis(b3, 0, 1), (n, size * k)),),
               params)
    x = out[0] if prim.multiple_results else out
    x = _ops.moveaxis(_ops.reshape(x, (n, size, k)), 1, 0)
    x = _ops.reshape(x, b.shape) if vec else x
    if not prim.multiple_results:
        return x
    return (x,) + tuple(materialize(o, False, size) for o in out[1:])


def _solve(args, batched, params, size):
    shared = _shared_matrix(solve_p, args, batched, params, size)
    if shared is not None:   # one LU factorization for the whole batch
        return shared
    a, b = args
    vec = a.ndim - batched[0] == 2 and b.ndim - batched[1] == 1   # one matrix, one vector
    a, b = materialize(a, batched[0], size), materialize(b, batched[1], size)
    if vec:   # [B, n, n] and [B, n]: the vectors as one-column matrices
        x, lu, piv = bind(solve_p, (a, _ops.reshape(b, b.shape + (1,))), params)
        return _ops.reshape(x, b.shape), lu, piv
    return bind(solve_p, (a, b), params)


def _solve_with_factors(prim):
    """The rule of a solve with given factors (triangular, LU): shared factors take the
    batch as columns, else the leading-batch rule."""
    batched_rule = rules[prim]   # (leading_batch's)

    def rule(args, batched, params, size):
        shared = _shared_matrix(prim, args, batched, params, size)
        return batched_rule(args, batched, params, size) if shared is None else shared
    return def_batch_rule(prim, rule)


def _vector_norm(args, batched, params, size):
    return bind(vector_norm_p, args, dict(params, axes=tuple(i + 1 for i in params["axes"])))


def_batch_rule(solve_p, _solve)
_solve_with_factors(triangular_solve_p)
_solve_with_factors(lu_solve_p)
def_batch_rule(vector_norm_p, _vector_norm)
