"""The CUDA driver's math prelude (tenferro/devices/cuda/cmath.py) against NumPy.

Every ``tf_<op>`` overload and every ``tf_convert`` pair runs in a one-line kernel,
compiled by the host compiler through the shim (tenferro/devices/cuda/shim.py: the
very CUDA C a GPU would run, on the CPU) and launched as the driver launches kernels;
results are compared with NumPy's ufuncs on inputs full of special values.  Exact
equality (NaN with NaN, the sign of zeros too) where NumPy is exact; a few ulp for the
transcendental functions.  NVRTC compiles the same kernels for two architectures.
"""
import concurrent.futures
import ctypes
import functools
import platform
import warnings

import numpy as np
import pytest

from tenferro import _dtypes
from tenferro._catalog import BINARY, COMPLEX_PARTS, UNARY
from tenferro.devices.cuda import cmath, nvrtc, shim

DTYPES = _dtypes.DTYPES
X86 = ("x86_64", "AMD64", "i386", "i686")
B, I32, I64, F32, F64, C64, C128 = DTYPES

# ---- the kernels ------------------------------------------------------------------------


def _name(kind, op, dtype, to=None):
    return "k_%s_%s_%s%s" % (kind, op, dtype.name, "_" + to.name if to is not None else "")


def _kernel(name, call, tin, tout, nargs):
    args = ", ".join("((const %s*)p.p[%d])[i]" % (tin, k) for k in range(nargs))
    return r"""
struct %(n)s_params { char* p[%(np)d]; long long m[1]; };
extern "C" __global__ void %(n)s(const %(n)s_params p) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < p.m[0]) ((%(tout)s*)p.p[%(nargs)d])[i] = %(call)s(%(args)s);
}
""" % dict(n=name, np=nargs + 1, tout=tout, nargs=nargs, call=call, args=args)


def _cases():
    """(name, kernel source) for every overload and cast."""
    out = []
    for nargs, support in ((1, cmath.UNARY_SUPPORT), (2, cmath.BINARY_SUPPORT)):
        for op, dts in sorted(support.items()):
            for d in sorted(dts, key=DTYPES.index):
                n = _name("u" if nargs == 1 else "b", op, d)
                out.append((n, _kernel(n, "tf_" + op, cmath.CTYPE[d],
                                       cmath.CTYPE[cmath.OUT_DTYPE(op, d)], nargs)))
    for src in DTYPES:
        for dst in DTYPES:
            n = _name("c", "convert", src, dst)
            call = "tf_convert<%s, %s>" % (cmath.CTYPE[dst], cmath.CTYPE[src])
            out.append((n, _kernel(n, call, cmath.CTYPE[src], cmath.CTYPE[dst], 1)))
        n = _name("t", "clip", src)
        out.append((n, _kernel(n, "tf_clip", cmath.CTYPE[src], cmath.CTYPE[src], 3)))
    return out


NBATCH = 4   # host libraries (compiled in parallel) and NVRTC programs


def _batches():
    cases = _cases()
    return [cases[k::NBATCH] for k in range(NBATCH)]


@functools.lru_cache(maxsize=None)
def _libraries():
    def build(batch):
        return shim.compile_host(cmath.PRELUDE + "".join(s for _, s in batch),
                                 [(n, False) for n, _ in batch])
    batches = _batches()
    with concurrent.futures.ThreadPoolExecutor(NBATCH) as pool:
        libs = list(pool.map(build, batches))
    return {n: lib for lib, batch in zip(libs, batches) for n, _ in batch}


def _works(probe):
    try:
        probe()
    except RuntimeError:
        return False
    return True


requires_cxx = pytest.mark.skipif(not _works(shim.compiler_version),
                                  reason="no host C++ compiler")
requires_nvrtc = pytest.mark.skipif(not _works(nvrtc.version),
                                    reason="cuda-python/NVRTC not installed")


