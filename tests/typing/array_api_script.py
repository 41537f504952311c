"""A typed user script over the Array API namespace (beside user_script.py and the
others): code written against the standard, reaching the namespace the standard's way
(``x.__array_namespace__()``, as array-api-compat and scikit-learn do) and by importing
``tenferro.array_api``, with its ``linalg`` and ``fft`` extensions and the inspection
API.  ``mypy --strict`` must accept it (tests/test_packaging.py) and it must run, its
asserts holding."""
import math
from types import ModuleType

import tenferro as tf
import tenferro.array_api as xp


def standardize(x: tf.Tensor) -> tf.Tensor:
    """Library code as the standard writes it: the namespace comes from the array."""
    ns: ModuleType = x.__array_namespace__(api_version="2024.12")
    centred: tf.Tensor = x - ns.mean(x, axis=0, keepdims=True)
    scale: tf.Tensor = ns.std(x, axis=0, correction=1, keepdims=True)
    return centred / scale


def elementwise(x: tf.Tensor) -> None:
    assert float(xp.max(xp.abs(xp.acos(xp.cos(x)) - x))) < 1e-12
    assert float(xp.sum(xp.asinh(xp.sinh(x)) - x)) < 1e-12
    c = xp.clip(x, min=0.25, max=0.5)
    assert float(xp.min(c)) == 0.25 and c.dtype == x.dtype
    assert bool(xp.all(xp.signbit(-x))) and not bool(xp.any(xp.isnan(xp.expm1(x))))
    q = xp.floor_divide(x, 0.25)
    assert q.shape == (4,) and xp.nextafter(x, 2.0).shape == (4,)
    assert bool(xp.all(xp.greater(xp.nextafter(x, 2.0), x)))
    assert xp.atan2(x, 1.0).shape == (4,) and xp.pow(x, 2).dtype == xp.float64


def data_types() -> None:
    assert xp.isdtype(xp.float32, "real floating")
    assert xp.isdtype(xp.int64, ("integral", xp.bool)) and not xp.isdtype(xp.int32, "bool")
    assert xp.can_cast(xp.int32, xp.float64) and xp.result_type(xp.int32, 1.0) == xp.float64
    f = xp.finfo(xp.float64)
    assert f.bits == 64 and f.eps == 2.0 ** -52
    i = xp.iinfo(xp.int32)
    assert i.max == 2 ** 31 - 1 and i.dtype == xp.int32
    assert xp.astype(xp.ones(3), xp.int64, copy=False).dtype == xp.int64


def manipulation(x: tf.Tensor) -> None:
    m = xp.reshape(x, (2, 2))
    assert xp.concat([m, m], axis=None).shape == (8,) and xp.concat((m, m)).shape == (4, 2)
    rows: tuple[tf.Tensor, ...] = xp.unstack(m, axis=1)
    assert len(rows) == 2 and xp.vecdot(m, m).shape == (2,)
    grids: list[tf.Tensor] = xp.meshgrid(x, x[:2], indexing="ij")
    assert grids[0].shape == (4, 2)
    assert xp.cumulative_sum(x, include_initial=True).shape == (5,)
    assert float(xp.cumulative_prod(m, axis=1)[0, 1]) == float(x[0] * x[1])
    s = xp.sort(x, descending=True)
    assert float(s[0]) == float(xp.max(x)) and xp.argsort(x, stable=True).dtype == xp.int64
    assert xp.take_along_axis(m, xp.argsort(m, axis=1), axis=1).shape == (2, 2)
    assert xp.diff(x, n=2, prepend=x[:1]).shape == (3,)
    assert abs(float(xp.var(x, correction=0)) - float(xp.std(x)) ** 2) < 1e-15
    assert xp.e == math.e and xp.newaxis is None and math.isinf(xp.inf)


def extensions(x: tf.Tensor) -> None:
    a = xp.reshape(x, (2, 2)) + 2.0 * xp.eye(2)
    spd = a @ xp.matrix_transpose(a)
    w, v = xp.linalg.eigh(spd)
    assert w.shape == (2,) and v.shape == (2, 2)
    q: tf.Tensor = xp.linalg.qr(a, mode="complete").Q
    u, sv, vh = xp.linalg.svd(a, full_matrices=False)
    assert q.shape == u.shape == vh.shape == (2, 2) and sv.shape == (2,)
    sign, logabsdet = xp.linalg.slogdet(spd)
    assert float(sign) == 1.0 and logabsdet.ndim == 0
    assert int(xp.linalg.matrix_rank(a, rtol=1e-10)) == 2
    assert xp.linalg.cholesky(spd, upper=True).shape == (2, 2)
    assert xp.linalg.pinv(a).shape == xp.linalg.inv(a).shape == (2, 2)
    assert float(xp.linalg.vector_norm(x, ord=1)) == float(xp.sum(xp.abs(x)))
    assert xp.linalg.matrix_norm(a, ord="fro", keepdims=True).shape == (1, 1)
    assert xp.linalg.trace(a, offset=0).ndim == 0 and xp.linalg.diagonal(a).shape == (2,)
    assert xp.linalg.solve(spd, a).shape == (2, 2) and xp.linalg.det(spd).ndim == 0
    f = xp.fft.fft(x, n=8, norm="ortho")
    assert float(xp.max(xp.abs(xp.fft.ifft(f, norm="ortho")[:4] - x))) < 1e-12
    assert xp.fft.rfftn(a, axes=(0, 1)).shape == (2, 2)
    assert xp.fft.fftshift(xp.fft.fftfreq(4, d=0.5, dtype=xp.float32)).dtype == xp.float32
    assert xp.fft.rfftfreq(8, device="cpu").shape == (5,)


def inspection() -> None:
    info = xp.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is True
    assert info.default_device() in info.devices()
    assert info.default_dtypes(device="cpu")["real floating"] == xp.float64
    assert set(info.dtypes(kind="integral")) == {"int32", "int64"}
    assert xp.__array_api_version__ == "2024.12"


x = xp.asarray([0.1, 0.2, 0.3, 0.4])
z = standardize(xp.reshape(xp.linspace(0.0, 1.0, 6), (3, 2)))
assert z.shape == (3, 2) and float(xp.max(xp.abs(xp.mean(z, axis=0)))) < 1e-12
assert x.to_device("cpu").device == x.device
elementwise(x)
data_types()
manipulation(x)
extensions(x)
inspection()
print("ok")
