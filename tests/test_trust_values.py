"""Issue 15, values: every case gives NumPy 2's value (bit for bit) or its exception."""
import struct
import warnings

import numpy as np
import pytest

import tenferro as tf


def _bits(a):
    return np.asarray(a).tobytes()


# -- the Python-scalar cache keys signed zeros, NaN payloads and types apart ----------------

SCALARS = [0.0, -0.0, complex(0.0, 0.0), complex(0.0, -0.0), complex(-0.0, 0.0),
           complex(-0.0, -0.0), float("nan"), struct.unpack("<d", b"\x01\x00\x00\x00\x00\x00\xf8\x7f")[0],
           True, 1, 1.0, False, 0]


@pytest.mark.parametrize("op", ["multiply", "add", "copysign", "divide"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_scalar_cache_keys_signed_zero_and_nan_apart(op, dtype):
    a = np.array([1.0, -2.0, 0.0, -0.0], dtype=dtype)
    x = tf.asarray(a)
    for _ in range(2):   # second pass: every value is in the cache already
        for s in SCALARS:
            if op == "copysign" and (dtype.startswith("complex") or isinstance(s, complex)):
                continue
            want = getattr(np, op)(a, s)
            got = np.asarray(getattr(tf, op)(x, s))
            assert got.dtype == want.dtype, (op, s)
            assert _bits(got) == _bits(want), (op, s, got, want)
            assert np.array_equal(np.signbit(got.real), np.signbit(want.real))


def test_multiply_by_negative_zero_then_zero():
    x = tf.asarray(np.array([1.0, 2.0]))
    assert np.signbit(np.asarray(x * -0.0)).all()
    assert not np.signbit(np.asarray(x * 0.0)).any()
    assert not np.signbit(np.asarray(tf.copysign(x, 0.0))).any()
    assert np.signbit(np.asarray(tf.copysign(x, -0.0))).all()


def test_scalar_cache_bool_int_float_apart():
    x = tf.asarray(np.array([3, 4], dtype=np.int32))
    for s in (True, 1, 1.0, 1, True):
        want = np.array([3, 4], np.int32) + s
        got = np.asarray(x + s)
        assert got.dtype == want.dtype and np.array_equal(got, want), s


@pytest.mark.parametrize("v", [-0.0, complex(-0.0, 0.0), complex(0.0, -0.0), 0.0, 0])
def test_full_keeps_signed_zero(v):
    got = np.asarray(tf.full(3, v))
    want = np.full(3, v)
    assert got.dtype == want.dtype and _bits(got) == _bits(want)


# -- setitem: NumPy 2's rules for every kind of value into every dtype ----------------------

DESTS = ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"]
PY_VALUES = [2 + 1j, 2.7, -2.7, 2 ** 40, 2 ** 70, -1, True, float("nan"), float("inf"), -0.0]
KEYS = [0, slice(None), [0], (Ellipsis,)]


def _numpy_outcome(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = fn()
        except (TypeError, ValueError, OverflowError) as e:
            return ("raise", type(e)), []
    return ("ok", r), [x.category for x in w]


def _setitem_outcomes(dest, key, v, tv):
    """(NumPy's, tenferro's) outcome and warnings of ``[key] = v`` (``tv`` for tenferro)
    into zeros of ``dest``."""
    a = np.zeros(3, dtype=dest)
    x = tf.zeros(3, dtype=dest)

    def np_set():
        a[key] = v
        return a.copy()

    def tf_set():
        x[key] = tv
        return np.asarray(x).copy()
    want, wwarn = _numpy_outcome(np_set)
    got, gwarn = _numpy_outcome(tf_set)
    assert (np.exceptions.ComplexWarning in gwarn) == (np.exceptions.ComplexWarning in wwarn)
    return want, got


@pytest.mark.parametrize("dest", DESTS)
@pytest.mark.parametrize("key", KEYS, ids=str)
def test_setitem_python_scalar_as_numpy(dest, key):
    for v in PY_VALUES:
        want, got = _setitem_outcomes(dest, key, v, v)
        assert got[0] == want[0], (dest, key, v, got, want)
        if want[0] == "raise":
            assert issubclass(got[1], want[1]), (dest, key, v, got, want)
        else:
            assert _bits(got[1]) == _bits(want[1]), (dest, key, v, got, want)


def test_setitem_complex_into_real_raises_naming_op():
    x = tf.asarray(np.zeros(3))
    with pytest.raises(TypeError, match="tenferro.setitem.*complex"):
        x[0] = 2 + 1j
    assert np.array_equal(np.asarray(x), np.zeros(3))   # nothing written
    i = tf.zeros(3, dtype="int32")
    with pytest.raises(OverflowError, match=r"setitem.*out of bounds for int32"):
        i[1:] = 2 ** 40
    with pytest.raises(ValueError, match=r"setitem.*NaN"):
        i[[0, 1]] = float("nan")


@pytest.mark.parametrize("dest", DESTS)
@pytest.mark.parametrize("src", ["complex128", "float64", "int64", "bool"])
@pytest.mark.parametrize("kind", ["ndarray", "tensor", "numpy scalar"])
def test_setitem_array_values_cast_as_numpy(dest, src, kind):
    vals = np.array([2.5 + 1j, -1.0 + 0j, 3.0 - 2j], dtype=complex).astype(src) \
        if src.startswith("complex") else np.array([2.5, -1.0, 3.0]).astype(src)
    v = vals[0] if kind == "numpy scalar" else vals
    for key in (slice(None), [0, 1, 2]):
        want, got = _setitem_outcomes(dest, key, v, tf.asarray(v) if kind == "tensor" else v)
        assert got[0] == want[0] == "ok"
        assert _bits(got[1]) == _bits(want[1]), (dest, src, kind, got, want)


def test_inplace_complex_into_real_raises():
    x = tf.asarray(np.zeros(3))
    with pytest.raises(TypeError, match="tenferro.add.*same_kind"):
        x += 1j
    with pytest.raises(TypeError, match="float"):
        tf.full(2, 2 + 1j, dtype="float64")


# -- comparisons and arithmetic with out-of-range Python ints -----------------------------

BIG = [2 ** 31, -2 ** 31 - 1, 2 ** 40, -2 ** 40, 2 ** 63, -2 ** 63 - 1, 2 ** 70, -2 ** 70, 5]
CMP = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool", "float32", "float64"])
@pytest.mark.parametrize("op", CMP + ["add", "multiply", "maximum", "bitwise_and"])
def test_out_of_range_python_int_as_numpy(dtype, op):
    a = np.array([1, -3, 0], dtype=dtype) if dtype != "bool" else np.array([True, False, True])
    x = tf.asarray(a)
    uf = getattr(np, op)
    for v in BIG:
        for args, targs in (((a, v), (x, v)), ((v, a), (v, x))):
            try:
                want = uf(*args)
            except (TypeError, OverflowError) as e:
                with pytest.raises(type(e)):
                    getattr(tf, op)(*targs)
                continue
            got = np.asarray(getattr(tf, op)(*targs))
            assert got.dtype == want.dtype and np.array_equal(got, want), (op, v, got, want)


def test_int32_less_than_2_40_is_true():
    x = tf.asarray(np.array([1, 2], dtype=np.int32))
    assert np.asarray(x < 2 ** 40).tolist() == [True, True]
    assert np.asarray(2 ** 40 == x).tolist() == [False, False]
    assert np.asarray(x >= -2 ** 70).tolist() == [True, True]
    with pytest.raises(OverflowError, match=r"tenferro.add: Python integer 1099511627776 out "
                                            r"of bounds for int32"):
        x + 2 ** 40
    with pytest.raises(OverflowError, match=r"tenferro.multiply.*int64"):
        tf.asarray(np.array([1])) * 2 ** 63
    out = tf.zeros(2, dtype="bool")
    assert tf.less(x, 2 ** 40, out=out) is out and np.asarray(out).all()


# -- thread counts --------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2 ** 31, -2 ** 31, 10 ** 6, 1025 + tf._threads.max_threads()])
def test_set_num_threads_rejects_absurd_counts(n):
    before = tf.get_num_threads()
    with pytest.raises(ValueError, match=r"set_num_threads: %d threads is out of range" % n):
        tf.set_num_threads(n)
    with pytest.raises(ValueError, match=r"set_num_threads: %d threads" % n):
        with tf.num_threads(n):
            pass
    assert tf.get_num_threads() == before
    x = tf.asarray(np.arange(100000.0))
    assert float(tf.sum(x)) == np.arange(100000.0).sum()   # later ops still run


def test_set_num_threads_accepts_numpy_ints_and_the_cap():
    before = tf.get_num_threads()
    try:
        tf.set_num_threads(np.int64(2))
        assert tf.get_num_threads() == (2 if tf._threads.have_openmp() else 1)
        with pytest.raises(ValueError, match="expected a non-zero int or None, got True"):
            tf.set_num_threads(True)
    finally:
        tf.set_num_threads(None)
    assert tf.get_num_threads() == before


@pytest.mark.parametrize("env", ["abc", "0", "-3", "99999999999", "2**31"])
def test_garbage_omp_num_threads_is_reported_and_ignored(env):
    import os
    import subprocess
    import sys

    code = ("import warnings; warnings.simplefilter('always')\n"
            "import tenferro as tf, numpy as np\n"
            "print(tf.get_num_threads(), tf._threads._openmp.num_procs(), "
            "tf._threads.have_openmp())\n"
            "print(float(tf.sum(tf.asarray(np.ones(100000)))))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS=env), timeout=120,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode == 0, r.stderr
    got, procs, omp = r.stdout.split("\n")[0].split()
    assert int(got) == (int(procs) if omp == "True" else 1)
    assert r.stdout.split("\n")[1] == "100000.0"
    assert "ignoring OMP_NUM_THREADS=%r" % env in r.stderr


# -- axis=0 / -1 on 0-d tensors, exactly where NumPy takes it -------------------------------

def _logsumexp(lib):
    # NumPy's axis rules (scipy.special.logsumexp has its own for 0-d input: (0,) works)
    return (lambda a, axis: np.log(np.sum(np.exp(a), axis=axis))) if lib is np \
        else tf.logsumexp


def _plain(name):
    return lambda lib, a, ax: getattr(lib, name)(a, axis=ax)


ZERO_D_OPS = dict(
    {n: _plain(n) for n in ("sum", "prod", "mean", "var", "std", "max", "min", "argmax",
                            "any", "all", "cumsum", "cumprod", "count_nonzero", "squeeze")},
    sum_keepdims=lambda lib, a, ax: lib.sum(a, axis=ax, keepdims=True),
    argmin_keepdims=lambda lib, a, ax: lib.argmin(a, axis=ax, keepdims=True),
    logsumexp=lambda lib, a, ax: _logsumexp(lib)(a, axis=ax),
    take=lambda lib, a, ax: lib.take(a, 0, axis=ax),
    take_list=lambda lib, a, ax: lib.take(a, [0, -1], axis=ax),
)


@pytest.mark.parametrize("axis", [0, -1, 1, -2, (0,), (-1,), (), None, np.int64(0)],
                         ids=repr)
@pytest.mark.parametrize("op", sorted(ZERO_D_OPS))
def test_axis_on_0d_tensor_as_numpy(op, axis):
    fn = ZERO_D_OPS[op]
    a = np.array(2.5)
    try:
        want = np.asarray(fn(np, a, axis))
    except (np.exceptions.AxisError, TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            fn(tf, tf.asarray(a), axis)
        return
    got = np.asarray(fn(tf, tf.asarray(a), axis))
    assert got.shape == want.shape and np.allclose(got, want), (got, want)


def test_axis_error_on_0d_names_the_op():
    x = tf.asarray(np.array(1.0))
    with pytest.raises(np.exceptions.AxisError,
                       match="tenferro.logsumexp: axis 1 is out of bounds"):
        tf.logsumexp(x, axis=1)
    with pytest.raises(tf.AxisError, match="tenferro.sum: axis 0 is out of bounds"):
        tf.sum(x, axis=(0,))


# -- absurd sizes fail fast -----------------------------------------------------------------

def test_take_with_index_broadcast_to_2_40_fails_fast():
    import os
    import subprocess
    import sys

    code = ("import numpy as np, tenferro as tf, time\n"
            "x = tf.asarray(np.arange(5.0))\n"
            "for v in (1, -1):\n"
            "    i = tf.broadcast_to(tf.asarray(v), (2 ** 40,))\n"
            "    for f in (lambda: tf.take(x, i), lambda: x[i],\n"
            "              lambda: tf.take_along_axis(x, i, 0)):\n"
            "        t = time.time()\n"
            "        try:\n"
            "            f()\n"
            "        except MemoryError as e:\n"
            "            assert 'TiB' in str(e), e\n"
            "            print('MemoryError', round(time.time() - t))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:6] == ["MemoryError 0"] * 6, r.stdout
    x = tf.asarray(np.arange(5.0))
    with pytest.raises(IndexError, match="tenferro.take: index 9 is out of bounds"):
        tf.take(x, tf.broadcast_to(tf.asarray(9), (2 ** 40,)))


@pytest.mark.parametrize("shape", [(7,), (3, 4), (4, 1)])
def test_broadcast_negative_indices_gather_as_numpy(shape):
    a = np.arange(5.0) * 1.5
    base = np.array([[-1], [2], [-5], [0]])[: shape[0]] if len(shape) == 2 else np.array(-2)
    idx = np.broadcast_to(base, shape)
    want = np.take(a, idx)
    ti = tf.broadcast_to(tf.asarray(base), shape)
    assert np.array_equal(np.asarray(tf.take(tf.asarray(a), ti)), want)
    assert np.array_equal(np.asarray(tf.asarray(a)[ti]), a[idx])


@pytest.mark.parametrize("f", [lambda v: v + 0.0, lambda v: 0.0 + v, lambda v: v - (-0.0),
                               lambda v: v + (-0.0), lambda v: v - 0.0, lambda v: v * 1.0,
                               lambda v: v + complex(0.0, -0.0), lambda v: v / 1.0])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_jit_simplification_keeps_signed_zeros(f, dtype):
    a = np.array([-0.0, 0.0, 1.0, complex(-0.0, -0.0) if dtype == "complex128" else -2.0],
                 dtype=dtype)
    want = f(a)
    got = np.asarray(tf.jit(f)(tf.asarray(a)))
    assert got.dtype == want.dtype and _bits(got) == _bits(want), (got, want)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("lo,hi", [(2 ** 40, 2 ** 41), (-2 ** 41, -2 ** 40), (None, 2 ** 40),
                                   (-2 ** 40, None), (2 ** 40, None), (0, 2 ** 70),
                                   (2 ** 40, 1), (-2 ** 70, 2 ** 70), (None, -2 ** 70)])
def test_clip_with_out_of_range_python_int_bounds_as_numpy(dtype, lo, hi):
    a = np.array([1, -2, 7], dtype=dtype)
    try:
        want = np.clip(a, lo, hi)
    except OverflowError:
        with pytest.raises(OverflowError, match="out of bounds|too large"):
            tf.clip(tf.asarray(a), lo, hi)
        return
    got = np.asarray(tf.clip(tf.asarray(a), lo, hi))
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("name", ["add", "equal", "multiply", "less", "maximum", "power",
                                  "logical_and", "bitwise_or", "divide", "arctan2"])
@pytest.mark.parametrize("pair", [(3, 3), (3, 4.5), (True, 2), (2.5, 1j), (-7, 2),
                                  (True, False)])
def test_two_python_scalars_follow_numpy(name, pair):
    """Both operands Python scalars (found by the fuzz test: tf.equal(3, 3) raised a
    KeyError on NumPy's object loop): NumPy's dtype and value, or NumPy's error type."""
    try:
        want = getattr(np, name)(*pair)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(tf, name)(*pair)
        return
    got = getattr(tf, name)(*pair)
    # tenferro has no int8/float16: bool math runs in int32/float32 (docs/tensors.md)
    wdt = {np.dtype("int8"): np.dtype("int32"), np.dtype("float16"): np.dtype("float32")}.get(
        np.asarray(want).dtype, np.asarray(want).dtype)
    assert got.dtype == wdt and got.shape == ()
    rtol = 1e-3 if np.asarray(want).dtype == np.float16 else 0   # float16's rounding
    np.testing.assert_allclose(got.numpy(), np.asarray(want).astype(wdt), rtol=rtol)
