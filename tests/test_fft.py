"""tenferro.fft against scipy.fft: every function, every dtype (float32/complex64 kept
single, ints and bools promoted), every norm, n/s cropping and zero-padding, odd and
even lengths, negative and multiple axes, batches, strided inputs; the helpers; the
signatures; the errors (naming the function) and the devices without kernels.
Derivatives are in tests/test_fft_ad.py."""
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.fft as sf

import tenferro as tf
import tenferro.fft as F
from tenferro.fft import _util

from conftest import assert_close, sample, stable_rng

DTYPES = ["float32", "float64", "complex64", "complex128", "int64", "bool"]
NORMS = [None, "backward", "ortho", "forward"]
TOL = {np.dtype("float32"): 2e-5, np.dtype("complex64"): 2e-5,
       np.dtype("float64"): 1e-12, np.dtype("complex128"): 1e-12}

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn", "hfft2",
       "ihfft2", "hfftn", "ihfftn"]
REAL_IN = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}
TRIG = ["dct", "idct", "dst", "idst"]
TRIG_N = ["dctn", "idctn", "dstn", "idstn"]


def _data(key, shape, dtype):
    return sample(stable_rng("fft", key, dtype, shape), shape, dtype)


def _same(got, want):
    assert isinstance(got, tf.Tensor)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    tol = TOL[want.dtype] * max(1.0, float(np.abs(want).max(initial=0.0)))
    assert_close(got, want, rtol=TOL[want.dtype], atol=tol)


def _both(name, x, *args, **kwargs):
    """(tenferro's result, scipy's) or the exception type both raise."""
    try:
        want = getattr(sf, name)(x, *args, **kwargs)
    except (ValueError, TypeError, IndexError) as e:
        with pytest.raises(type(e)):
            getattr(F, name)(tf.asarray(x), *args, **kwargs)
        return None, None
    return getattr(F, name)(tf.asarray(x), *args, **kwargs), want


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 1, 4, 7, 12])
def test_one_d_vs_scipy(name, dtype, norm, n):
    if name in REAL_IN and dtype.startswith("complex"):
        return   # TypeError: tested in test_real_input_required
    x = _data(name, (3, 6), dtype)
    got, want = _both(name, x, n=n, norm=norm)
    if want is not None:
        _same(got, want)


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("axis", [0, 1, -1, -3])
@pytest.mark.parametrize("length", [1, 2, 5, 8])
def test_one_d_axes_and_lengths(name, axis, length):
    dtype = "float64" if name in REAL_IN else "complex128"
    x = _data(name, (length, 3, length), dtype)
    got, want = _both(name, x, axis=axis)
    if want is not None:
        _same(got, want)


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("dtype", ["float32", "complex64", "float64", "complex128", "int32"])
@pytest.mark.parametrize("s,axes", [(None, None), ((3, 5), None), ((4, 7), (0, 2)),
                                    (None, (-1, 0)), ((2, -1), (2, 1)), (None, (1,)),
                                    ((6,), (-2,)), (None, (2, 0, 1))], ids=str)
def test_n_d_vs_scipy(name, dtype, s, axes):
    if name in REAL_IN and dtype.startswith("complex"):
        return
    x = _data(name, (4, 5, 6), dtype)
    kw = {} if axes is None else {"axes": axes}
    if name.endswith("2") and axes is not None and len(axes) != 2:
        return
    for norm in NORMS:
        got, want = _both(name, x, s=s, norm=norm, **kw)
        if want is not None:
            _same(got, want)


@pytest.mark.parametrize("name", TRIG)
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
@pytest.mark.parametrize("norm", NORMS)
def test_dct_dst_vs_scipy(name, type, dtype, norm):
    x = _data(name, (3, 7), dtype)
    for kw in ({}, {"n": 4}, {"n": 10}, {"axis": 0}):
        for ortho in ([None] if dtype.startswith("complex") else [None, True, False]):
            got, want = _both(name, x, type=type, norm=norm, orthogonalize=ortho, **kw)
            if want is not None:
                _same(got, want)


@pytest.mark.parametrize("name", TRIG_N)
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("s,axes", [(None, None), ((3, 5), None), (None, (0, -1)),
                                    ((6,), (1,)), (None, ())], ids=str)
def test_dctn_dstn_vs_scipy(name, type, s, axes):
    x = _data(name, (4, 5, 6), "float64")
    for norm in NORMS:
        got, want = _both(name, x, type=type, s=s, axes=axes, norm=norm)
        if want is not None:
            _same(got, want)


def test_complex_dct_orthogonalizes_both_parts():
    """scipy 1.17 drops ``orthogonalize`` for a complex input; tenferro applies it to the
    real and the imaginary part alike."""
    z = _data("cdct", (3, 6), "complex128")
    for f in ("dct", "idst"):
        for t in (1, 2, 3, 4):
            got = getattr(F, f)(tf.asarray(z), type=t, orthogonalize=True)
            want = (getattr(sf, f)(z.real, type=t, orthogonalize=True)
                    + 1j * getattr(sf, f)(z.imag, type=t, orthogonalize=True))
            _same(got, want)


