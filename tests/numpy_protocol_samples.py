"""Sample calls for every NumPy function tenferro's ``__array_function__`` dispatches
(tenferro/_numpy_protocols/_functions.py), by qualified name: ``(args, kwargs)`` with
NumPy arrays, or ``(args, kwargs, post)`` where ``post`` maps a result (as NumPy arrays)
to what must agree (decompositions are unique only up to signs).  Used by
tests/test_numpy_protocols.py, which runs each with tensors and with ndarrays."""
import numpy as np

_rng = np.random.default_rng(19)
A = _rng.standard_normal((3, 4))
V = _rng.standard_normal(5)
B3 = _rng.standard_normal((2, 3, 4))
C = A + 1j * _rng.standard_normal((3, 4))
S = A[:, :3] @ A[:, :3].T + 3 * np.eye(3)          # symmetric positive definite
I = np.array([3, 1, 2, 3, 1, 0])
Z = np.array(0.7)                                    # 0-d
N = np.array([[1.0, np.nan, 3.0], [np.inf, -2.0, np.nan]])   # nan_to_num
N2 = np.array([[1.0, np.nan, 3.0, -1.0], [np.nan, -2.0, 0.5, 4.0]])   # nan* reductions


def _shape_dtype(r):
    return r.shape, r.dtype


def _svd_recon(r):
    u, s, vh = r
    k = s.shape[-1]
    return (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], s


def _eig_recon(r):
    w, v = r
    return w, (v * w[..., None, :]) @ np.swapaxes(v, -1, -2).conj()


def _qr_recon(r):
    q, rr = r
    return q @ rr, np.abs(rr)


_NAN_REDUCTIONS = "nanmax nanmin nansum nanprod nanmean nanstd nanvar nanmedian nanargmax " \
                  "nanargmin nancumsum nancumprod".split()

