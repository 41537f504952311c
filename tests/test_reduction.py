"""Reductions and scans against NumPy: dtypes, axes, keepdims, dtype=, ddof, empty
inputs, NaN handling, argmax ties, float32 accuracy, logsumexp, axis errors."""
import numpy as np
import pytest
import scipy.special

import tenferro as tf

from conftest import DTYPES, LAYOUTS, assert_close, layout_values, make_layout, random_array

AXES = [None, 0, 1, -1, -3, (0, 2), (2, 0), (0, 1, 2), ()]
SHAPE = (3, 4, 5)


def _tol(dtype):
    d = np.dtype(dtype)
    if d.kind not in "fc":
        return {}
    return {"rtol": 2e-5, "atol": 2e-5} if d.itemsize <= 8 and d != np.dtype("float64") \
        else {"rtol": 1e-12, "atol": 1e-12}


SUMLIKE = ["sum", "prod", "mean"]
EXTREME = ["max", "min"]
LOGICAL = ["any", "all"]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", SUMLIKE + EXTREME + LOGICAL)
def test_reduce_vs_numpy(name, dtype):
    a = random_array(SHAPE, dtype, "small" if name == "prod" else "any", seed=1)
    fn = getattr(tf, name)
    t = tf.asarray(a)
    for axis in AXES:
        for keepdims in (False, True):
            exp = getattr(np, name)(a, axis=axis, keepdims=keepdims)
            got = fn(t, axis=axis, keepdims=keepdims)
            assert_close(got, exp, **_tol(exp.dtype))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "any", "all"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_reduce_layouts(name, layout):
    a = random_array((6, 5), "float64", "small", seed=2)
    t = make_layout(a, layout)
    v = layout_values(a, layout)
    for axis in (None, 0, 1):
        assert_close(getattr(tf, name)(t, axis=axis), getattr(np, name)(v, axis=axis),
                     rtol=1e-13, atol=1e-14)


def test_tensor_methods():
    a = random_array((4, 3), "float64", seed=3)
    t = tf.asarray(a)
    for name in ("sum", "prod", "mean", "max", "min", "any", "all", "argmax", "argmin"):
        assert_close(getattr(t, name)(axis=1), getattr(a, name)(axis=1), rtol=1e-13)
    assert_close(t.var(axis=0, ddof=1), a.var(axis=0, ddof=1), rtol=1e-13)
    assert_close(t.std(), a.std(), rtol=1e-13)
    assert_close(t.cumsum(axis=0), a.cumsum(axis=0), rtol=1e-13)


def _dtype_cases():
    # complex -> real accumulation discards the imaginary part (NumPy warns), and an
    # integer or bool dtype for mean is meaningless: those pairs are not cases.
    for name in ("sum", "prod", "mean"):
        for dtype in ("bool", "int32", "int64", "float32", "complex64"):
            for out in ("bool", "int32", "int64", "float32", "float64", "complex128"):
                if np.dtype(dtype).kind == "c" and np.dtype(out).kind != "c":
                    continue
                if name == "mean" and np.dtype(out).kind in "biu":
                    continue
                yield name, dtype, out


@pytest.mark.parametrize("name,dtype,out", list(_dtype_cases()))
def test_dtype_argument(name, dtype, out):
    a = random_array((4, 5), dtype, "small", seed=4)
    exp = getattr(np, name)(a, axis=0, dtype=out)
    got = getattr(tf, name)(tf.asarray(a), axis=0, dtype=out)
    assert_close(got, exp, **_tol(out))
    if name != "mean":
        scan = {"sum": "cumsum", "prod": "cumprod"}[name]
        assert_close(getattr(tf, scan)(tf.asarray(a), axis=1, dtype=out),
                     getattr(np, scan)(a, axis=1, dtype=out), **_tol(out))


def test_int32_dtype_wraps_like_numpy():
    a = np.full(4, 2 ** 30, np.int32)
    for name in ("sum", "prod", "cumsum", "cumprod"):
        exp = getattr(np, name)(a, dtype=np.int32)
        assert_close(getattr(tf, name)(tf.asarray(a), dtype=tf.int32), exp)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex64",
                                   "complex128", "bool"])
