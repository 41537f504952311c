"""tenferro.array_api: the Array API namespace, where it differs from top-level tenferro,
its inspection API, array-api-compat, and scikit-learn's array_api_dispatch on tensors
(checked against the same estimators on NumPy inputs).  The standard's own suite runs
through tests/array_api/run_conformance.py (docs/array_api.md)."""
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import tenferro as tf
import tenferro.array_api as xp
from tenferro import autograd


def _np(t):
    return np.asarray(t.numpy() if isinstance(t, tf.Tensor) else t)


def test_namespace_of_a_tensor():
    t = tf.ones((2, 3))
    assert t.__array_namespace__() is xp
    assert t.__array_namespace__(api_version="2024.12") is xp
    with pytest.raises(ValueError, match="api_version"):
        t.__array_namespace__(api_version="2099.01")
    assert xp.__array_api_version__ == "2024.12"
    array_api_compat = pytest.importorskip("array_api_compat")
    assert array_api_compat.array_namespace(t) is xp
    assert array_api_compat.array_namespace(t, tf.zeros(2)) is xp


def test_tensor_attributes():
    t = tf.asarray(np.arange(6.0).reshape(2, 3))
    assert t.to_device("cpu") is t
    np.testing.assert_array_equal(_np(t.mT), np.arange(6.0).reshape(2, 3).T)
    cap = t.__dlpack__(max_version=(1, 0))
    assert np.from_dlpack(t).shape == (2, 3) and cap is not None
    with pytest.raises(ValueError, match="stream"):
        t.to_device("cpu", stream=1)


def test_inspection():
    info = xp.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] and info.capabilities()["data-dependent shapes"]
    assert str(info.default_device()) == "cpu"
    assert "cpu" in [str(d) for d in info.devices()]
    assert info.default_dtypes()["real floating"] == xp.float64
    assert info.default_dtypes(device="cpu")["indexing"] == xp.int64
    assert set(info.dtypes()) == {"bool", "int32", "int64", "float32", "float64",
                                  "complex64", "complex128"}
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert set(info.dtypes(kind=("bool", "signed integer"))) == {"bool", "int32", "int64"}
    assert info.dtypes(kind="unsigned integer") == {}
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="quaternion")


def test_dtype_functions():
    assert xp.isdtype(xp.int32, "integral") and not xp.isdtype(xp.int32, "real floating")
    assert xp.isdtype(xp.complex64, ("bool", "complex floating"))
    assert xp.isdtype(xp.float32, xp.float32)
    f = xp.finfo(tf.ones(2, dtype=tf.float32))
    assert isinstance(f.eps, float) and f.eps == float(np.finfo(np.float32).eps)
    assert f.dtype == xp.float32 and xp.iinfo(xp.int32).max == 2**31 - 1
    assert xp.can_cast(xp.int32, xp.int64) and not xp.can_cast(xp.float64, xp.int64)
    a = tf.ones(3, dtype=tf.int32)
    assert xp.astype(a, xp.int32, copy=False) is a
    assert xp.astype(a, xp.int32) is not a
    assert xp.result_type(a, 1.0) == np.result_type(np.int32, 1.0)


@pytest.mark.parametrize("correction", [0, 1, 1.5])
def test_std_var_correction(correction):
    x = np.random.default_rng(0).standard_normal((4, 5))
    np.testing.assert_allclose(_np(xp.var(tf.asarray(x), axis=1, correction=correction)),
                               np.var(x, axis=1, ddof=correction))
    np.testing.assert_allclose(_np(xp.std(tf.asarray(x), axis=[0, 1], correction=correction)),
                               np.std(x, ddof=correction))
    autograd.gradcheck(lambda t: xp.std(t, axis=0, correction=correction),
                       (tf.asarray(x),), order=1)


