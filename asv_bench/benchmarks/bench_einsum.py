"""Einsum: tenferro beside numpy.einsum(optimize=True), opt_einsum.contract, torch.einsum
and, for the GEMM-shaped cases, a direct ``scipy.linalg.blas.dgemm`` call (float64,
2 threads each).

The workloads are built by :func:`make` (also used by ``asv_bench/compare_einsum.py``).
``dgemm`` is called on Fortran-ordered views (``dgemm(1, B.T, A.T).T``) so that SciPy
copies nothing: it is the cost of the BLAS call alone, the floor for a GEMM-shaped
einsum.
"""
from .common import FactoryBench, convert, get_array, sync, torch_or_none

EINSUM_LIBS = ["tenferro", "numpy", "opt_einsum", "torch", "dgemm"]

D_MPS, P_MPS = 200, 8
# name -> (subscripts, operand shapes)
CASES = {
    "ij,jk->ik 1000^3": ("ij,jk->ik", [(1000, 1000), (1000, 1000)]),
    "bij,bjk->bik b=64 128^3": ("bij,bjk->bik", [(64, 128, 128), (64, 128, 128)]),
    "abc,cde,efa->bdf 40": ("abc,cde,efa->bdf", [(40, 40, 40)] * 3),
    "ijkl,klmn->ijmn 30": ("ijkl,klmn->ijmn", [(30,) * 4] * 2),
    "ii-> 4000": ("ii->", [(4000, 4000)]),
    "i,j->ij 4000": ("i,j->ij", [(4000,), (4000,)]),
    # overlap of two 3-site MPS (bond 200, physical 8): a 6-operand chain
    "MPS overlap 6 operands D=200": (
        "pa,aqb,br,pc,cqd,dr->",
        [(P_MPS, D_MPS), (D_MPS, P_MPS, D_MPS), (D_MPS, P_MPS)] * 2),
    "ij,jk->ik 3x3 (per call)": ("ij,jk->ik", [(3, 3), (3, 3)]),
    # batched dot and matrix-vector products (direct loops, no call per item)
    "ij,ij->i 10^6x4": ("ij,ij->i", [(10**6, 4), (10**6, 4)]),
    "bij,bj->bi 10000x8x8": ("bij,bj->bi", [(10000, 8, 8), (10000, 8)]),
}


def _dgemm_call(case, ops):
    """A direct dgemm computing the same contraction, or None when it is not a GEMM."""
    from scipy.linalg.blas import dgemm

    if case.startswith("ij,jk->ik"):
        a, b = ops
        return lambda: dgemm(1.0, b.T, a.T).T
    if case.startswith("ijkl,klmn"):
        n = ops[0].shape[0] ** 2
        a, b = ops[0].reshape(n, n), ops[1].reshape(n, n)
        return lambda: dgemm(1.0, b.T, a.T).T.reshape(ops[0].shape)
    if case.startswith("bij,bjk"):
        a, b = ops
        return lambda: [dgemm(1.0, b[i].T, a[i].T).T for i in range(a.shape[0])]
    return None


# differentiated: forward + backward of a scalar einsum with respect to every operand
GRAD_CASES = {
    "MPS overlap 6 operands D=200: fwd + backward": "MPS overlap 6 operands D=200",
}


def make(lib, case):
    """A zero-argument callable running ``case`` with ``lib`` (NotImplementedError when
    ``lib`` is not installed or has no such case)."""
    if case in GRAD_CASES:
        return _make_grad(lib, GRAD_CASES[case])
    spec, shapes = CASES[case]
    arrays = [get_array(s, "float64", "normal", seed=11 + k) for k, s in enumerate(shapes)]
    if lib == "dgemm":
        fn = _dgemm_call(case, arrays)
        if fn is None:
            raise NotImplementedError("not a GEMM-shaped case")
        return fn
    if lib == "numpy":
        import numpy as np

        return lambda: np.einsum(spec, *arrays, optimize=True)
    if lib == "opt_einsum":
        import opt_einsum as oe

        return lambda: oe.contract(spec, *arrays)
    if lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        ts = [convert(a, "torch") for a in arrays]
        return lambda: torch.einsum(spec, *ts)
    import tenferro as tf

    ts = [convert(a, "tenferro") for a in arrays]
    return lambda: tf.einsum(spec, *ts)


def _make_grad(lib, case):
    spec, shapes = CASES[case]
    arrays = [get_array(s, "float64", "normal", seed=11 + k) for k, s in enumerate(shapes)]
    n = len(arrays) // 2  # the network is <psi|psi>: the first half is each operand once
    if lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        ts = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays[:n]]

        def run():
            for t in ts:
                t.grad = None
            torch.einsum(spec, *ts, *ts).backward()
        return run
    if lib != "tenferro":
        raise NotImplementedError("%s has no reverse mode" % lib)
    import tenferro as tf

    ts = [tf.tensor(a, requires_grad=True) for a in arrays[:n]]

    def run():
        for t in ts:
            t.grad = None
        tf.einsum(spec, *ts, *ts).backward()
    return run


class Einsum(FactoryBench):
    params = [EINSUM_LIBS, list(CASES) + list(GRAD_CASES)]
    make = staticmethod(make)

    def time_einsum(self, lib, case):
        sync(self.fn(), self.lib)