SAMPLES = {
    "numpy.all": [((A > 0,), {}), ((A > -5,), {"axis": 1, "keepdims": True})],
    "numpy.amax": [((A,), {"axis": 0})],
    "numpy.amin": [((A,), {"axis": -1, "keepdims": True})],
    "numpy.angle": [((C,), {}), ((C,), {"deg": True})],
    "numpy.any": [((A > 1,), {"axis": 0})],
    "numpy.argmax": [((A,), {}), ((A, 1), {}), ((A,), {"axis": 0, "keepdims": True})],
    "numpy.argmin": [((A, -1), {})],
    "numpy.argwhere": [((A > 0,), {})],
    "numpy.astype": [((A, np.float32), {})],
    "numpy.broadcast_arrays": [((V, V[:, None]), {})],
    "numpy.broadcast_to": [((V, (2, 5)), {})],
    "numpy.can_cast": [((A, np.float32), {}), ((A, np.complex128), {"casting": "safe"})],
    "numpy.concatenate": [   # (numpy.concat)
        (([A, A],), {}), (([A, A], 1), {}), (([A, V],), {"axis": None})],
    "numpy.copy": [((A,), {})],
    "numpy.count_nonzero": [((A > 0,), {}), ((A > 0,), {"axis": 1})],
    "numpy.cumprod": [((A, 1), {})],
    "numpy.cumsum": [((A,), {}), ((A,), {"axis": 0})],
    "numpy.diag": [((V,), {}), ((A,), {"k": 1})],
    "numpy.diagonal": [((A,), {"offset": 1}), ((B3, 0, 2, 1), {})],
    "numpy.dot": [((A, A.T), {}), ((V, V), {})],
    "numpy.einsum": [(("ij,kj->ik", A, A), {}), (("ii", S), {})],
    "numpy.empty_like": [((A,), {}, _shape_dtype), ((A,), {"dtype": np.int32}, _shape_dtype)],
    "numpy.expand_dims": [((A, 1), {})],
    "numpy.flatnonzero": [((A > 0,), {})],
    "numpy.flip": [((A,), {}), ((A, 1), {})],
    "numpy.full_like": [((A, 2.5), {})],
    "numpy.imag": [((C,), {})],
    "numpy.inner": [((A, A), {})],
    "numpy.kron": [((S, V[:2]), {})],
    "numpy.matrix_transpose": [((B3,), {})],
    "numpy.max": [((A,), {"axis": 1})],
    "numpy.mean": [((A,), {}), ((A, 0), {})],
    "numpy.min": [((A,), {})],
    "numpy.moveaxis": [((B3, 0, -1), {})],
    "numpy.nonzero": [((A > 0,), {})],
    "numpy.ones_like": [((A,), {"dtype": np.int32})],
    "numpy.outer": [((V, V[:3]), {})],
    "numpy.pad": [((A, 1), {}), ((A, ((1, 0), (0, 2))), {"mode": "reflect"})],
    "numpy.prod": [((A,), {"axis": 1})],
    "numpy.ravel": [((A,), {})],
    "numpy.real": [((C,), {})],
    "numpy.reshape": [((A, (4, 3)), {}), ((A, -1), {})],
    "numpy.result_type": [((A, np.float32), {})],
    "numpy.round": [((A, 2), {})],
    "numpy.squeeze": [((A[:, None],), {})],
    "numpy.stack": [(([A, A],), {"axis": 1})],
    "numpy.std": [((A,), {"axis": 0, "ddof": 1})],
    "numpy.sum": [((A,), {}), ((A, 1), {}), ((A,), {"axis": 0, "keepdims": True}),
                  ((I,), {"dtype": np.float64})],
    "numpy.swapaxes": [((B3, 0, 2), {})],
    "numpy.take": [((A, np.array([0, 2])), {"axis": 1}), ((A, 5), {})],
    "numpy.take_along_axis": [((A, np.argsort(A, axis=1)), {}),
                              ((A, np.argsort(A, axis=0)), {"axis": 0})],
    "numpy.tensordot": [((B3, A, 2), {}), ((A, A), {"axes": ([1], [1])})],
    "numpy.transpose": [((B3,), {}), ((B3, (1, 0, 2)), {})],   # (numpy.permute_dims)
    "numpy.tril": [((A,), {"k": -1})],
    "numpy.triu": [((A, 1), {})],
    "numpy.var": [((A,), {"axis": 1})],
    "numpy.vdot": [((V, V), {})],
    "numpy.zeros_like": [((A,), {})],
    "numpy.around": [((A, 1), {})],
    "numpy.trace": [((A,), {}), ((B3, 1, 1, 2), {})],
    "numpy.clip": [((A, -0.5, 0.5), {}), ((A,), {"min": 0}), ((A, None, 0.2), {})],
    "numpy.where": [((A > 0, A, 0.0), {}), ((A > 0,), {})],
    "numpy.shape": [((A,), {})],
    "numpy.ndim": [((B3,), {})],
    "numpy.size": [((A,), {}), ((A, 1), {})],
    "numpy.atleast_1d": [((Z,), {}), ((V, A, B3), {})],
    "numpy.atleast_2d": [((Z, V, A, B3), {})],
    "numpy.atleast_3d": [((Z, V, A, B3), {})],
    "numpy.sinc": [((A,), {})],
    "numpy.i0": [((A,), {})],
    "numpy.iscomplexobj": [((C,), {}), ((A,), {})],
    "numpy.isrealobj": [((C,), {}), ((A,), {})],
    # the everyday functions of issue 19 (run once tenferro has them)
    "numpy.append": [((V, V), {}), ((A, A, 0), {})],
    "numpy.argsort": [((A,), {}), ((A,), {"axis": 0, "stable": True})],
    "numpy.array_split": [((V, 3), {})],
    "numpy.average": [((A,), {}), ((A, 1, V[:4] ** 2), {}),
                      ((A,), {"axis": 0, "weights": V[:3] ** 2, "returned": True})],
    "numpy.bincount": [((np.array([0, 1, 1, 3]),), {}),
                       ((np.array([0, 1, 1]),), {"weights": np.array([0.5, 1.0, 2.0])})],
    "numpy.column_stack": [(((V, V),), {})],
    "numpy.corrcoef": [((A,), {})],
    "numpy.cov": [((A,), {})],
    "numpy.cross": [((A[:, :3], A[:, 1:]), {})],
    "numpy.delete": [((V, 1), {}), ((A, [0, 2], 1), {})],
    "numpy.diff": [((V,), {}), ((A,), {"axis": 0, "n": 2})],
    "numpy.digitize": [((V, np.array([-1.0, 0.0, 1.0])), {})],
    "numpy.dsplit": [((B3, 2), {})],
    "numpy.dstack": [(((A, A),), {})],
    "numpy.ediff1d": [((A,), {})],
    "numpy.fliplr": [((A,), {})],
    "numpy.flipud": [((A,), {})],
    "numpy.gradient": [((V,), {}), ((A,), {"axis": 1})],
    "numpy.histogram": [((V,), {"bins": 3})],
    "numpy.hsplit": [((A, 2), {})],
    "numpy.hstack": [(((A, A),), {})],
    "numpy.insert": [((V, 1, 9.0), {})],
    "numpy.interp": [((np.array([0.5, 1.5]), np.array([0.0, 1.0, 2.0]),
                       np.array([1.0, 3.0, 2.0])), {})],
    "numpy.median": [((A,), {}), ((A,), {"axis": 1})],
    "numpy.meshgrid": [((V[:2], V[:3]), {}), ((V[:2], V[:3]), {"indexing": "ij"})],
    "numpy.nan_to_num": [((N,), {})],
    "numpy.nanpercentile": [((N2, 30), {"axis": 1})],
    "numpy.nanquantile": [((N2, 0.3), {"axis": 1})],
    "numpy.percentile": [((A, 30), {})],
    "numpy.polyval": [((np.array([1.0, 2.0, 3.0]), V), {})],
    "numpy.quantile": [((A, 0.3), {"axis": 1})],
    "numpy.repeat": [((V, 2), {}), ((A, [1, 2, 0], 0), {})],
    "numpy.roll": [((V, 2), {}), ((A, 1), {"axis": 1})],
    "numpy.rot90": [((A,), {})],
    "numpy.searchsorted": [((np.sort(V), V), {})],
    "numpy.sort": [((A,), {}), ((A,), {"axis": 0})],
    "numpy.split": [((V[:4], 2), {})],
    "numpy.tile": [((V, 2), {})],
    "numpy.trapezoid": [((V,), {})],
    "numpy.unique": [((I,), {}), ((I,), {"return_counts": True})],
    "numpy.unique_all": [((I,), {})],
    "numpy.unique_counts": [((I,), {})],
    "numpy.unique_inverse": [((I,), {})],
    "numpy.unique_values": [((I,), {}, np.sort)],   # (NumPy's order is unspecified)
    "numpy.vsplit": [((A[:2], 2), {})],
    "numpy.vstack": [(((A, A),), {})],
    # numpy.linalg
    "numpy.linalg.det": [((S,), {})],
    "numpy.linalg.inv": [((S,), {})],
    "numpy.linalg.matrix_power": [((S, 3), {})],
    "numpy.linalg.norm": [((A,), {}), ((A, 1), {}), ((V,), {"ord": 3}),
                          ((B3,), {"axis": (1, 2), "keepdims": True})],
    "numpy.linalg.solve": [((S, V[:3]), {}), ((S, A), {})],
    "numpy.linalg.svdvals": [((A,), {})],
    "numpy.linalg.matmul": [((A, A.T), {})],
    "numpy.linalg.matrix_transpose": [((B3,), {})],
    "numpy.linalg.tensordot": [((A, A), {"axes": ([1], [1])})],
    "numpy.linalg.cross": [((A[:, :3], A[:, 1:]), {})],
    "numpy.linalg.cholesky": [((S,), {}), ((S,), {"upper": True})],
    "numpy.linalg.eigh": [((S,), {}, _eig_recon), ((S, "U"), {}, _eig_recon)],
    "numpy.linalg.eigvalsh": [((S,), {}), ((S,), {"UPLO": "U"})],
    "numpy.linalg.qr": [((A,), {}, _qr_recon), ((A.T,), {"mode": "complete"}, _qr_recon),
                        ((A,), {"mode": "r"}, np.abs)],
    "numpy.linalg.svd": [((A,), {}, _svd_recon), ((B3, False), {}, _svd_recon),
                         ((A,), {"compute_uv": False})],
    "numpy.linalg.slogdet": [((S,), {})],
    "numpy.linalg.pinv": [((A,), {}), ((A,), {"rtol": None}), ((A, 1e-3), {})],
    "numpy.linalg.lstsq": [((A.T, V[:4]), {}), ((A.T, A.T[:, :2]), {"rcond": None}),
                           ((A, V[:3]), {})],   # (underdetermined: no residuals)
    "numpy.linalg.cond": [((S,), {}), ((S, -2), {}), ((S, "fro"), {}), ((S, np.inf), {})],
    "numpy.linalg.multi_dot": [(([A, A.T, V[:3]],), {})],
    "numpy.linalg.matrix_norm": [((A,), {}), ((B3,), {"ord": 1, "keepdims": True})],
    "numpy.linalg.vector_norm": [((A,), {}), ((B3,), {"axis": (0, 2), "keepdims": True}),
                                 ((A,), {"axis": 1, "ord": 1})],
    "numpy.linalg.diagonal": [((B3,), {"offset": 1})],
    "numpy.linalg.trace": [((B3,), {})],
    "numpy.linalg.outer": [((V, V[:2]), {})],
    # whole-array comparisons (tenferro/_ops/comparison.py)
    "numpy.isclose": [((A, A + 1e-9), {}), ((N, N), {"equal_nan": True}),
                      ((C, C[0] * (1 + 1e-6)), {"rtol": 1e-7, "atol": 0.0}), ((Z, Z), {})],
    "numpy.allclose": [((A, A + 1e-9), {}), ((N, N), {}), ((N, N), {"equal_nan": True})],
    "numpy.array_equal": [((A, A.copy()), {}), ((A, A[:2]), {}),
                          ((N, N.copy()), {"equal_nan": True}), ((I, I * 1.0), {})],
    "numpy.array_equiv": [((V, np.tile(V, (2, 1))), {}), ((V, A), {}), ((A, A + 1), {})],
}
SAMPLES.update({
    "numpy.fft.fft": [((V,), {}), ((C,), {"n": 6, "axis": 0, "norm": "ortho"})],
    "numpy.fft.ifft": [((C,), {})],
    "numpy.fft.fft2": [((C,), {})],
    "numpy.fft.ifft2": [((B3,), {"axes": (0, 2)})],
    "numpy.fft.fftn": [((B3,), {})],
    "numpy.fft.ifftn": [((C,), {"s": (4, 4), "axes": (0, 1)})],
    "numpy.fft.rfft": [((A,), {})],
    "numpy.fft.irfft": [((C,), {}), ((C,), {"n": 7})],
    "numpy.fft.rfft2": [((B3,), {})],
    "numpy.fft.irfft2": [((C,), {})],
    "numpy.fft.rfftn": [((B3,), {"norm": "forward"})],
    "numpy.fft.irfftn": [((C,), {})],
    "numpy.fft.hfft": [((C,), {})],
    "numpy.fft.ihfft": [((A,), {})],
    "numpy.fft.fftshift": [((A,), {}), ((A,), {"axes": 1})],
    "numpy.fft.ifftshift": [((V,), {})],
})
for _n in _NAN_REDUCTIONS:
    SAMPLES["numpy." + _n] = [((N2,), {}), ((N2,), {"axis": 1})]
