"""Differential fuzz test against NumPy/SciPy (hypothesis): conversion, elementwise ops with
broadcasting over every dtype pair, reductions, getitem, setitem, einsum and linalg, on
exotic memory (non-native byte order, unaligned, overlapping and zero-stride views,
read-only, Fortran order, negative strides, 0-d, empty, lists and Python scalars).

Every case gives NumPy's value (the dtype tenferro maps NumPy's result to, the shape, and
the values: exact for ints and bools, within a per-dtype tolerance otherwise) or a clear
exception: where NumPy raises too, or where the case is a documented tenferro limitation
(``LIMITATIONS`` below).  Never a crash: cases that feed exotic memory to the Cython
kernels, and every linalg case, run in a subprocess worker (this file run as a script),
so a segfault becomes a test failure naming the case.

A case is plain JSON (op, parameters, array specs), so a failure prints a case that
``check_case`` replays.  Budgets come from the loaded hypothesis profile (tests/conftest.py);
``TENFERRO_FUZZ_EXAMPLES=2000`` runs a larger budget locally.
"""
import json
import os
import signal
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.linalg as sla

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conftest import sample, stable_rng  # noqa: E402

import tenferro as tf  # noqa: E402
import tenferro.linalg as tl  # noqa: E402

DTYPES = ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"]

# -- documented tenferro limitations ---------------------------------------------------
# (op, predicate on the case, exception type, message fragment): where NumPy returns a
# value and tenferro raises this exception instead, by design.
LIMITATIONS = [
    # tenferro has no uint64 and no object dtype: Python ints beyond int64 do not convert
    ("convert", lambda c: True, OverflowError, ""),
    # NumPy accepts a boolean mask of length 0 on an axis of length 1 (x[..., []] on a
    # (2, 1) array); tenferro requires the mask to match the axis, as the Array API says
    ("getitem", lambda c: True, IndexError, "boolean index of shape (0,)"),
    ("setitem", lambda c: True, IndexError, "boolean index of shape (0,)"),
    # NumPy checks no index bounds when the integer index arrays broadcast to size 0
    # (x[:, [], [0]] on a (0, 0, 0) array); tenferro checks every index
    ("getitem", lambda c: _has_empty_index(c["key"]), IndexError, "out of bounds"),
    ("setitem", lambda c: _has_empty_index(c["key"]), IndexError, "out of bounds"),
]


def _has_empty_index(key):
    return isinstance(key, list) and (key[:1] == ["arr"] and not key[1] or any(
        _has_empty_index(k) for k in key if isinstance(k, list)))

# Cases whose NumPy value is platform-dependent (C undefined behaviour in NumPy's own
# loops): not compared.  (op, name, predicate on the host inputs)
UNDEFINED = [
    # integer 1/0: NumPy casts inf to the integer type (INT_MIN for int32/int64, 0 for
    # int8, the loop NumPy picks for bool)
    ("unary", "reciprocal", lambda h: np.asarray(h).dtype.kind in "biu"
     and not np.all(np.asarray(h))),
]

# A clear exception: a built-in error NumPy would raise, or one of tenferro's own.
CLEAR = (TypeError, ValueError, IndexError, OverflowError, ZeroDivisionError,
         NotImplementedError, tf.TenferroError, np.linalg.LinAlgError)

# NumPy result dtypes tenferro widens (docs/tensors.md)
_WIDEN = {"float16": "float32", "int8": "int32", "int16": "int32", "uint8": "int32",
          "uint16": "int32", "uint32": "int64"}

# rtol per NumPy result dtype: elementwise, and reductions/contractions/linalg
RTOL = {"float16": 2e-3, "float32": 5e-6, "float64": 1e-13, "complex64": 5e-6,
        "complex128": 1e-13}
RTOL_ACC = {"float16": 2e-3, "float32": 5e-5, "float64": 1e-11, "complex64": 5e-5,
            "complex128": 1e-11}