def test_strided_and_batched_inputs():
    x = _data("strided", (6, 9, 8), "complex128")
    for view in (x[::2], x[:, ::-1], np.swapaxes(x, 0, 2), x[1:, 2:, ::3]):
        _same(F.fft(tf.asarray(view)), sf.fft(view))
        _same(F.fftn(tf.asarray(view), axes=(0, 2)), sf.fftn(view, axes=(0, 2)))
        _same(F.rfft(tf.asarray(view.real), axis=0), sf.rfft(view.real, axis=0))
        _same(F.irfft(tf.asarray(view), axis=1), sf.irfft(view, axis=1))
        _same(F.dct(tf.asarray(view.real), axis=1), sf.dct(view.real, axis=1))


def test_empty_batches_and_zero_d():
    for name in ONE_D:
        dt = "float64" if name in REAL_IN else "complex128"
        x = np.zeros((0, 4), dt)
        got, want = _both(name, x)
        _same(got, want)
        with pytest.raises((ValueError, IndexError), match="tenferro.fft.%s" % name):
            getattr(F, name)(tf.asarray(np.zeros((3, 0), dt)))   # an empty transform axis
        with pytest.raises(IndexError, match="tenferro.fft.%s" % name):
            getattr(F, name)(tf.asarray(np.array(1.0, dt)))      # 0-d: no axis -1
    with pytest.raises(ValueError, match="tenferro.fft.fftn: invalid number of data"):
        F.fftn(tf.zeros((2, 0)))
    assert F.fftn(tf.zeros((2, 0)), axes=(0,)).shape == (2, 0)


def test_zero_axes_as_scipy():
    x = tf.asarray(_data("noaxes", (3, 4), "float64"))
    assert F.fftn(x, axes=()) is x and F.dctn(x, axes=()) is x   # scipy returns x
    for name in ("rfftn", "irfftn", "hfftn", "ihfftn"):
        with pytest.raises(ValueError, match="tenferro.fft.%s: at least 1 axis" % name):
            getattr(F, name)(x, axes=())


def test_real_input_required():
    z = tf.asarray(np.ones(4, np.complex128))
    for name in REAL_IN:
        with pytest.raises(TypeError, match="tenferro.fft.%s: x must be a real" % name):
            getattr(F, name)(z)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fftn", "dct"])
def test_bad_arguments(name):
    x = tf.ones((4, 4))
    f = getattr(F, name)
    with pytest.raises(ValueError, match="tenferro.fft.%s: invalid norm value 'Ortho'" % name):
        f(x, norm="Ortho")
    with pytest.raises(ValueError, match="tenferro.fft.%s: workers must not be zero" % name):
        f(x, workers=0)
    with pytest.raises(ValueError, match="tenferro.fft.%s: workers value out of range" % name):
        f(x, workers=-10 ** 6)
    with pytest.raises(TypeError, match="tenferro.fft.%s: workers must be an integer" % name):
        f(x, workers=1.5)
    if name.endswith("n"):
        with pytest.raises(IndexError, match="tenferro.fft.fftn: axes \\[2\\] exceed"):
            f(x, axes=(0, 2))
        with pytest.raises(ValueError, match="tenferro.fft.fftn: all axes must be unique"):
            f(x, axes=(0, -2))
        with pytest.raises(ValueError, match="axes and s must have the same length"):
            f(x, s=(2, 2), axes=(0,))
        with pytest.raises(ValueError, match="has more entries than the input"):
            f(x, s=(2, 2, 2))
        with pytest.raises(ValueError, match="invalid number of data points \\(\\[0, 2\\]\\)"):
            f(x, s=(0, 2))
    else:
        with pytest.raises(IndexError, match="tenferro.fft.%s: axis 2 is out of bounds" % name):
            f(x, axis=2)
        with pytest.raises(ValueError, match="tenferro.fft.%s: invalid number of data points "
                                             "\\(0\\)" % name):
            f(x, n=0)
        with pytest.raises(TypeError, match="tenferro.fft.%s: n must be an integer" % name):
            f(x, n=2.5)


def test_bad_trig_and_plan_arguments():
    x = tf.ones(4)
    with pytest.raises(ValueError, match="tenferro.fft.dct: type must be 1, 2, 3 or 4"):
        F.dct(x, type=5)
    with pytest.raises(ValueError, match="tenferro.fft.idct: the DCT of type 1 needs at least"):
        F.idct(tf.ones(1), type=1)
    with pytest.raises(NotImplementedError, match="tenferro.fft.rfft: passing a precomputed"):
        F.rfft(x, plan=object())
    with pytest.raises(ValueError, match="tenferro.fft.irfft: invalid number of data points"):
        F.irfft(tf.ones(1, dtype=tf.complex128))   # one bin: n = 0