@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_std(dtype, ddof):
    a = random_array(SHAPE, dtype, seed=5)
    t = tf.asarray(a)
    for axis in (None, 0, -1, (0, 2)):
        for keepdims in (False, True):
            for name in ("var", "std"):
                exp = getattr(np, name)(a, axis=axis, ddof=ddof, keepdims=keepdims)
                got = getattr(tf, name)(t, axis=axis, ddof=ddof, keepdims=keepdims)
                assert_close(got, exp, **_tol(exp.dtype))


def test_var_ddof_too_large_is_nan():
    a = np.arange(3.0)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        exp = np.var(a, ddof=3)
    assert_close(tf.var(tf.asarray(a), ddof=3), exp)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans(name, dtype):
    a = random_array(SHAPE, dtype, "small", seed=6)
    t = tf.asarray(a)
    for axis in (None, 0, 1, -1):
        exp = getattr(np, name)(a, axis=axis)
        assert_close(getattr(tf, name)(t, axis=axis), exp, **_tol(exp.dtype))
    if np.dtype(dtype).kind != "c":
        exp = getattr(np, name)(a, axis=1, dtype=np.float64)
        assert_close(getattr(tf, name)(t, axis=1, dtype=tf.float64), exp, rtol=1e-12,
                     atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions(name, dtype):
    a = random_array(SHAPE, dtype, "small", seed=7)  # small domain: many ties
    t = tf.asarray(a)
    for axis in (None, 0, 1, -1):
        for keepdims in (False, True):
            exp = getattr(np, name)(a, axis=axis, keepdims=keepdims)
            assert_close(getattr(tf, name)(t, axis=axis, keepdims=keepdims), exp)


def test_argmax_ties_first_and_nan():
    a = np.array([1.0, 3.0, 3.0, 0.0, 3.0])
    assert int(tf.argmax(tf.asarray(a))) == 1
    assert int(tf.argmin(tf.asarray(a))) == 3
    b = np.array([[1.0, np.nan, 5.0, np.nan], [2.0, 0.0, 7.0, 1.0]])
    for name in ("argmax", "argmin"):
        for axis in (None, 1, 0):
            assert_close(getattr(tf, name)(tf.asarray(b), axis=axis),
                         getattr(np, name)(b, axis=axis))
    f = np.array([-np.inf, -np.inf, -5.0], np.float32)
    assert int(tf.argmax(tf.asarray(f))) == np.argmax(f)
    assert int(tf.argmin(tf.asarray(f))) == 0


def test_nan_propagation():
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0], [np.inf, -np.inf, 0.0]])
    t = tf.asarray(a)
    with np.errstate(all="ignore"):
        for name in ("sum", "prod", "max", "min", "mean", "cumsum", "cumprod"):
            for axis in (None, 0, 1):
                assert_close(getattr(tf, name)(t, axis=axis), getattr(np, name)(a, axis=axis))
        for axis in (None, 0, 1):
            assert_close(tf.var(t, axis=axis), np.var(a, axis=axis))
    c = np.array([1 + 1j, complex(np.nan, 0), 2j], np.complex128)
    assert_close(tf.sum(tf.asarray(c)), np.sum(c))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_empty_inputs(dtype):
    a = np.zeros((0, 3), dtype)
    t = tf.asarray(a)
    for name in ("sum", "prod", "any", "all"):
        for axis in (None, 0, 1):
            assert_close(getattr(tf, name)(t, axis=axis), getattr(np, name)(a, axis=axis))
    assert_close(tf.cumsum(t, axis=0), np.cumsum(a, axis=0))
    assert float(tf.sum(tf.asarray(np.zeros(0)))) == 0.0
    # (complex max/min/argmax follow NumPy's lexicographic order)
    for name in ("max", "min"):
        assert_close(getattr(tf, name)(t, axis=1), getattr(np, name)(a, axis=1))
        with pytest.raises(ValueError, match=r"%s: zero-size reduction along axis 0 of "
                           r"shape \(0, 3\)" % name):
            getattr(tf, name)(t)
        with pytest.raises(ValueError, match="zero-size"):
            getattr(tf, name)(t, axis=0)
    for name in ("argmax", "argmin"):
        with pytest.raises(ValueError, match="%s: attempt to get %s of an empty sequence"
                           % (name, name)):
            getattr(tf, name)(t)
        with pytest.raises(ValueError, match="empty sequence"):
            getattr(tf, name)(t, axis=0)
        assert_close(getattr(tf, name)(t, axis=1), getattr(np, name)(a, axis=1))