def tf_dtype(np_dtype):
    """The dtype tenferro gives where NumPy's result has ``np_dtype``."""
    d = np.dtype(np_dtype).newbyteorder("=")
    return np.dtype(_WIDEN.get(d.name, d.name))


# -- array specs -----------------------------------------------------------------------
# {"shape", "dtype", "layout", "seed"}: the layout says how the values are stored (or
# whether they go in as a nested list / Python scalar).

SAFE_LAYOUTS = ["C", "F", "neg", "step", "readonly", "list", "scalar"]
EXOTIC_LAYOUTS = ["byteswap", "unaligned", "overlap", "zero_stride"]


def _values(spec):
    return np.array(sample(stable_rng(spec["seed"]), tuple(spec["shape"]), spec["dtype"]))


def make_host(spec):
    """The host object of ``spec``: an ndarray in its layout, a nested list or a scalar."""
    shape, dtype, layout = tuple(spec["shape"]), np.dtype(spec["dtype"]), spec["layout"]
    v = _values(spec)
    if layout == "list":
        return v.tolist()
    if layout == "scalar":
        return v.item() if v.ndim == 0 else v.tolist()
    if layout in ("overlap", "zero_stride"):
        # strides of 0 or 1 elements per axis: windows over a short base, or repeats
        steps = stable_rng(spec["seed"], "steps").integers(0, 2 if layout == "overlap"
                                                           else 1, len(shape))
        if layout == "overlap" and len(shape):
            steps[-1] = 1
        n = 1 + sum((k - 1) * s for k, s in zip(shape, steps) if k)
        base = sample(stable_rng(spec["seed"], "base"), (max(n, 1),), dtype)
        return np.lib.stride_tricks.as_strided(
            base, shape, tuple(int(s) * dtype.itemsize for s in steps), writeable=False)
    return relayout(v, layout)


def to_tf(host):
    """What tenferro gets: ndarrays through ``tf.asarray``, lists and scalars as they are
    (the ops accept array-likes, as NumPy's functions do)."""
    return tf.asarray(host) if isinstance(host, np.ndarray) else host


# -- the ops ---------------------------------------------------------------------------

UNARY = ["negative", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "arctan", "square",
         "sign", "floor", "ceil", "trunc", "rint", "expm1", "log1p", "reciprocal", "conj",
         "real", "imag", "invert", "logical_not", "isnan", "isfinite", "sinh", "arcsinh",
         "log2", "exp2", "positive"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
          "equal", "not_equal", "less", "greater_equal", "arctan2", "hypot",
          "floor_divide", "remainder", "bitwise_and", "bitwise_xor", "logical_and",
          "logical_or", "copysign", "logaddexp", "power"]
REDUCE = ["sum", "prod", "mean", "max", "min", "any", "all", "argmax", "argmin", "std",
          "var"]
LINALG = ["solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "svdvals",
          "svd", "qr", "lu_solve", "solve_triangular", "norm", "expm", "pinv", "lstsq",
          "eigvals", "cho_solve"]


def _np_fn(name):
    return getattr(np, name)


def _key_from_json(k):
    """A getitem/setitem key from its JSON form."""
    if isinstance(k, list):
        if k and k[0] == "arr":
            return np.array(k[1], dtype=k[2])
        return tuple(_key_from_json(e) for e in k)
    if isinstance(k, dict):
        return slice(k["start"], k["stop"], k["step"])
    if k == "...":
        return Ellipsis
    if k == "None":
        return None
    return k


def _tf_key(key):
    if isinstance(key, tuple):
        return tuple(_tf_key(k) for k in key)
    return tf.asarray(key) if isinstance(key, np.ndarray) else key