def run(kind, op, dtype, *args, to=None):
    """The kernel's results for the arrays ``args`` (of ``dtype``)."""
    name = _name(kind, op, dtype, to)
    fn = getattr(_libraries()[name], "tf_launch_" + name)
    args = [np.ascontiguousarray(a, dtype) for a in args]
    n = args[0].size
    odt = to if to is not None else (dtype if kind == "t" else cmath.OUT_DTYPE(op, dtype))
    out = np.empty(n, odt)
    params = np.array([a.ctypes.data for a in args] + [out.ctypes.data, n], np.int64)
    fn((n + 127) // 128, 1, 1, 128, 1, 1, params.ctypes.data, 0)
    return out


# ---- inputs -------------------------------------------------------------------------------

def _ints(dtype):
    info = np.iinfo(dtype)
    bits = info.bits
    v = [0, 1, -1, 2, -2, 3, -3, 5, -7, 10, 100, -100, 12345, -12345, bits - 1, bits,
         bits + 1, -bits, 2 * bits, info.max, info.min, info.max - 1, info.min + 1,
         info.max // 2, info.min // 3]
    return np.array(v, dtype)


def _floats(dtype):
    fi = np.finfo(dtype)
    v = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
         3.0, -3.0, 2.0, 0.1, -0.1, 0.9999, -0.9999, 1.0001, 1e-5, -1e-5, 10.0, -10.0,
         30.0, -30.0, 100.0, -100.0, 88.5, -88.5, 700.0, -700.0, 710.0, 1e4, 1e6, -1e6,
         1e20, -1e20, 1e300, -1e300, np.pi, -np.pi, np.pi / 2, 3.0e9, -3.0e9, 1e19, -1e19,
         float(fi.max), float(-fi.max), float(fi.tiny), float(-fi.tiny),
         float(fi.smallest_subnormal), float(-fi.smallest_subnormal), 1e-30, -1e-300]
    with np.errstate(over="ignore"):
        fixed = np.array(v, dtype)
    rng = np.random.default_rng(7)
    rand = np.concatenate([rng.standard_normal(24), rng.uniform(-5, 5, 24),
                           np.exp(rng.uniform(-40, 40, 16)) * rng.choice([-1, 1], 16)])
    return np.concatenate([fixed, rand.astype(dtype)])


_PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-20, 3.0, -0.75, 1e200, np.inf, -np.inf, np.nan]


def _complexes(dtype):
    re, im = np.meshgrid(_PARTS, _PARTS)
    fixed = np.zeros(re.size, np.complex128)
    rng = np.random.default_rng(11)
    mag = np.exp(rng.uniform(-8, 8, 80))
    ang = rng.uniform(-np.pi, np.pi, 80)
    unit = np.exp(1j * rng.uniform(-np.pi, np.pi, 16))            # |z| = 1: log's hard case
    near = np.array([1 + 1e-9j, -1 + 1e-9j, 1 - 1e-9j, 1e-9 + 1j, 1e-9 - 1j, 0.5 + 1e-9j,
                     2 + 1e-300j, -2 - 1e-300j, 1e-8 + 1e-8j, 1.0001 + 0j, 0.9999 - 0j])
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.concatenate([fixed, mag * np.exp(1j * ang), unit, near]).astype(dtype)
    # NumPy's (x + 1j * y) makes NaN parts contagious: set the parts one by one
    with np.errstate(over="ignore"):
        out.real[:fixed.size] = re.ravel()
        out.imag[:fixed.size] = im.ravel()
    return out


def values(dtype):
    if dtype == B:
        return np.array([False, True])
    if dtype.kind == "i":
        return _ints(dtype)
    if dtype.kind == "f":
        return _floats(dtype)
    return _complexes(dtype)


def pairs(dtype, limit=2500):
    """All pairs of values(dtype) (a sample of them beyond ``limit``)."""
    v = values(dtype)
    x, y = [a.ravel() for a in np.meshgrid(v, v)]
    if x.size > limit:
        keep = np.random.default_rng(3).choice(x.size, limit, replace=False)
        x, y = x[keep], y[keep]
    return x, y


# ---- references and comparisons ----------------------------------------------------------

def _sigmoid(x):
    if x.dtype == C128:
        return 1 / (1 + np.exp(-x))
    wide = C128 if x.dtype.kind == "c" else F64     # (then rounded once)
    return (1 / (1 + np.exp(-x.astype(wide)))).astype(x.dtype)


def _erf(x):
    import math
    return np.array([math.erf(v) for v in x.astype(np.float64)]).astype(x.dtype)


_REFS = {"sigmoid": _sigmoid, "erf": _erf, "rsqrt": lambda x: 1 / np.sqrt(x),
         "round": np.rint, "real": np.real, "imag": np.imag, "angle": np.angle}
# exact for every dtype; the rest are exact for integers and bools only
_EXACT = {"negative", "positive", "sign", "square", "reciprocal", "sqrt", "floor", "ceil",
          "trunc", "round", "conj", "real", "imag", "isnan", "isinf", "isfinite",
          "logical_not", "bitwise_invert", "abs", "rsqrt",
          "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "maximum",
          "minimum", "fmax", "fmin", "copysign", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
          "right_shift"}