def test_mean_of_empty_is_nan():
    a = np.zeros((0, 2))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        exp = np.mean(a, axis=0)
    assert_close(tf.mean(tf.asarray(a), axis=0), exp)


def test_float32_sum_accuracy():
    a = np.random.default_rng(8).uniform(0, 1, 1_000_000).astype(np.float32)
    ref = np.sum(a.astype(np.float64))
    err_tf = abs(float(tf.sum(tf.asarray(a))) - ref)
    err_np = abs(float(np.sum(a)) - ref)
    # pairwise summation: error ~ eps * log2(n) * sum; never worse than NumPy's
    assert err_tf <= max(err_np, 1e-7 * ref), (err_tf, err_np)
    m = float(tf.mean(tf.asarray(a)))
    assert abs(m - ref / a.size) <= max(abs(float(np.mean(a)) - ref / a.size), 1e-7)
    # a naive sequential float32 sum would be off by ~1e-3 relative here
    assert err_tf / ref < 1e-5


def test_int_sum_accumulates_in_int64():
    a = np.full(10, 2 ** 30, np.int32)
    assert_close(tf.sum(tf.asarray(a)), np.sum(a))
    assert tf.sum(tf.asarray(a)).dtype == tf.int64
    assert tf.sum(tf.asarray([True, True, False])).dtype == tf.int64
    assert int(tf.sum(tf.asarray([True, True, False]))) == 2


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_logsumexp(dtype):
    a = random_array((3, 4, 5), dtype, seed=9) * (100 if np.dtype(dtype).kind == "f" else 1)
    t = tf.asarray(a)
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-13, "atol": 1e-13}
    for axis in (None, 0, -1, (0, 2)):
        for keepdims in (False, True):
            exp = scipy.special.logsumexp(a, axis=axis, keepdims=keepdims)
            assert_close(tf.logsumexp(t, axis=axis, keepdims=keepdims), exp, check_dtype=False,
                         **tol)
    big = np.array([1000.0, 1000.0, -np.inf])
    assert_close(tf.logsumexp(tf.asarray(big)), scipy.special.logsumexp(big))
    allneg = np.array([-np.inf, -np.inf])
    assert_close(tf.logsumexp(tf.asarray(allneg)), scipy.special.logsumexp(allneg))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "any", "all", "mean", "var",
                                  "std", "argmax", "argmin", "cumsum", "cumprod"])
def test_bad_axis(name):
    t = tf.ones((2, 3))
    with pytest.raises(tf.AxisError, match=r"%s: axis 2 is out of bounds for a tensor of "
                       r"dimension 2" % name) as ei:
        getattr(tf, name)(t, axis=2)
    assert isinstance(ei.value, ValueError) and isinstance(ei.value, IndexError)
    with pytest.raises(tf.AxisError, match="axis -3 is out of bounds"):
        getattr(tf, name)(t, axis=-3)
    with pytest.raises(TypeError, match="axis must be an integer"):
        getattr(tf, name)(t, axis=1.0)


def test_repeated_axis():
    with pytest.raises(ValueError, match=r"^tenferro.sum: repeated axis in \(0, -2\)"):
        tf.sum(tf.ones((2, 3)), axis=(0, -2))


def test_count_nonzero():
    a = random_array((4, 5), "int32", "small", seed=10)
    t = tf.asarray(a)
    for axis in (None, 0, 1, (0, 1)):
        assert_close(tf.count_nonzero(t, axis=axis), np.count_nonzero(a, axis=axis),
                     check_dtype=False)
    assert int(tf.count_nonzero(t)) == np.count_nonzero(a)