def _linalg_input(spec, name):
    """A well-conditioned (batched) matrix for ``name`` with the layout of ``spec``."""
    a = np.asarray(_values(spec))
    n = a.shape[-1]
    a = a.astype(np.result_type(a.dtype, np.float32)) if a.dtype.kind in "biu" else a
    eye = np.eye(n, dtype=a.dtype)
    if name in ("cholesky", "eigh", "eigvalsh", "cho_solve"):
        a = a @ np.conj(np.swapaxes(a, -1, -2)) + n * eye
    elif name in ("solve_triangular",):
        a = np.triu(a) + (2 + n) * eye
    elif name == "expm":
        a = a / (4 * n)
    elif name not in ("svdvals", "svd", "norm", "qr", "pinv", "lstsq"):
        a = a + (2 + n) * eye * np.sign(np.real(a.reshape(-1)[:1]) + 0.5).astype(a.dtype)
    layout = spec["layout"]
    return relayout(a, "C" if layout in ("overlap", "zero_stride") else layout)


def relayout(v, layout):
    """The values of ndarray ``v`` stored in ``layout`` (a fresh array or view)."""
    if layout == "C":
        return v.copy()
    if layout == "F":
        return np.asfortranarray(v) if v.ndim else v.copy()  # asfortranarray makes 0-d 1-d
    if layout == "neg":
        return np.flip(np.flip(v).copy())
    if layout == "step":
        big = np.zeros(tuple(2 * n + 1 for n in v.shape), v.dtype)
        view = big[tuple(slice(1, None, 2) for _ in v.shape) + (Ellipsis,)]
        view[...] = v
        return view
    if layout == "readonly":
        w = v.copy()
        w.flags.writeable = False
        return w
    if layout == "byteswap":
        return v.astype(v.dtype.newbyteorder(">" if sys.byteorder == "little" else "<"))
    if layout == "unaligned":
        a = np.frombuffer(bytearray(v.nbytes + 1), v.dtype, count=v.size, offset=1)
        a = a.reshape(v.shape)
        a[...] = v
        return a
    raise ValueError(layout)


def _linalg_fns(name, case):
    """(tenferro function, SciPy function, postprocess) for linalg case ``name``: the
    postprocess maps either result to gauge-invariant arrays to compare."""
    same = lambda r: r if isinstance(r, tuple) else (r,)  # noqa: E731
    if name == "svd":
        return (lambda a: tl.svd(a, compute_uv=False),
                lambda a: sla.svd(a, compute_uv=False), same)
    if name == "qr":  # |R| is unique up to column signs/phases of Q
        return (lambda a: tl.qr(a, mode="r")[0], lambda a: sla.qr(a, mode="r")[0],
                lambda r: (np.abs(np.asarray(r)),))
    if name == "eigh":
        return (lambda a: tl.eigh(a, eigvals_only=True),
                lambda a: sla.eigh(a, eigvals_only=True), same)
    if name == "eigvals":
        srt = lambda r: (np.sort_complex(np.asarray(r)),)  # noqa: E731
        return tl.eigvals, sla.eigvals, srt
    if name == "lu_solve":
        b = lambda a: np.ones(a.shape[-1], a.dtype)  # noqa: E731
        return (lambda a: tl.lu_solve(tl.lu_factor(a), tf.asarray(b(a))),
                lambda a: sla.lu_solve(sla.lu_factor(a), b(a)), same)
    if name == "cho_solve":
        b = lambda a: np.arange(1, a.shape[-1] + 1).astype(a.dtype)  # noqa: E731
        return (lambda a: tl.cho_solve(tl.cho_factor(a), tf.asarray(b(a))),
                lambda a: sla.cho_solve(sla.cho_factor(a), b(a)), same)
    if name in ("solve", "solve_triangular", "lstsq"):
        b = lambda a: np.arange(1, a.shape[-1] + 1).astype(a.dtype)  # noqa: E731
        if name == "lstsq":
            return (lambda a: tl.lstsq(a, tf.asarray(b(a)))[0],
                    lambda a: sla.lstsq(a, b(a))[0], same)
        return (lambda a: getattr(tl, name)(a, tf.asarray(b(a))),
                lambda a: getattr(sla, name)(a, b(a)), same)
    if name == "slogdet":
        return tl.slogdet, np.linalg.slogdet, lambda r: tuple(r)
    return getattr(tl, name), getattr(sla, name), same