_INEXACT_COMPLEX = {"abs", "sign", "sqrt", "rsqrt"}   # hypot/csqrt: libm's, not IEEE's
ULPS = 4
# cmath's complex product has one FMA a part, as NumPy's SIMD loops (FMA3, AVX-512, NEON);
# a NumPy built for a CPU without FMA rounds each product (an ulp apart; inf - inf: NaN)
_FUSED = {"multiply", "square"}
NUMPY_FUSES = np.square(np.full(64, 1e-20 + 1e-20j))[0].real != 0
# max(-0.0, 0.0): NumPy's sign differs between its SIMD and scalar loops (IEEE leaves it open)
_ZERO_SIGN_FREE = {"maximum", "minimum", "fmax", "fmin"}


def reference(op, *args):
    fn = _REFS.get(op) or (UNARY[op].type_rule if op in UNARY else BINARY[op].type_rule)
    with np.errstate(all="ignore"):
        return fn(*args)


def same(got, ref):
    """Elementwise: equal values, NaN where NaN, zeros of the same sign."""
    if got.dtype.kind == "c":
        return same(got.real, ref.real) & same(got.imag, ref.imag)
    if got.dtype.kind == "f":
        both_nan = np.isnan(got) & np.isnan(ref)
        return both_nan | ((got == ref) & (np.signbit(got) == np.signbit(ref)))
    return got == ref


def close(got, ref, ulps=ULPS, cond=1, zero_signs=True):
    """Elementwise: same(), or within ``ulps * cond`` units in the last place of the
    reference: of |reference| for each part of a complex number (of the part itself
    where |reference| is infinite).  NaN-ness, infinities and the signs of zeros must
    match."""
    with np.errstate(all="ignore"):
        if got.dtype.kind == "c":
            mag = np.abs(ref.astype(np.clongdouble))
            return (_close(got.real, ref.real, ulps * cond, mag, zero_signs)
                    & _close(got.imag, ref.imag, ulps * cond, mag, zero_signs))
        return _close(got, ref, ulps * cond, np.abs(ref.astype(np.longdouble)), zero_signs)


def _close(got, ref, ulps, mag, zero_signs):
    part = np.abs(ref.astype(np.longdouble))
    mag = np.where(np.isfinite(mag), mag, part)
    fi = np.finfo(got.dtype)
    tol = ulps * np.maximum(fi.eps * mag, fi.smallest_subnormal)   # 1 ulp <= eps * |x|
    err = np.abs(got.astype(np.longdouble) - ref.astype(np.longdouble))
    fin = np.isfinite(got) & np.isfinite(ref)
    zeros_differ = (got == 0) & (ref == 0) & (np.signbit(got) != np.signbit(ref)) & zero_signs
    return same(got, ref) | (fin & (err <= tol) & ~zeros_differ)


def _power_cond(x, y):
    """The condition number of exp(y log x): NumPy's complex64 power is computed in
    float (ours in double), so its own error grows with |y log x|."""
    with np.errstate(all="ignore"):
        return 1 + np.abs(y.astype(C128)) * (np.abs(np.log(np.abs(x.astype(C128)))) + np.pi)


def check(op, dtype, got, ref, args, exact):
    ref = np.asarray(ref)
    if ref.dtype != got.dtype:
        with np.errstate(all="ignore"):
            ref = ref.astype(got.dtype)
    if op in _ZERO_SIGN_FREE and got.dtype.kind == "f":
        ref = np.where(ref == 0, got, ref)    # NumPy's own zero signs depend on its loop
    if op in _FUSED and dtype.kind == "c" and not NUMPY_FUSES:
        good = close(got, ref, ulps=2) | ~np.isfinite(ref)
    elif op == "power" and dtype.kind == "c":
        # (the sign of an underflowed part follows cos(huge): as ill-conditioned)
        good = close(got, ref, cond=_power_cond(*args), zero_signs=False)
    else:
        good = same(got, ref) if exact else close(got, ref)
    if not good.all():
        bad = np.flatnonzero(~good)[:8]
        rows = ["%s -> %r, NumPy %r" % (tuple(a[k] for a in args), got[k], ref[k])
                for k in bad]
        pytest.fail("tf_%s(%s): %d of %d differ from NumPy, e.g.\n  %s"
                    % (op, dtype, (~good).sum(), good.size, "\n  ".join(rows)))


def _exact(op, dtype):
    if dtype.kind in "bi":
        return True
    return op in _EXACT and not (dtype.kind == "c" and op in _INEXACT_COMPLEX)


def _params(support):
    return [pytest.param(op, d, id="%s-%s" % (op, d.name))
            for op, dts in sorted(support.items()) for d in sorted(dts, key=DTYPES.index)]


# ---- the tests ---------------------------------------------------------------------------

