"""The per-call fast paths of the everyday functions give the general paths' results.

* ``stack`` is one ``concatenate`` and one reshape of its result (before the last axis),
  ``vstack``/``column_stack`` of equal 1-D rows go through it, ``concatenate`` checks in
  one pass: NumPy's values, dtypes and errors, for views, 0-d, empty and mixed dtypes,
  gradients, and WebGPU tensors.
* ``count_le`` (``interp``, ``histogram``) binds ``searchsorted`` where the device has
  it: the bisection's counts (NaN counts 0), and ``interp``'s values and gradients, bit
  for bit.
* ``trapezoid`` skips ``1.0 *`` and halves large products in place: the same bits as
  the out-of-place path, the input untouched, gradients unchanged.
* ``roll`` with int shift and axis skips NumPy's argument parsing; ``import tenferro``
  does not import ``numpy.fft`` (its ``__array_function__`` rows load on first use).
"""
import subprocess
import sys

import numpy as np
import pytest

import tenferro as tf
from tenferro._ops import calculus
from tenferro._ops.calculus import count_le
from tenferro.autograd import gradcheck


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.dtype("u%d" % a.dtype.itemsize) if a.dtype.itemsize <= 8 else np.uint64)


def same(got, want):
    got = got.numpy() if isinstance(got, tf.Tensor) else got
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                  got.shape, want.shape)
    np.testing.assert_array_equal(bits(got), bits(want))


def webgpu():
    if tf.devices.get_driver("webgpu").device_count() == 0:
        pytest.skip("no WebGPU device")
    return "webgpu"


# -- stack, concatenate, vstack, column_stack ---------------------------------------------

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


@pytest.mark.parametrize("shape", SHAPES)
def test_stack_matches_numpy_on_every_axis(shape):
    rng = np.random.default_rng(len(shape))
    arrs = [rng.standard_normal(shape) for _ in range(3)]
    for axis in range(-len(shape) - 1, len(shape) + 1):
        same(tf.stack([tf.asarray(a) for a in arrs], axis=axis), np.stack(arrs, axis=axis))
    same(tf.stack([tf.asarray(arrs[0])]), np.stack(arrs[:1]))


def test_stack_of_views_mixed_dtypes_and_host_data():
    a = np.arange(24.0).reshape(4, 6)
    views = [a[::-1, ::2], a[:, ::-2], a.T[:3].T, a[:, 1::2] * 1j]   # negative strides, transposed
    t = tf.asarray(a)
    tviews = [t[::-1, ::2], t[:, ::-2], t.T[:3].T, t[:, 1::2] * 1j]
    for axis in (0, 1, 2, -1):
        same(tf.stack(tviews, axis=axis), np.stack(views, axis=axis))
    mixed = [np.arange(3, dtype=np.int32), np.ones(3, bool), np.arange(3.0, dtype=np.float32)]
    same(tf.stack([tf.asarray(m) for m in mixed], 1), np.stack(mixed, 1))
    same(tf.stack([[1, 2], np.array([3, 4]), tf.asarray([5, 6])]),
         np.stack([[1, 2], [3, 4], [5, 6]]))
    same(tf.stack([tf.asarray(1.0), tf.asarray(2)]), np.stack([1.0, 2]))
    same(np.stack([tf.asarray(v) for v in mixed]).numpy(), np.stack(mixed))