def build(case):
    """(tenferro thunk, NumPy thunk, comparison) for ``case``; the thunks take no
    arguments and build their own inputs (so the exotic arrays are made in the worker)."""
    op = case["op"]
    specs = case.get("args", [])
    if op == "convert":
        h = make_host(specs[0])
        return (lambda: tf.asarray(h), lambda: np.asarray(h), "exact")
    if op == "unary":
        h = make_host(specs[0])
        f = case["name"]
        # NumPy's functions read a Python scalar's attributes (np.real(True) is 1)
        return (lambda: getattr(tf, f)(to_tf(h)), lambda: _np_fn(f)(np.asarray(h)),
                "elementwise")
    if op == "binary":
        h0, h1 = make_host(specs[0]), make_host(specs[1])
        f = case["name"]
        return (lambda: getattr(tf, f)(to_tf(h0), to_tf(h1)),
                lambda: _np_fn(f)(h0, h1), "elementwise")
    if op == "operator":  # the Tensor's own operators: x OP y with a tensor on the left
        h0, h1 = make_host(specs[0]), make_host(specs[1])
        f = case["name"]
        import operator
        fn = getattr(operator, f)
        return (lambda: fn(tf.asarray(np.asarray(h0)), to_tf(h1)),
                lambda: fn(np.asarray(h0), h1), "elementwise")
    if op == "reduce":
        h = make_host(specs[0])
        f, kw = case["name"], dict(case["kw"])
        if isinstance(kw.get("axis"), list):
            kw["axis"] = tuple(kw["axis"])
        return (lambda: getattr(tf, f)(to_tf(h), **kw), lambda: _np_fn(f)(h, **kw),
                "accumulate")
    if op == "getitem":
        h = make_host(specs[0])
        key = _key_from_json(case["key"])
        return (lambda: tf.asarray(h)[_tf_key(key)], lambda: np.asarray(h)[key], "exact")
    if op == "setitem":
        dst = _values(specs[0])
        val = make_host(specs[1]) if len(specs) > 1 else None
        key = _key_from_json(case["key"])
        src_key = _key_from_json(case["src_key"]) if "src_key" in case else None

        def run_tf():
            t = tf.asarray(dst.copy())
            t[_tf_key(key)] = t[_tf_key(src_key)] if src_key is not None else to_tf(val)
            return t

        def run_np():
            a = dst.copy()
            a[key] = a[src_key] if src_key is not None else val
            return a
        return run_tf, run_np, "exact"
    if op == "einsum":
        hs = [make_host(s) for s in specs]
        sub = case["subscripts"]
        return (lambda: tf.einsum(sub, *[to_tf(h) for h in hs]),
                lambda: np.einsum(sub, *hs), "accumulate")
    if op == "linalg":
        name = case["name"]
        a = _linalg_input(specs[0], name)
        f_tf, f_sp, post = _linalg_fns(name, case)
        # SciPy reads its reference from a native C copy: scipy.linalg.inv of a
        # byte-swapped float32 matrix returns garbage, unaligned input raises (SciPy 1.17)
        native = np.array(a, a.dtype.newbyteorder("="), order="C", copy=True)
        one = lambda r: r[0] if len(r) == 1 else r  # noqa: E731
        return (lambda: one(post(f_tf(tf.asarray(a)))), lambda: one(post(f_sp(native))),
                "linalg")
    raise ValueError(op)


def _limitation(case, err):
    for op, pred, etype, frag in LIMITATIONS:
        if op == case["op"] and isinstance(err, etype) and frag in str(err) and pred(case):
            return True
    return False