@pytest.mark.parametrize("fn", [
    lambda t: xp.linalg.vector_norm(t, axis=(0, 2), ord=3),
    lambda t: xp.cumulative_sum(t, axis=1, include_initial=True),
    lambda t: xp.clip(t, -0.5, 0.5),
    lambda t: xp.vecdot(t, t * 2.0, axis=-1),
    lambda t: xp.linalg.pinv(t[0], rtol=1e-3),
    lambda t: xp.linalg.matrix_norm(t, ord="nuc"),
    lambda t: xp.expm1(xp.astype(t, xp.complex128) * 1j),
    lambda t: xp.tanh(xp.astype(t, xp.complex128) * (1 + 0.5j)),
], ids=["vector_norm", "cumulative_sum", "clip", "vecdot", "pinv", "matrix_norm", "expm1",
        "tanh"])
def test_namespace_functions_differentiate(fn):
    x = tf.asarray(np.random.default_rng(3).standard_normal((2, 3, 3)) * 0.7 + 0.1)
    autograd.gradcheck(fn, (x,), order=1)


def test_floor_divide_and_expm1_special_values():
    inf = math.inf
    x1 = tf.asarray([inf, -inf, 1.0, -1.0, 7.0])
    x2 = tf.asarray([2.0, 2.0, -inf, inf, 2.0])
    out = _np(xp.floor_divide(x1, x2))
    np.testing.assert_array_equal(out, [inf, -inf, -0.0, -0.0, 3.0])
    assert np.signbit(out[2]) and np.signbit(out[3])
    z = tf.asarray(np.array([complex(inf, 0), complex(-inf, inf), complex(-0.0, 0), 1j]))
    got = _np(xp.expm1(z))
    assert got[0] == complex(inf, 0) and got[1] == complex(-1, 0)
    assert got[2] == 0 and not np.signbit(got[2].real)
    np.testing.assert_allclose(got[3], np.expm1(1j))


def test_tanh_special_values():
    """+-inf + bj (b finite): the standard's +-1 + 0j with the zero signed as b (NumPy's
    sign is sin(2b)'s); everything else NumPy's tanh."""
    inf = math.inf
    vals = [complex(inf, 2.0), complex(inf, -2.0), complex(-inf, 2.0), complex(-inf, -3.0),
            complex(inf, 3.0), complex(inf, 0.0), 0.5 + 0.5j, complex(0.0, inf)]
    got = _np(xp.tanh(tf.asarray(np.array(vals))))
    want = np.tanh(np.array(vals))
    for i, v in enumerate(vals[:6]):
        assert got[i].real == math.copysign(1.0, v.real), (v, got[i])
        assert got[i].imag == 0 and np.signbit(got[i].imag) == np.signbit(v.imag), (v, got[i])
    np.testing.assert_array_equal(got[6:], want[6:])
    x = np.linspace(-3, 3, 7)
    np.testing.assert_array_equal(_np(xp.tanh(tf.asarray(x))), np.tanh(x))


def test_sort_argsort_descending_stable():
    x = np.array([[3, 1, 3, 2, 1], [0, 0, 5, 5, 1]])
    t = tf.asarray(x)
    np.testing.assert_array_equal(_np(xp.argsort(t)), np.argsort(x, kind="stable"))
    want = np.array([[0, 2, 3, 1, 4], [2, 3, 4, 0, 1]])  # equal elements keep their order
    np.testing.assert_array_equal(_np(xp.argsort(t, descending=True)), want)
    np.testing.assert_array_equal(_np(xp.sort(t, axis=0, descending=True)),
                                  -np.sort(-x, axis=0))


def test_unique_sorted_named_tuples():
    x = np.array([[3.0, 1.0], [np.nan, 1.0]])
    out = xp.unique_all(tf.asarray(x))
    assert type(out).__name__ == "UniqueAllResult"
    np.testing.assert_array_equal(_np(out.values), [1.0, 3.0, np.nan])
    np.testing.assert_array_equal(_np(out.counts), [2, 1, 1])
    assert out.inverse_indices.shape == x.shape
    np.testing.assert_array_equal(_np(out.values)[_np(out.inverse_indices)], x)
    np.testing.assert_array_equal(_np(xp.unique_values(tf.asarray([5, 3, 5, 1]))), [1, 3, 5])