def test_stack_and_concatenate_errors():
    x, y = tf.ones((2, 3)), tf.ones((3, 2))
    with pytest.raises(ValueError, match="stack: all tensors must have the same shape"):
        tf.stack([x, y])
    with pytest.raises(ValueError, match="stack: need at least one"):
        tf.stack([])
    with pytest.raises(np.exceptions.AxisError, match="stack"):
        tf.stack([x, x], axis=3)
    with pytest.raises(ValueError, match="concatenate: sizes must match except along axis 1"):
        tf.concatenate([x, y], axis=1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        tf.concatenate([x, tf.ones(3)])
    with pytest.raises(ValueError, match="zero-dimensional"):
        tf.concatenate([tf.asarray(1.0), tf.asarray(2.0)])
    with pytest.raises(ValueError, match="need at least one"):
        tf.concatenate([])


def test_concatenate_dtypes_axes_and_copies():
    a, b = np.arange(6).reshape(2, 3), np.arange(4.0, dtype=np.float32).reshape(2, 2)
    ta, tb = tf.asarray(a), tf.asarray(b)
    same(tf.concatenate([ta, tb], axis=-1), np.concatenate([a, b], axis=-1))
    same(tf.concatenate([ta, ta], axis=0, dtype="float32"),
         np.concatenate([a, a], axis=0, dtype="float32"))
    same(tf.concatenate([ta, tb], axis=None), np.concatenate([a, b], axis=None))
    same(tf.concatenate([ta[:, ::-1], ta[::-1]], 0), np.concatenate([a[:, ::-1], a[::-1]], 0))
    one = tf.concatenate([ta])
    assert one is not ta and np.shares_memory(one.numpy(), a) is False
    same(one, a)


def test_vstack_and_column_stack_rows():
    rows = [np.arange(4.0), np.arange(4, dtype=np.int64), np.ones(4, bool)]
    trows = [tf.asarray(r) for r in rows]
    for f in ("vstack", "column_stack", "hstack", "dstack"):
        same(getattr(tf, f)(trows), getattr(np, f)(rows))
        same(getattr(tf, f)(trows[:1]), getattr(np, f)(rows[:1]))
    ragged = [np.arange(3.0), np.arange(3.0).reshape(1, 3), np.float64(2.0) * np.ones((2, 3))]
    same(tf.vstack([tf.asarray(r) for r in ragged]), np.vstack(ragged))
    same(tf.vstack([tf.asarray(1.0), tf.asarray(2.0)]), np.vstack([1.0, 2.0]))
    same(tf.column_stack([tf.asarray(np.arange(3.0)), tf.ones((3, 2))]),
         np.column_stack([np.arange(3.0), np.ones((3, 2))]))
    same(tf.vstack(trows[:2], dtype="float32"), np.vstack(rows[:2], dtype="float32"))


@pytest.mark.parametrize("f", [lambda xs: tf.stack(xs, 0), lambda xs: tf.stack(xs, 1),
                               lambda xs: tf.stack(xs, -1), tf.vstack, tf.column_stack,
                               lambda xs: tf.concatenate(xs, None)])
def test_joins_differentiate(f):
    x0, x1 = (tf.asarray(np.random.default_rng(i).standard_normal(4)) for i in range(2))
    gradcheck(lambda a, b: f([a, b * 2.0]), (x0, x1), modes=("jvp", "vjp", "eager"),
              order=1)
    a = tf.asarray(np.arange(4.0)).requires_grad_()
    tf.sum(f([a, a * 3.0])).backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full(4, 4.0))


def test_stack_and_joins_on_webgpu():
    dev = webgpu()
    rng = np.random.default_rng(5)
    arrs = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(3)]
    ts = [tf.asarray(a).to(dev) for a in arrs]
    for axis in (0, 1, 2):
        r = tf.stack(ts, axis)
        assert r.device == tf.device(dev)
        same(r.to("cpu"), np.stack(arrs, axis))
    same(tf.vstack([t[0] for t in ts]).to("cpu"), np.vstack([a[0] for a in arrs]))
    same(tf.column_stack([t[0] for t in ts]).to("cpu"), np.column_stack([a[0] for a in arrs]))
    same(tf.concatenate(ts, 1).to("cpu"), np.concatenate(arrs, 1))


# -- count_le and interp --------------------------------------------------------------------

def _bisection(monkeypatch, dev="cpu"):
    """Take the searchsorted primitive away from ``dev``'s driver (CUDA's situation)."""
    impls = tf.devices.get_driver(dev).implementations
    monkeypatch.delitem(impls, "searchsorted")


def _tricky_points(dtype=np.float64):
    s = np.sort(np.array([-np.inf, -2.0, -0.0, 0.0, 0.0, 1.5, 1.5, 1.5, 3.0, np.inf]))
    v = np.array([np.nan, -np.nan, -np.inf, np.inf, -0.0, 0.0, 1.5, 1.4999, 3.0, 9.0, -9.0])
    return s.astype(dtype), v.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_count_le_searchsorted_is_the_bisection(dtype, monkeypatch):
    if np.dtype(dtype).kind == "f":
        s, v = _tricky_points(dtype)
    else:
        s = np.array([-5, -5, 0, 2, 2, 2, 7], dtype)
        v = np.array([-6, -5, 0, 1, 2, 3, 7, 8], dtype)
    for sv in ((s, v), (s[:1], v), (s[:0], v), (s, v[:0]), (s[::-1][::-1], v.reshape(1, -1))):
        fast = count_le(tf.asarray(sv[0]), tf.asarray(sv[1]))
        with monkeypatch.context() as m:
            _bisection(m)
            slow = count_le(tf.asarray(sv[0]), tf.asarray(sv[1]))
        np.testing.assert_array_equal(fast.numpy(), slow.numpy())
        want = np.searchsorted(sv[0], sv[1], side="right")
        if np.dtype(dtype).kind == "f":
            want = np.where(np.isnan(sv[1]), 0, want)
        np.testing.assert_array_equal(fast.numpy(), want)