def _compare(got, want, how, case):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (type(got), case)
        for g, w in zip(got, want):
            _compare(g, w, how, case)
        return
    want = np.asarray(want)
    if how == "linalg":  # tenferro returns tensors; SciPy's dtypes are the reference
        got = np.asarray(got.detach() if isinstance(got, tf.Tensor) else got)
    else:
        assert isinstance(got, tf.Tensor), ("not a tensor", type(got), case)
        assert got.dtype == tf_dtype(want.dtype), ("dtype", got.dtype, want.dtype, case)
        got = got.numpy()
    assert got.shape == want.shape, ("shape", got.shape, want.shape, case)
    if want.dtype.kind in "biu" and got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=json.dumps(case))
        return
    # linalg: the input's precision (SciPy returns some float32 results as float64)
    name = np.dtype(got.dtype if how == "linalg" else want.dtype).newbyteorder("=").name
    rtol = (RTOL if how in ("elementwise", "exact") else RTOL_ACC).get(name, 1e-13)
    if how == "exact":
        rtol = 0
    scale = 1.0
    if how in ("accumulate", "linalg") and want.size:
        fin = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(fin.max()) if fin.size else 1.0) * 4
    np.testing.assert_allclose(got, want.astype(got.dtype) if got.dtype.kind == "c"
                               or want.dtype.kind != "c" else want, rtol=rtol,
                               atol=rtol * scale, equal_nan=True, err_msg=json.dumps(case))


def check_case(case):
    """Run ``case`` in tenferro and NumPy; AssertionError unless tenferro gives NumPy's
    value or a clear exception where NumPy raises (or a documented limitation)."""
    if any(op == case["op"] and name == case.get("name") and pred(
            *[make_host(a) for a in case["args"]]) for op, name, pred in UNDEFINED):
        return
    run_tf, run_np, how = build(case)
    np_err = tf_err = None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with warnings.catch_warnings():  # what NumPy deprecates counts as an error
                warnings.simplefilter("error", DeprecationWarning)
                want = run_np()
        except Exception as e:  # noqa: BLE001 - any NumPy error makes "raise" the answer
            np_err = e
        try:
            got = run_tf()
        except Exception as e:  # noqa: BLE001 - judged below
            tf_err = e
    if tf_err is not None:
        assert isinstance(tf_err, CLEAR) and str(tf_err), (
            "unclear exception %s: %s" % (type(tf_err).__name__, tf_err), case)
        assert np_err is not None or _limitation(case, tf_err), (
            "tenferro raised %s: %s where NumPy returns a value" % (
                type(tf_err).__name__, tf_err), case)
        return
    assert np_err is None, ("tenferro returned a value where NumPy raises %s: %s" % (
        type(np_err).__name__, np_err), case)
    _compare(got, want, how, case)


# -- subprocess worker ------------------------------------------------------------------

