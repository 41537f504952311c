"""Dense linear algebra: ``tenferro.linalg`` beside ``scipy.linalg``, ``numpy.linalg``
and ``torch.linalg`` (float64, 2 threads each).

The workloads are built by :func:`make` (also used by ``asv_bench/compare_linalg.py``).
Inputs come from seeded arrays: symmetric positive definite ``A = X X^T + n I``,
general well-conditioned ``A = X + n I``.  SciPy has no batched routines: its batched
cases loop over the matrices in Python (the cost a SciPy user pays).  The gradient
cases run forward + backward on the eager tape (tenferro, PyTorch); SciPy and NumPy
have no reverse mode and are skipped there.
"""
import numpy as np

from .common import (FactoryBench, backward_runner, convert, get_array, sync,
                     torch_or_none)

LINALG_LIBS = ["tenferro", "scipy", "numpy", "torch"]

# name -> (routine, input kind, shape of the matrix or batch of matrices)
CASES = {
    "cholesky 500": ("cholesky", "spd", (500, 500)),
    "solve 500": ("solve", "general", (500, 500)),
    "svd 300x200": ("svd", "normal", (300, 200)),
    "eigh 300": ("eigh", "spd", (300, 300)),
    "solve 2x2 (per call)": ("solve", "general", (2, 2)),
    "eigh batched 64x4x4": ("eigh", "spd", (64, 4, 4)),
    "cholesky batched 1000x8x8": ("cholesky", "spd", (1000, 8, 8)),
}

# differentiated: forward + backward of a scalar loss
GRAD_CASES = {
    "logdet via cholesky 200: fwd+bwd": ("logdet_chol", "spd", (200, 200)),
    "SVD loss 300x200: fwd+bwd": ("svd_loss", "normal", (300, 200)),
}


def matrix(kind, shape, seed=31):
    """The seeded float64 input of a case (read-only NumPy array)."""
    x = get_array(shape, "float64", "normal", seed=seed)
    n = shape[-1]
    if kind == "normal":
        return x
    if kind == "spd":
        a = x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
        a = 0.5 * (a + np.swapaxes(a, -1, -2))  # exactly symmetric
    elif kind == "general":
        a = x + n * np.eye(n)
    else:
        raise ValueError(kind)
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


def rhs(shape):
    """The right-hand side of a solve case: ``(n, 1)``, or ``(2,)`` for the 2x2 case."""
    n = shape[-1]
    return get_array((n,) if n == 2 else (n, 1), "float64", "normal", seed=37)


def make(lib, case):
    """A zero-argument callable running ``case`` with ``lib`` (NotImplementedError when
    ``lib`` is not installed or has no such case)."""
    if case in GRAD_CASES:
        return _make_grad(lib, *GRAD_CASES[case])
    op, kind, shape = CASES[case]
    a = matrix(kind, shape)
    batched = len(shape) == 3
    if lib == "scipy":
        import scipy.linalg as sl

        a = np.array(a)  # writable, so check_finite / copies behave as for a user array
        if batched and op in ("cholesky", "eigh"):   # one matrix a call
            fs = [_call(sl, op, m, None, lower=True) for m in a]
            return lambda: [f() for f in fs]
        return _call(sl, op, a, np.array(rhs(shape)) if op == "solve" else None, lower=True)
    elif lib == "numpy":
        a = np.array(a)
        return _call(np.linalg, op, a, np.array(rhs(shape)) if op == "solve" else None)
    elif lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        return _call(torch.linalg, op, convert(a, "torch"),
                     convert(rhs(shape), "torch") if op == "solve" else None)
    elif lib == "tenferro":
        import tenferro.linalg as tl

        return _call(tl, op, convert(a, "tenferro"),
                     convert(rhs(shape), "tenferro") if op == "solve" else None,
                     lower=True)   # NumPy's and PyTorch's Cholesky factors are lower
    raise ValueError(lib)


def _call(ns, op, a, b, **chol):
    """``ns``'s (scipy.linalg, numpy.linalg, torch.linalg, tenferro.linalg) forward ``op``
    on a (and b, for solve); ``chol``: the Cholesky keywords (the lower factor)."""
    if op == "cholesky":
        return lambda: ns.cholesky(a, **chol)
    if op == "solve":
        return lambda: ns.solve(a, b)
    if op == "svd":
        return lambda: ns.svd(a, full_matrices=False)
    if op == "eigh":
        return lambda: ns.eigh(a)
    raise ValueError(op)


def _make_grad(lib, op, kind, shape):
    a = matrix(kind, shape)
    if lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        t = torch.from_numpy(np.array(a)).requires_grad_()

        def loss():
            if op == "logdet_chol":
                return 2.0 * torch.log(torch.diagonal(torch.linalg.cholesky(t))).sum()
            u, s, vh = torch.linalg.svd(t, full_matrices=False)
            return s.sum() + ((u * s) @ vh).sum()
    elif lib == "tenferro":
        import tenferro as tf
        import tenferro.linalg as tl

        t = tf.tensor(np.array(a), requires_grad=True)

        def loss():
            if op == "logdet_chol":
                return 2.0 * tf.log(tf.diagonal(tl.cholesky(t, lower=True))).sum()
            u, s, vh = tl.svd(t, full_matrices=False)
            return s.sum() + ((u * s) @ vh).sum()
    else:
        raise NotImplementedError("%s has no reverse mode" % lib)
    return backward_runner(t, loss)


class Linalg(FactoryBench):
    params = [LINALG_LIBS, list(CASES) + list(GRAD_CASES)]
    make = staticmethod(make)

    def time_linalg(self, lib, case):
        sync(self.fn(), self.lib)