@requires_cxx
@pytest.mark.parametrize("op,dtype", _params(cmath.UNARY_SUPPORT))
def test_unary_matches_numpy(op, dtype):
    x = values(dtype)
    check(op, dtype, run("u", op, dtype, x), reference(op, x), (x,), _exact(op, dtype))


@requires_cxx
@pytest.mark.parametrize("op,dtype", _params(cmath.BINARY_SUPPORT))
def test_binary_matches_numpy(op, dtype):
    x, y = pairs(dtype)
    if op == "power" and dtype.kind == "i":
        x, y = x[y >= 0], y[y >= 0]      # negative exponents: the host raises, as NumPy
    check(op, dtype, run("b", op, dtype, x, y), reference(op, x, y), (x, y),
          _exact(op, dtype))


@requires_cxx
@pytest.mark.parametrize("src", DTYPES, ids=lambda d: d.name)
def test_convert_matches_astype(src):
    """Every cast, with NumPy's x86-64 values for NaN and out-of-range floats to ints
    (INT_MIN: C leaves them undefined, so elsewhere only the defined ones count)."""
    x = values(src)
    for dst in DTYPES:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            ref = x.astype(dst)
        got = run("c", "convert", src, x, to=dst)
        keep = np.ones(x.size, bool)
        if src.kind in "fc" and dst.kind == "i" and platform.machine() not in X86:
            lim = float(2 ** (dst.itemsize * 8 - 1))
            keep = (x.real >= -lim) & (x.real < lim)
        check("convert->" + dst.name, src, got[keep], ref[keep], (x[keep],), True)


@requires_cxx
def test_tolerances_can_fail():
    """A result off by 8 ulp fails close(); a zero of the wrong sign fails same()."""
    x = values(F64)[60:70]
    ref = np.sin(x)
    assert close(ref, ref).all() and not close(ref * (1 + 8 * 2.0 ** -52), ref).any()
    z = values(C64)[-100:-30]
    w = np.exp(z[(np.abs(z) < 10) & (np.abs(z) > 0.1)])
    bad = w + np.abs(w) * np.float32(8 * 2.0 ** -23)
    assert close(w, w).all() and not close(bad.astype(C64), w).any()
    assert not same(np.array([-0.0]), np.array([0.0])).any()
    assert same(np.array([np.nan]), np.array([np.nan])).all()


def test_support_matches_the_cpu_driver():
    """An overload for exactly the (op, dtype) pairs the CPU driver has a loop for, with
    the CPU's result dtype: the CUDA driver's coverage is the CPU's."""
    from tenferro._kernels import _elementwise as cpu
    from tenferro.devices import get_driver

    impl = get_driver("cpu").implementations
    cpu_loops = dict(cpu.UNARY_LOOPS, **cpu.BINARY_LOOPS)
    assert set(cmath.UNARY_SUPPORT) == set(UNARY) | set(COMPLEX_PARTS)
    assert set(cmath.BINARY_SUPPORT) == set(BINARY)
    for op, dts in list(cmath.UNARY_SUPPORT.items()) + list(cmath.BINARY_SUPPORT.items()):
        loops = cpu_loops[op]
        assert {d.name for d in dts} == set(loops), op
        for d in dts:
            out = cmath.OUT_DTYPE(op, d)
            assert out.name == loops[d.name], (op, d)
            x = np.ones(3, d)
            r = impl[op](*([x] * (1 if op in cmath.UNARY_SUPPORT else 2)), out_dtype=out)
            assert r.dtype == out, (op, d)
        for d in set(DTYPES) - dts:
            with pytest.raises(KeyError):
                cmath.OUT_DTYPE(op, d)
    assert set(cmath.CTYPE) == set(DTYPES)


@requires_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_nvrtc_compiles_every_overload(arch):
    batches = _batches()

    def build(k):
        src = cmath.PRELUDE + "".join(s for _, s in batches[k])
        return nvrtc.compile_cubin(src, "cmath_%d.cu" % k, arch)
    with concurrent.futures.ThreadPoolExecutor(NBATCH) as pool:
        for cubin in pool.map(build, range(NBATCH)):
            assert cubin.startswith(b"\x7fELF")


@requires_cxx
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_clip_matches_numpy(dtype):
    """tf_clip: NumPy's clip, NaNs, zero signs and its complex order included."""
    x, lo = pairs(dtype, limit=600)
    hi = np.roll(lo, 7)
    with np.errstate(all="ignore"):
        ref = np.clip(x, lo, hi)
    check("clip", dtype, run("t", "clip", dtype, x, lo, hi), ref, (x, lo, hi), True)