def test_host_fallback_refuses_grad():
    x = tf.tensor([3.0, 1.0, 2.0], requires_grad=True)
    if getattr(tf, "nextafter", None) is None:
        with pytest.raises(TypeError, match="nextafter.*gradient"):
            xp.nextafter(x, tf.zeros(3))
    np.testing.assert_array_equal(_np(xp.nextafter(tf.asarray([1.0]), tf.asarray([2.0]))),
                                  np.nextafter([1.0], [2.0]))


@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative(include_initial):
    x = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    out = xp.cumulative_sum(tf.asarray(x), axis=1, include_initial=include_initial)
    want = np.cumulative_sum(x, axis=1, include_initial=include_initial)
    assert out.dtype == want.dtype
    np.testing.assert_array_equal(_np(out), want)
    np.testing.assert_array_equal(
        _np(xp.cumulative_prod(tf.asarray(x), axis=0, include_initial=include_initial)),
        np.cumulative_prod(x, axis=0, include_initial=include_initial))
    with pytest.raises(ValueError, match="axis"):
        xp.cumulative_sum(tf.asarray(x))


def test_manipulation_and_creation():
    a, b = np.arange(3.0), np.arange(4.0)
    for indexing in ("xy", "ij"):
        for got, want in zip(xp.meshgrid(tf.asarray(a), tf.asarray(b), indexing=indexing),
                             np.meshgrid(a, b, indexing=indexing)):
            np.testing.assert_array_equal(_np(got), want)
    x = np.arange(6.0).reshape(2, 3)
    parts = xp.unstack(tf.asarray(x), axis=1)
    assert len(parts) == 3 and all(np.array_equal(_np(p), x[:, i]) for i, p in enumerate(parts))
    np.testing.assert_array_equal(_np(xp.concat([tf.asarray(x), tf.asarray(x)], axis=None)),
                                  np.concatenate([x, x], axis=None))
    c = xp.clip(tf.asarray([1, 5, 9], dtype=tf.int32), 2, tf.asarray(6, dtype=tf.int64))
    assert c.dtype == xp.int32 and _np(c).tolist() == [2, 5, 6]
    v = xp.vecdot(tf.asarray(x, dtype=tf.complex64) * 1j, tf.asarray(x, dtype=tf.complex64))
    np.testing.assert_allclose(_np(v), np.vecdot(1j * x, x))
    assert xp.vecdot(tf.ones(3, dtype=tf.int32), tf.ones(3, dtype=tf.int32)).dtype == xp.int32
    assert _np(xp.signbit(tf.asarray([-0.0, 0.0, -1.0]))).tolist() == [True, False, True]