def test_threads_identical_reduction():
    a = random_array((200_000,), "float64", seed=11)
    t = tf.asarray(a)
    with tf.num_threads(1):
        r1 = [float(tf.sum(t)), float(tf.max(t)), int(tf.argmax(t))]
    with tf.num_threads(2):
        r2 = [float(tf.sum(t)), float(tf.max(t)), int(tf.argmax(t))]
    assert r1 == r2
    assert abs(r1[0] - a.sum()) < 1e-9 and r1[1] == a.max() and r1[2] == a.argmax()


# -- property: random shapes, axes and strided layouts ---------------------------------------

from hypothesis import given, strategies as st  # noqa: E402

from conftest import hyp_settings  # noqa: E402


@st.composite
def reduce_case(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    dtype = draw(st.sampled_from(["bool", "int32", "int64", "float32", "float64",
                                  "complex128"]))
    perm = draw(st.permutations(range(ndim)))
    steps = tuple(draw(st.lists(st.sampled_from([1, 2, -1, -2]), min_size=ndim,
                                max_size=ndim)))
    axes = draw(st.none() | st.lists(st.integers(0, max(ndim - 1, 0)), unique=True,
                                     max_size=ndim).map(tuple) if ndim else st.none())
    keepdims = draw(st.booleans())
    name = draw(st.sampled_from(["sum", "prod", "max", "min", "any", "all", "mean"]))
    return shape, dtype, perm, steps, axes, keepdims, name


@hyp_settings(100)
@given(reduce_case(), st.integers(0, 2 ** 16))
def test_reduction_property(case, seed):
    shape, dtype, perm, steps, axes, keepdims, name = case
    big = random_array(tuple(abs(s) * n for s, n in zip(steps, shape)), dtype, "small",
                       seed=seed)
    key = tuple(slice(None, None, s) for s in steps)
    a = np.transpose(big[key], perm) if shape else big
    t = tf.permute_dims(tf.asarray(big)[key], perm) if shape else tf.asarray(big)
    if name in ("max", "min") and any(a.shape[i] == 0 for i in
                                     (axes if axes is not None else range(a.ndim))):
        with pytest.raises(ValueError, match="zero-size reduction"):
            getattr(tf, name)(t, axis=axes, keepdims=keepdims)
        return
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            exp = getattr(np, name)(a, axis=axes, keepdims=keepdims)
    got = getattr(tf, name)(t, axis=axes, keepdims=keepdims)
    assert_close(got, exp, **_tol(exp.dtype))


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "argmax", "argmin",
                                  "any", "all", "var", "std", "cumsum", "cumprod"])
def test_numpy_functions_dispatch_to_tensor_methods(name):
    """np.sum(tensor) & co. call the tensor's method (with out=None) and return a Tensor."""
    a = random_array((3, 4), "float64", "pos", seed=7)
    t = tf.asarray(a)
    for kw in ({}, {"axis": 1}):
        got = getattr(np, name)(t, **kw)
        assert isinstance(got, tf.Tensor)
        assert_close(got, getattr(np, name)(a, **kw), rtol=1e-13)


def test_reduction_out_argument():
    a = random_array((3, 4), "float64", seed=8)
    out = tf.empty(4)
    r = tf.sum(tf.asarray(a), axis=0, out=out)
    assert r is out
    assert_close(out, a.sum(axis=0), rtol=1e-13)
    out32 = tf.empty(3, dtype=tf.float32)
    tf.max(tf.asarray(a), axis=1, out=out32)
    assert_close(out32, a.max(axis=1).astype(np.float32))
    with pytest.raises(ValueError, match=r"sum: out has shape \(3,\) but the result has "
                                         r"shape \(4,\)"):
        tf.sum(tf.asarray(a), axis=0, out=tf.empty(3))
    with pytest.raises(TypeError, match="mean: cannot cast the result from float64 to out's "
                                        "dtype int64 under the same_kind rule"):
        tf.mean(tf.asarray(a), axis=0, out=tf.empty(4, dtype=tf.int64))