def test_irfft_lengths_odd_and_even():
    z = sf.rfft(_data("irfft-len", (2, 9), "float64"))   # 5 bins: of 8 or 9 points
    for n in (None, 8, 9, 3, 14):
        _same(F.irfft(tf.asarray(z), n=n), sf.irfft(z, n=n))
    x = _data("roundtrip", (3, 9), "float64")
    _same(F.irfft(F.rfft(tf.asarray(x)), n=9), x)
    _same(F.irfftn(F.rfftn(tf.asarray(x)), s=x.shape), x)


def test_overwrite_x_never_writes_the_input():
    for name in ONE_D + TRIG:
        dt = np.float64 if name in REAL_IN or name in TRIG else np.complex128
        x = tf.asarray(_data(name, (3, 8), dt))
        before = x.numpy().copy()
        getattr(F, name)(x, overwrite_x=True)
        assert np.array_equal(x.numpy(), before), name


def test_workers():
    x = tf.asarray(_data("workers", (64, 32), "complex128"))
    want = sf.fft(x.numpy())
    for w in (None, 1, 2, -1):
        _same(F.fft(x, workers=w), want)
    assert _util.workers("fft", -1) == __import__("os").cpu_count()
    with tf.num_threads(1):
        _same(F.rfft(x.real), sf.rfft(x.numpy().real))


def test_helpers_vs_scipy():
    for n in (1, 2, 7, 8):
        for d in (1.0, 0.25):
            _same(F.fftfreq(n, d), sf.fftfreq(n, d))
            _same(F.rfftfreq(n, d), sf.rfftfreq(n, d))
    assert F.fftfreq(4, dtype=tf.float32).dtype == tf.float32
    x = np.arange(30.0).reshape(5, 6)
    for axes in (None, 0, 1, (0, 1), (-1,), ()):
        for name in ("fftshift", "ifftshift"):
            got = getattr(F, name)(tf.asarray(x), axes=axes)
            assert np.array_equal(got.numpy(), getattr(sf, name)(x, axes=axes)), (name, axes)
    with pytest.raises(ValueError, match="tenferro.fft.fftfreq: n must be positive"):
        F.fftfreq(0)
    with pytest.raises(IndexError, match="tenferro.fft.fftshift: axis 2 is out of bounds"):
        F.fftshift(tf.asarray(x), axes=2)
    assert F.next_fast_len(1021) == sf.next_fast_len(1021)


def test_signatures_are_scipys():
    for name in F.__all__:
        if name in ("fftfreq", "rfftfreq"):   # no xp=; dtype= and device= (the Array API's)
            continue
        theirs = inspect.signature(getattr(sf, name))
        ours = inspect.signature(getattr(F, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.parameters.values()], name


def test_lazy_submodule():
    assert tf.fft is F and "fft" in tf.__all__ and "fft" in dir(tf)
    code = ("import sys, tenferro as tf; x = tf.ones(3); x.__array_namespace__(); "
            "print(sorted(m for m in ('tenferro.fft', 'scipy.fft', 'tenferro.array_api.fft') "
            "if m in sys.modules)); tf.fft.fft(x); print('scipy.fft' in sys.modules)")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["[]", "True"]   # a bare import loads no FFT


def test_devices_without_kernels_raise(accel_device):
    x = tf.ones(8, device=accel_device)
    with pytest.raises(tf.UnsupportedOperation, match="tenferro.fft.rfft.*%s"
                       % accel_device.type):
        F.rfft(x)
    with pytest.raises(tf.UnsupportedOperation, match="tenferro.fft.fftn"):
        F.fftn(x)
    assert F.fftshift(x).device == accel_device   # a roll: runs where x is


def test_array_api_extension():
    xp = tf.array_api
    x = tf.asarray(_data("xp", (4, 6), "complex64"))
    _same(xp.fft.fft(x, axis=0, norm="ortho"), sf.fft(x.numpy(), axis=0, norm="ortho"))
    _same(xp.fft.irfftn(x, s=(4, 5)), sf.irfftn(x.numpy(), s=(4, 5)))
    _same(xp.fft.fftfreq(5, d=2.0, dtype=xp.float32), sf.fftfreq(5, 2.0).astype(np.float32))
    with pytest.raises(TypeError):
        xp.fft.fft(x, 4)   # n is keyword-only in the standard


def test_numpy_functions_dispatch_to_tenferro_fft():
    x = tf.asarray(_data("np", (3, 8), "float32"))
    got = np.fft.rfft(x)
    assert isinstance(got, tf.Tensor) and got.dtype == tf.complex64
    _same(got, np.fft.rfft(x.numpy()))
    _same(np.fft.fftshift(x, axes=1), np.fft.fftshift(x.numpy(), axes=1))