def test_linalg_extension():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 4))
    spd = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    np.testing.assert_allclose(_np(xp.linalg.cholesky(tf.asarray(spd))), np.linalg.cholesky(spd))
    np.testing.assert_allclose(_np(xp.linalg.cholesky(tf.asarray(spd), upper=True)),
                               np.linalg.cholesky(spd).transpose(0, 2, 1))
    m = rng.standard_normal((5, 3))
    q, r = xp.linalg.qr(tf.asarray(m))
    assert q.shape == (5, 3) and r.shape == (3, 3)
    assert xp.linalg.qr(tf.asarray(m), mode="complete").Q.shape == (5, 5)
    s = xp.linalg.svd(tf.asarray(m), full_matrices=False)
    np.testing.assert_allclose(_np(s.S), np.linalg.svd(m, compute_uv=False))
    sign, logdet = xp.linalg.slogdet(tf.asarray(spd))
    np.testing.assert_allclose(_np(logdet), np.linalg.slogdet(spd)[1])
    low = np.diag([1.0, 1e-20, 2.0])
    assert int(_np(xp.linalg.matrix_rank(tf.asarray(low)))) == 2
    np.testing.assert_allclose(_np(xp.linalg.pinv(tf.asarray(a), rtol=tf.asarray([0.1] * 3))),
                               np.linalg.pinv(a, rtol=0.1), atol=1e-12)
    for axis in (None, 1, (0, 2), (), (-1, 0, 1)):   # two axes: still one vector
        for ord in (2, 1, np.inf, 0, -1):
            np.testing.assert_allclose(
                _np(xp.linalg.vector_norm(tf.asarray(a), axis=axis, ord=ord, keepdims=True)),
                np.linalg.vector_norm(a, axis=axis, ord=ord, keepdims=True))
    np.testing.assert_allclose(_np(xp.linalg.matrix_norm(tf.asarray(a), ord="nuc")),
                               np.linalg.matrix_norm(a, ord="nuc"))
    np.testing.assert_allclose(_np(xp.linalg.trace(tf.asarray(a), offset=1)),
                               np.trace(a, offset=1, axis1=-2, axis2=-1))
    np.testing.assert_allclose(_np(xp.linalg.diagonal(tf.asarray(a))),
                               np.diagonal(a, axis1=-2, axis2=-1))


def test_asarray_copy_false_refuses_python_data():
    """Regression: copy=False built a list's tensor by copying (NumPy 2 raises)."""
    for asarray in (tf.asarray, xp.asarray):
        with pytest.raises(ValueError, match="Unable to avoid copy"):
            asarray([1.0, 2.0], copy=False)
    a = np.arange(3.0)
    t = xp.asarray(a, copy=False)
    a[0] = 7.0
    assert float(t[0]) == 7.0
    assert xp.asarray(t, copy=True) is not t and xp.asarray(t) is t


def test_linalg_on_an_empty_batch():
    """Regression: the ill-conditioning check took the min over an empty batch."""
    import tenferro.linalg as la

    x = tf.zeros((0, 2, 2))
    assert la.solve(x, tf.zeros((0, 2, 1))).shape == (0, 2, 1)
    assert la.inv(x).shape == (0, 2, 2)
    assert la.matrix_power(x, -1).shape == (0, 2, 2)
    assert xp.linalg.solve(tf.zeros((0, 1, 1)), tf.zeros((1, 0))).shape == (0, 1, 0)


def test_namespace_on_webgpu():
    """The wrappers stay on the input's device (Python scalars included); the NumPy
    detour copies to the host and back; info answers for the device."""
    drv = tf.devices.get_driver("webgpu")
    if drv.device_count() == 0:
        pytest.skip("no WebGPU device: %s" % drv.unavailable_reason())
    info = xp.__array_namespace_info__()
    assert "float64" not in info.dtypes(device="webgpu")
    assert info.default_dtypes(device="webgpu")["real floating"] == xp.float32
    x = xp.asarray([[1.0, -2.0], [np.inf, 4.0]], device="webgpu")
    assert x.dtype == xp.float32
    for out, want in [
            (xp.floor_divide(x, 2.0), [[0.0, -1.0], [np.inf, 2.0]]),
            (xp.std(x[0:1], axis=1, correction=1), [np.std([1.0, -2.0], ddof=1)]),
            (xp.clip(x, -1.0, 3.0), [[1.0, -1.0], [3.0, 3.0]]),
            (xp.cumulative_sum(x[0], include_initial=True), [0.0, 1.0, -1.0]),
            (xp.nextafter(x[0], xp.zeros(2, device="webgpu")),
             np.nextafter(np.float32([1.0, -2.0]), np.float32(0)))]:
        assert out.device == x.device
        np.testing.assert_allclose(out.to("cpu").numpy(), want, rtol=1e-6)