# -- NaN and infinities in long, strided, multi-threaded reductions ---------------------
# Past the kernels' parallel threshold (PAR_MIN = 32768 elements) a full reduction is cut
# into pieces (PIECE_MIN = 16384 elements each, up to 64) whose partial results are
# joined afterwards; a join that drops a NaN or an inf of a later piece went unnoticed
# (float32 max of 100,000 values with a NaN at 90,000 gave 4.73 under that mutation).
LONG = 200_000                     # 8 pieces of 25,000
SPECIAL_AT = {"first": 0, "middle": LONG // 2 + 7, "last_piece": LONG - 20_000 - 3,
              "last": LONG - 1}
LONG_LAYOUTS = {
    # name: (make a view of n values from a flat array, the axes to reduce)
    "flat": (lambda v: v, (None, 0)),
    "strided": (lambda v: np.repeat(v, 3)[::3], (None, 0)),
    "reversed": (lambda v: v[::-1].copy()[::-1], (None, 0)),
    # rows strategy (the kept axis innermost in memory): rows of 8, 8 pieces of rows
    # joined vector-wise
    "rows": (lambda v: v.reshape(-1, 8), (0, None)),
    # the same shape transposed (the reduced axis contiguous): strided per-output runs
    "columns": (lambda v: v.reshape(8, -1).T, (0,)),
    # per-output pieces over long runs: 4 outputs of 50,000
    "runs": (lambda v: v.reshape(4, -1), (1, None)),
}


def _special(dtype, kind):
    v = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}[kind]
    if np.dtype(dtype).kind == "c":
        return complex(0.5, v) if kind == "nan" else complex(v, 0.25)
    return v


def _long_values(dtype, op, seed):
    rng = np.random.default_rng(seed)
    real = np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64
    if op in ("any", "all"):
        return np.zeros(LONG, dtype)
    if op == "prod":       # products of many values near 1 stay finite
        v = np.exp(rng.uniform(-1e-3, 1e-3, (2, LONG))).astype(real)
    else:
        v = rng.uniform(-1.0, 1.0, (2, LONG)).astype(real)
    return (v[0] + 1j * v[1] if np.dtype(dtype).kind == "c" else v[0]).astype(dtype)


LONG_OPS = ["max", "min", "argmax", "argmin", "sum", "prod", "mean", "any", "all",
            "cumsum", "cumprod"]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", sorted(LONG_LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("kind", ["nan", "inf", "-inf"])
def test_long_reductions_with_nan_and_inf_at_every_piece(kind, dtype, layout, threads):
    make, axes = LONG_LAYOUTS[layout]
    for op in LONG_OPS:
        if op.startswith("cum") and layout in ("rows", "columns", "runs"):
            continue           # scans: the 1-D layouts (their axis=None flattens a copy)
        base = _long_values(dtype, op, seed=len(op))
        for where, pos in SPECIAL_AT.items():
            v = base.copy()
            v[pos] = _special(dtype, kind)
            a = make(v)
            for axis in axes:
                want = getattr(np, op)(a, axis=axis)
                with tf.num_threads(threads):
                    got = getattr(tf, op)(tf.asarray(a), axis=axis)
                tol = {"rtol": 1e-3 if np.dtype(dtype).itemsize <= 8 and dtype != "float64"
                       else 1e-9}
                if op in ("sum", "mean", "prod", "cumsum", "cumprod"):
                    tol["atol"] = 1e-2 if tol["rtol"] == 1e-3 else 1e-9
                try:
                    if want.dtype.kind == "c":   # (assert_allclose mishandles complex infs)
                        assert got.dtype == want.dtype
                        assert_close(tf.real(got), want.real, check_dtype=False, **tol)
                        assert_close(tf.imag(got), want.imag, check_dtype=False, **tol)
                    else:
                        assert_close(got, want, check_dtype=False, **tol)
                except AssertionError as e:
                    raise AssertionError("%s(axis=%s) with %s at %s (%d): %s"
                                         % (op, axis, kind, where, pos, e)) from None