def run_in_subprocess(cases, timeout=120):
    """Check ``cases`` in a fresh interpreter; a crash fails naming the case it hit."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker"],
                          input=json.dumps(cases), capture_output=True, text=True,
                          cwd=root, env=env, timeout=timeout)
    started, failures = None, []
    for line in proc.stdout.splitlines():
        if line.startswith("START "):
            started = int(line[6:])
        elif line.startswith("FAIL "):
            failures.append(json.loads(line[5:]))
    assert proc.returncode == 0, "worker died (rc %d) on case %s\nstderr: %s" % (
        proc.returncode, json.dumps(cases[started]) if started is not None else "?",
        proc.stderr[-2000:])
    assert started == len(cases) - 1, ("worker stopped early", proc.stderr[-2000:])
    assert not failures, "\n".join("%s\n  %s" % (f["msg"], json.dumps(f["case"]))
                                   for f in failures)


def _worker():
    cases = json.loads(sys.stdin.read())
    for i, case in enumerate(cases):
        print("START %d" % i, flush=True)
        if case["op"] == "_segfault":  # the crash-reporting test's deliberate crash
            os.kill(os.getpid(), signal.SIGSEGV)
        try:
            check_case(case)
        except Exception as e:  # noqa: BLE001 - reported to the parent
            print("FAIL " + json.dumps({"case": case, "msg": "%s: %s" % (
                type(e).__name__, str(e)[:1500])}), flush=True)


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    _worker()
    sys.exit(0)

# -- strategies ------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def budget(ci_examples):
    """Settings for a fuzz test: the loaded profile (tests/conftest.py: derandomized in
    CI), at most ``ci_examples`` examples unless TENFERRO_FUZZ_EXAMPLES asks for more."""
    current = settings()
    local = os.environ.get("TENFERRO_FUZZ_EXAMPLES")
    n = int(local) if local else min(ci_examples, current.max_examples)
    return settings(current, max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)
seeds = st.integers(0, 2**16)


@st.composite
def specs(draw, shape=None, dtypes=DTYPES, layouts=SAFE_LAYOUTS):
    shape = draw(shapes) if shape is None else shape
    layout = draw(st.sampled_from(layouts))
    if layout == "scalar" and len(shape):
        layout = "C"
    return {"shape": list(shape), "dtype": draw(st.sampled_from(dtypes)),
            "layout": layout, "seed": draw(seeds)}


@st.composite
def broadcast_pair(draw):
    """Two shapes that broadcast (or, rarely, deliberately do not)."""
    s = draw(shapes)
    drop = draw(st.integers(0, len(s)))
    t = [1 if draw(st.booleans()) else n for n in s[drop:]]
    pair = [s, tuple(t)]
    if draw(st.integers(0, 9)) == 0 and len(s):  # a mismatch NumPy rejects
        pair[1] = tuple(t[:-1]) + (s[-1] + 2,)
    if draw(st.booleans()):
        pair.reverse()
    return pair


@st.composite
def elementwise_cases(draw, layouts=SAFE_LAYOUTS):
    if draw(st.booleans()):
        return {"op": "unary", "name": draw(st.sampled_from(UNARY)),
                "args": [draw(specs(layouts=layouts))]}
    s0, s1 = draw(broadcast_pair())
    kind = draw(st.sampled_from(["binary", "binary", "operator"]))
    name = draw(st.sampled_from(BINARY if kind == "binary" else
                                ["add", "sub", "mul", "truediv", "floordiv", "mod",
                                 "pow", "lt", "eq", "and_", "xor"]))
    return {"op": kind, "name": name,
            "args": [draw(specs(s0, layouts=layouts)), draw(specs(s1, layouts=layouts))]}


@st.composite
def reduce_cases(draw, layouts=SAFE_LAYOUTS):
    spec = draw(specs(layouts=layouts))
    nd = len(spec["shape"])
    kw = {}
    choice = draw(st.sampled_from(["none", "int", "tuple"]))
    if choice == "int" and nd:
        kw["axis"] = draw(st.integers(-nd, nd - 1))
    elif choice == "tuple" and nd:
        kw["axis"] = sorted(draw(st.sets(st.integers(0, nd - 1), min_size=1)))
    name = draw(st.sampled_from(REDUCE))
    if name in ("argmax", "argmin") and isinstance(kw.get("axis"), list):
        kw.pop("axis")
    if draw(st.booleans()) and name not in ("argmax", "argmin"):
        kw["keepdims"] = True
    return {"op": "reduce", "name": name, "kw": kw, "args": [spec]}


@st.composite
def keys(draw, shape, advanced=True):
    """A getitem key for ``shape`` in JSON form (sometimes out of range)."""
    parts, dim = [], 0
    n_ell = 0
    while dim < len(shape) and draw(st.integers(0, 3)):
        n = shape[dim]
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "ell", "arr", "mask"]
                                    if advanced else ["int", "slice", "none", "ell"]))
        if kind == "int":
            parts.append(draw(st.integers(-n - 1, n)))
        elif kind == "slice":
            parts.append({"start": draw(st.none() | st.integers(-n - 2, n + 2)),
                          "stop": draw(st.none() | st.integers(-n - 2, n + 2)),
                          "step": draw(st.none() | st.sampled_from([1, 2, 3, -1, -2]))})
        elif kind == "none":
            parts.append("None")
            continue
        elif kind == "ell":
            if n_ell:
                continue
            n_ell = 1
            parts.append("...")
            dim = len(shape) - draw(st.integers(0, len(shape) - dim))
            continue
        elif kind == "arr":
            k = draw(st.integers(0, 3))
            parts.append(["arr", draw(st.lists(st.integers(-n, max(n - 1, -n)),
                                               min_size=k, max_size=k)), "int64"])
        else:
            parts.append(["arr", draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                          "bool"])
        dim += 1
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]
    return parts


@st.composite
def getitem_cases(draw, layouts=SAFE_LAYOUTS):
    spec = draw(specs(layouts=[lay for lay in layouts if lay not in ("list", "scalar")]))
    return {"op": "getitem", "args": [spec], "key": draw(keys(tuple(spec["shape"])))}


def _index_shape(shape, key):
    try:
        return list(np.empty(shape)[_key_from_json(key)].shape)
    except Exception:  # noqa: BLE001 - then any value shape will do: the key fails
        return list(shape)


@st.composite
def setitem_cases(draw, layouts=SAFE_LAYOUTS):
    dst = draw(specs(layouts=["C"]))
    shape = tuple(dst["shape"])
    if shape and shape[0] > 1 and draw(st.integers(0, 3)) == 0:
        # overlapping source and destination: NumPy copies the source first
        k = draw(st.integers(1, shape[0] - 1))
        fwd = draw(st.booleans())
        key = [{"start": k, "stop": None, "step": None}]
        src = [{"start": None, "stop": -k, "step": None}]
        if not fwd:
            key, src = src, key
        return {"op": "setitem", "args": [dst], "key": key, "src_key": src}
    key = draw(keys(shape))
    target = _index_shape(shape, key)
    drop = draw(st.integers(0, len(target)))
    vshape = tuple(1 if draw(st.booleans()) else n for n in target[drop:])
    return {"op": "setitem", "args": [dst, draw(specs(vshape, layouts=layouts))],
            "key": key}


LETTERS = "abcdef"


@st.composite
def einsum_cases(draw, layouts=SAFE_LAYOUTS):
    sizes = {c: draw(st.integers(1, 3)) for c in LETTERS}
    n_ops = draw(st.integers(1, 3))
    use_ell = draw(st.booleans())
    ell_shape = draw(st.lists(st.integers(1, 3), max_size=2))
    terms, args = [], []
    dtype_pool = draw(st.sampled_from([DTYPES, ["float64"], ["float32", "complex64"]]))
    for _ in range(n_ops):
        labels = draw(st.lists(st.sampled_from(LETTERS[:4]), max_size=3))
        shape = [sizes[c] for c in labels]
        term = "".join(labels)
        if use_ell and draw(st.booleans()):
            k = draw(st.integers(0, len(ell_shape)))
            ell = [1 if draw(st.booleans()) else n for n in ell_shape[len(ell_shape) - k:]]
            pos = draw(st.integers(0, len(labels)))
            term = term[:pos] + "..." + term[pos:]
            shape = shape[:pos] + ell + shape[pos:]
        terms.append(term)
        args.append(draw(specs(tuple(shape), dtypes=dtype_pool, layouts=layouts)))
    sub = ",".join(terms)
    if draw(st.booleans()):
        seen = sorted({c for t in terms for c in t if c.isalpha()})
        out = "".join(draw(st.permutations(draw(st.lists(st.sampled_from(seen), unique=True)))
                           )) if seen else ""
        if any("..." in t for t in terms) and draw(st.booleans()):
            out = "..." + out
        sub += "->" + out
    return {"op": "einsum", "subscripts": sub, "args": args}


@st.composite
def linalg_cases(draw):
    name = draw(st.sampled_from(LINALG))
    n = draw(st.integers(1, 4))
    square = name not in ("svdvals", "svd", "qr", "norm", "pinv", "lstsq")
    m = n if square else draw(st.integers(1, 4))
    batch = [] if name in ("lstsq", "cholesky", "solve_triangular", "norm") else \
        draw(st.lists(st.integers(1, 2), max_size=1))
    if name in ("lu_solve", "cho_solve", "solve", "expm", "pinv", "qr", "eigvals",
                "svd"):
        batch = []  # scipy.linalg's batched support differs per function and version
    spec = {"shape": batch + [m, n],
            "dtype": draw(st.sampled_from(["float32", "float64", "complex64",
                                           "complex128"])),
            "layout": draw(st.sampled_from(["C", "F", "neg", "step", "readonly"] +
                                           EXOTIC_LAYOUTS[:2])),
            "seed": draw(seeds)}
    return {"op": "linalg", "name": name, "args": [spec]}


def convert_cases(layouts):
    return specs(layouts=layouts).map(lambda s: {"op": "convert", "args": [s]})


def any_case(layouts):
    return st.one_of(convert_cases(layouts), elementwise_cases(layouts),
                     reduce_cases(layouts), getitem_cases(layouts), setitem_cases(layouts),
                     einsum_cases(layouts))


# -- tests: safe layouts in process ------------------------------------------------------

@budget(150)
@given(convert_cases(SAFE_LAYOUTS))
def test_fuzz_conversion(case):
    check_case(case)


@budget(300)
@given(elementwise_cases())
def test_fuzz_elementwise(case):
    check_case(case)


@budget(200)
@given(reduce_cases())
def test_fuzz_reductions(case):
    check_case(case)


@budget(200)
@given(getitem_cases())
def test_fuzz_getitem(case):
    check_case(case)


@budget(200)
@given(setitem_cases())
def test_fuzz_setitem(case):
    check_case(case)


@budget(150)
@given(einsum_cases())
def test_fuzz_einsum(case):
    check_case(case)


# -- tests: exotic memory and linalg in a subprocess -------------------------------------

@budget(8)
@given(st.lists(any_case(EXOTIC_LAYOUTS + SAFE_LAYOUTS), min_size=20, max_size=60))
def test_fuzz_exotic_memory_subprocess(cases):
    run_in_subprocess(cases)


@budget(6)
@given(st.lists(linalg_cases(), min_size=10, max_size=40))
def test_fuzz_linalg_subprocess(cases):
    run_in_subprocess(cases)


def test_worker_reports_a_crash_naming_the_case():
    """A case that kills the interpreter fails the test naming that case."""
    case = {"op": "_segfault"}
    with pytest.raises(AssertionError, match=r'worker died .* on case \{"op": "_segfault"\}'):
        run_in_subprocess([{"op": "convert", "args": [
            {"shape": [2], "dtype": "float64", "layout": "C", "seed": 1}]}, case])



# -- pinned cases: defects the fuzzer found (now regression tests) -----------------------

def _case(op, *args, **kw):
    return dict(op=op, args=[{"shape": list(sh), "dtype": d, "layout": lay, "seed": 0}
                             for sh, d, lay in args], **kw)


FOUND_CASES = [
    # setitem of Python complex values (a nested list, a scalar) into a real tensor
    # dropped the imaginary part; NumPy raises TypeError
    pytest.param(_case("setitem", ((2, 1), "float64", "C"), ((1, 1), "complex128", "list"),
                       key=[]), id="setitem-complex-list-into-float"),
    pytest.param(_case("setitem", ((2,), "int32", "C"), ((), "complex128", "scalar"),
                       key=[0]), id="setitem-complex-scalar-into-int"),
]


@pytest.mark.parametrize("case", FOUND_CASES)
def test_found_case(case):
    check_case(case)