def test_conformance_runner():
    """tests/array_api/run_conformance.py on two fast files of the standard's suite
    (where a checkout of it is found: $ARRAY_API_TESTS_DIR)."""
    suite = pathlib.Path(os.environ.get("ARRAY_API_TESTS_DIR", "/work/array-api-tests"))
    if not (suite / "array_api_tests").is_dir():
        pytest.skip("no checkout of data-apis/array-api-tests at %s" % suite)
    runner = pathlib.Path(__file__).parent / "array_api" / "run_conformance.py"
    out = subprocess.run([sys.executable, str(runner), "--suite", str(suite),
                          "--max-examples", "5", "-k", "has_names or test_constants"],
                         capture_output=True, text=True, timeout=300).stdout
    total = [line for line in out.splitlines() if line.startswith("| **total**")]
    assert total, out
    passed, failed = (int(v) for v in total[0].split("|")[2:4])
    assert passed >= 200 and failed == 0, out


# ---------------------------------------------------------------- scikit-learn

@pytest.fixture
def sklearn_dispatch(monkeypatch):
    sklearn = pytest.importorskip("sklearn")
    pytest.importorskip("array_api_compat")
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")   # sklearn checks it on dispatch
    with sklearn.config_context(array_api_dispatch=True):
        yield


def _data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 6))
    y_class = (X[:, 0] - X[:, 1] + 0.3 * rng.standard_normal(80) > 0).astype(np.int64)
    y_class[:5] = 2
    return X, y_class, X @ rng.standard_normal(6) + 0.1 * rng.standard_normal(80)


def _estimators():
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge

    return {"PCA": (lambda: PCA(n_components=3, svd_solver="full"), "transform",
                    ("explained_variance_", "components_")),
            "LDA": (lambda: LinearDiscriminantAnalysis(solver="svd"), "predict",
                    ("coef_", "classes_", "explained_variance_ratio_")),
            "Ridge": (lambda: Ridge(solver="svd", alpha=0.5), "predict",
                      ("coef_", "intercept_"))}


@pytest.mark.parametrize("name", ["PCA", "LDA", "Ridge"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sklearn_array_api_dispatch(name, dtype, sklearn_dispatch):
    import sklearn

    X, y_class, y_reg = _data()
    X = X.astype(dtype)
    make, method, attrs = _estimators()[name]
    y = {"PCA": None, "LDA": y_class, "Ridge": y_reg.astype(dtype)}[name]
    fit_np = (X,) if y is None else (X, y)
    with sklearn.config_context(array_api_dispatch=False):
        ref = make().fit(*fit_np)
        want = getattr(ref, method)(X)
    est = make().fit(*(tf.asarray(a) for a in fit_np))
    got = getattr(est, method)(tf.asarray(X))
    assert isinstance(got, tf.Tensor)
    tol = 1e-4 if dtype == "float32" else 1e-10
    for attr in attrs:
        value = getattr(est, attr)
        assert isinstance(value, tf.Tensor), attr
        want_attr = getattr(ref, attr)
        np.testing.assert_allclose(_np(value), want_attr, rtol=tol, atol=tol, err_msg=attr)
    np.testing.assert_allclose(_np(got), want, rtol=tol, atol=tol)


def test_functions_module_lists_its_parts():
    """tenferro/array_api/_functions.py's literal __all__ (which type checkers read) is
    the union of its chapter modules' lists and the constants."""
    from tenferro.array_api import (_data_types, _elementwise, _functions, _manipulation,
                                    _statistics)
    parts = [n for m in (_data_types, _elementwise, _manipulation, _statistics)
             for n in m.__all__]
    assert sorted(_functions.__all__) == sorted(parts + ["e", "pi", "inf", "nan", "newaxis"])


def test_finfo_iinfo_refuse_the_other_kind_naming_themselves():
    xp = tf.array_api
    with pytest.raises(ValueError, match="array_api.finfo: expected a floating or complex"):
        xp.finfo(xp.int32)
    with pytest.raises(ValueError, match="array_api.iinfo: expected an integer dtype"):
        xp.iinfo(xp.ones(2, dtype=xp.float32))
    assert xp.finfo(xp.complex64).bits == 32 and xp.iinfo(xp.int64).bits == 64