def test_count_le_many_values_bisect_on_the_cpu(monkeypatch):
    rng = np.random.default_rng(9)
    s = np.sort(np.concatenate([rng.standard_normal(300), [0.0, 0.0, -0.0, np.inf]]))
    v = np.concatenate([rng.standard_normal(2000), [np.nan, -0.0, np.inf, -np.inf]])
    want = np.where(np.isnan(v), 0, np.searchsorted(s, v, side="right"))
    for limit in (0, 10**9):       # (the bisection, the search)
        monkeypatch.setattr(calculus, "_CPU_SEARCH_MAX", limit)
        got = count_le(tf.asarray(s), tf.asarray(v))
        assert got.dtype == (np.int32 if limit == 0 else np.int64)
        np.testing.assert_array_equal(got.numpy(), want)


def test_count_le_on_webgpu():
    dev = webgpu()
    s, v = _tricky_points(np.float32)
    got = count_le(tf.asarray(s).to(dev), tf.asarray(v).to(dev)).to("cpu").numpy()
    np.testing.assert_array_equal(got, np.where(np.isnan(v), 0,
                                                np.searchsorted(s, v, side="right")))


def _interp_cases():
    rng = np.random.default_rng(7)
    xp = np.sort(rng.standard_normal(40))
    xp[5:8] = xp[5]                       # repeated sample points
    fp = rng.standard_normal(40)
    fp[20], fp[21] = np.inf, -np.inf      # NaN slopes
    x = np.concatenate([rng.uniform(-3, 3, 50), xp[:10], [np.nan, -np.inf, np.inf, -0.0,
                                                            xp[-1], xp[0]]])
    return x, xp, fp


@pytest.mark.parametrize("kw", [{}, {"left": -1.0, "right": 2.0}, {"period": 1.7}])
def test_interp_values_and_gradients_are_the_bisections(kw, monkeypatch):
    x, xp, fp = _interp_cases()
    if "period" in kw:
        xp = np.unique(xp)
        fp = fp[:xp.size]

    def run():
        args = [tf.asarray(a).requires_grad_() for a in (x, xp, fp)]
        y = tf.interp(*args, **kw)
        tf.sum(tf.where(tf.isfinite(y), y, 0.0) * tf.arange(y.shape[0])).backward()
        return [y.detach().numpy()] + [a.grad.numpy() for a in args]

    fast = run()
    with monkeypatch.context() as m:
        _bisection(m)
        slow = run()
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(bits(f), bits(s))
    # (NumPy's own loop may round its a * b + c once, fused: an ulp apart)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(fast[0], np.interp(x, xp, fp, **kw), rtol=1e-13,
                                   atol=1e-15)
    fc = np.nan_to_num(fp, posinf=0.0, neginf=0.0) * (1 + 0.5j)
    np.testing.assert_allclose(tf.interp(x, xp, fc, **kw).numpy(), np.interp(x, xp, fc, **kw),
                               rtol=1e-13, atol=1e-15)


def test_interp_gradcheck_and_webgpu():
    xp = np.linspace(0.0, 1.0, 9)
    fp = np.sin(3 * xp)
    x = np.array([0.05, 0.33, 0.51, 0.97])
    gradcheck(lambda a, b, c: tf.interp(a, b, c), tuple(tf.asarray(v) for v in (x, xp, fp)),
              modes=("jvp", "vjp", "eager"), order=1)
    dev = webgpu()
    x, xp, fp = (a.astype(np.float32) for a in _interp_cases())
    got = tf.interp(*(tf.asarray(a).to(dev) for a in (x, xp, fp)))
    assert got.device == tf.device(dev)
    np.testing.assert_allclose(got.to("cpu").numpy(), np.interp(x, xp, fp).astype(np.float32),
                               rtol=1e-5, atol=1e-6)


def test_histogram_with_edges_unchanged():
    a = np.concatenate([np.random.default_rng(2).standard_normal(200), [np.nan, 5.0, -5.0]])
    edges = np.array([-2.0, -0.5, 0.0, 0.1, 2.0])
    n, e = tf.histogram(tf.asarray(a), bins=tf.asarray(edges))
    want = np.histogram(a[~np.isnan(a)], bins=edges)
    np.testing.assert_array_equal(n.numpy(), want[0])
    np.testing.assert_array_equal(e.numpy(), want[1])


# -- trapezoid ------------------------------------------------------------------------------

def _trap_inputs():
    rng = np.random.default_rng(11)
    y = rng.standard_normal((3, 70_000))
    y[0, :5] = [np.nan, -0.0, np.inf, 0.0, -np.nan]
    return y


@pytest.mark.parametrize("kw", [{}, {"dx": 0.5}, {"dx": 1}, {"x": "1d"}, {"x": "full"}])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int64"])
def test_trapezoid_in_place_is_out_of_place(kw, dtype, monkeypatch):
    y = _trap_inputs()
    with np.errstate(all="ignore"):
        if dtype == "int64":
            y = np.nan_to_num(y * 1000, posinf=0.0, neginf=0.0).astype(dtype)
        else:
            y = y + 1j * y[::-1] if dtype == "complex128" else y.astype(dtype)
    kw = dict(kw)
    if kw.get("x") == "1d":
        kw["x"] = tf.asarray(np.cumsum(np.random.default_rng(1).random(y.shape[1])))
    elif kw.get("x") == "full":
        kw["x"] = tf.asarray(np.cumsum(np.random.default_rng(1).random(y.shape), axis=1))
    ty = tf.asarray(y)
    before = y.copy()
    fast = tf.trapezoid(ty, **kw)
    monkeypatch.setattr(calculus, "_IN_PLACE", 1 << 62)
    slow = tf.trapezoid(ty, **kw)
    same(fast, slow.numpy())
    same(ty, before)                                    # the input is never written
    npkw = {k: (v.numpy() if isinstance(v, tf.Tensor) else v) for k, v in kw.items()}
    with np.errstate(all="ignore"):
        want = np.trapezoid(y, **npkw)
    assert fast.dtype == want.dtype
    np.testing.assert_allclose(fast.numpy(), want, rtol=1e-9 if dtype != "float32" else 1e-3)


def test_trapezoid_small_axes_and_gradients():
    y = np.random.default_rng(3).standard_normal((4, 5))
    for axis in (0, 1, -1):
        np.testing.assert_allclose(tf.trapezoid(tf.asarray(y), axis=axis).numpy(),
                                   np.trapezoid(y, axis=axis), rtol=1e-14)
    same(tf.trapezoid(tf.asarray(y[:, :1])), np.trapezoid(y[:, :1]))
    big = tf.asarray(np.random.default_rng(4).standard_normal(70_000)).requires_grad_()
    tf.trapezoid(big, dx=0.5).backward()
    g = np.full(70_000, 0.5)
    g[[0, -1]] = 0.25
    np.testing.assert_array_equal(big.grad.numpy(), g)
    gradcheck(lambda t: tf.trapezoid(t, dx=0.3), (tf.asarray(y),), modes=("jvp", "vjp"),
              order=1)


# -- roll, numpy.fft ------------------------------------------------------------------------

def test_roll_int_and_parsed_arguments():
    a = np.arange(24.0).reshape(4, 6)
    t = tf.asarray(a)
    for shift, axis in [(1, 0), (-7, 1), (5, -1), (0, 0), (3, None), (True, 0),
                        (np.int64(2), 1), ((1, 2), (0, 1)), ([1, 1], 0), (2, (0, 1))]:
        same(tf.roll(t, shift, axis), np.roll(a, shift, axis))
    v = np.arange(7.0)[::-1]
    same(tf.roll(tf.asarray(v), 3), np.roll(v, 3))
    same(tf.roll(tf.asarray(np.zeros((0, 3))), 2, 0), np.roll(np.zeros((0, 3)), 2, 0))
    with pytest.raises(np.exceptions.AxisError):
        tf.roll(t, 1, 2)


def test_import_does_not_import_numpy_fft_and_fft_dispatches():
    code = ("import sys, numpy as np, tenferro as tf\n"
            "assert 'numpy.fft' not in sys.modules, 'imported eagerly'\n"
            "r = np.fft.rfft(tf.asarray(np.arange(8.0)))\n"
            "assert isinstance(r, tf.Tensor), type(r)\n"
            "from tenferro._numpy_protocols import _functions as F\n"
            "assert np.fft.fft in F.TWINS\n")
    subprocess.run([sys.executable, "-c", code], check=True)
