"""The same table-driven op tests on every device (the ``device`` fixture of conftest.py).

Every result is computed on the device, copied back with ``.to("cpu")`` and compared
with one NumPy reference (the same for every device) within the device's tolerance for
the result dtype.  Data is float32, int32, bool and int64: the dtypes every device
holds.  A case whose dtype or (op, dtype) a device documents as unsupported (float64 and
complex on WebGPU, its int64 division) is skipped with the driver's message; anything
else that fails is a failure.
"""
import numpy as np
import pytest

import tenferro as tf
from tenferro._catalog import BINARY, UNARY
from tenferro._ops.elementwise import _resolve

from conftest import (NumpyDriver, check_on, documented_unsupported, random_array, run_on,
                       skip_unless_supported, stable_rng, to_device)
from op_table import OPS

F32, I32, BOOL, I64 = (np.dtype("float32"), np.dtype("int32"), np.dtype("bool"),
                       np.dtype("int64"))
DEVICE_DTYPES = (F32, I32, BOOL, I64)


# -- cases, data and references (tests/op_table.py) -----------------------------------

def reference(name):
    return OPS[name].reference


def _loop(name, ufunc, dtypes):
    try:
        return _resolve(name, ufunc, dtypes)
    except TypeError:
        return None


def _cases(table, arity):
    """(op, dtype) pairs of the op table whose NumPy loop and result stay within
    float32/int32/bool/int64."""
    out = []
    for name, op in OPS.items():
        if op.arity != arity or name not in table:
            continue
        for d in DEVICE_DTYPES:
            r = _loop(name, table[name].type_rule, (d,) * arity)
            if r is not None and r[0] in DEVICE_DTYPES and r[1] in DEVICE_DTYPES:
                out.append(pytest.param(name, d, id="%s-%s" % (name, d)))
    return out


def loop_dtype(name, *dtypes):
    """The dtype tenferro computes ``name`` in (bool math runs in int32/float32, where
    NumPy would use int8/float16): the NumPy reference is computed in it too."""
    table = UNARY if name in UNARY else BINARY
    return _resolve(name, table[name].type_rule, tuple(np.dtype(d) for d in dtypes))[0]


UNARY_CASES = _cases(UNARY, 1)
BINARY_CASES = _cases(BINARY, 2)


def _data(shape, dtype, domain, seed):
    if dtype == BOOL and domain not in ("any", "small", "shift"):
        # (0 is in the unit domain, 1 in the others)
        return np.full(shape, domain != "unit")
    a = random_array(shape, dtype, domain, seed=seed)
    if dtype in (I32, I64) and domain == "pos":
        a = np.abs(a) + 1
    return a


def _binary_data(name, dtype, shape_a, shape_b):
    da, db = OPS[name].domains()
    if dtype in (I32, I64) and name == "power":
        a = stable_rng(name, "a").integers(-4, 5, shape_a).astype(dtype)
        b = stable_rng(name, "b").integers(0, 5, shape_b).astype(dtype)
        return a, b
    return _data(shape_a, dtype, da, 1), _data(shape_b, dtype, db, 2)


def _fn(name):
    return getattr(tf, name)


# -- transfers -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DEVICE_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4), (0, 3)], ids=str)
def test_transfer_round_trip(device, dtype, shape):
    a = random_array(shape, dtype, seed=3)
    t = tf.asarray(a).to(device)
    assert t.device == device and t.shape == shape and t.dtype == dtype
    t2 = tf.asarray(a, device=device)
    assert t2.device == device
    for x in (t, t2):
        back = x.to("cpu")
        assert back.device == tf.device("cpu")
        np.testing.assert_array_equal(back.numpy(), a)
        assert back.numpy().dtype == dtype
    # the host copy is the device's own: writing to it leaves the device data alone
    if a.size:
        host = t.to("cpu").numpy()
        host[...] = 0 if dtype != BOOL else False
        np.testing.assert_array_equal(t.to("cpu").numpy(), a)


def test_numpy_only_on_cpu(device):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tf.asarray(a).to(device)
    if device.type == "cpu":
        np.testing.assert_array_equal(t.numpy(), a)
        np.testing.assert_array_equal(np.asarray(t), a)
        return
    with pytest.raises(TypeError, match=r"Tensor.numpy: tensor is on '%s'; copy it to the host "
                       r"first with .to\('cpu'\)" % device):
        t.numpy()
    with pytest.raises(TypeError, match="copy it to the host first"):
        np.asarray(t)
    np.testing.assert_array_equal(t.to("cpu").numpy(), a)
    np.testing.assert_array_equal(t.cpu().numpy(), a)


@pytest.mark.parametrize("dtype", ["float64", "complex64", "complex128", "int64"])
def test_unsupported_dtype_transfer(device, dtype):
    """float64/complex/int64 to a device that cannot hold them: UnsupportedOperation
    naming the device, the op and the dtype -- never a silent cast."""
    a = random_array((2, 3), dtype, seed=4)
    if not documented_unsupported(device, dtype):
        t = tf.asarray(a).to(device)
        assert t.dtype == dtype
        np.testing.assert_array_equal(t.to("cpu").numpy(), a)
        return
    with pytest.raises(tf.UnsupportedOperation,
                       match=r"\w+: not supported on device '%s' for dtype %s"
                             % (device, dtype)) as ei:
        tf.asarray(a).to(device)
    assert isinstance(ei.value, TypeError)
    assert str(ei.value.device) == str(device) and np.dtype(ei.value.dtype) == dtype
    assert ei.value.op


def test_unsupported_dtype_op_after_cast(device):
    """A float32 tensor cast to float64 on a device without float64 raises naming convert."""
    t = to_device(np.ones(3, np.float32), device)
    if not documented_unsupported(device, "float64"):
        check_on(t.astype(tf.float64), np.ones(3), device)
        return
    with pytest.raises(tf.UnsupportedOperation, match=r"'%s' for dtype float64" % device):
        t.astype(tf.float64)
    with pytest.raises(tf.UnsupportedOperation, match=r"'%s'.*float64" % device):
        tf.exp(to_device(np.ones(3, np.int32), device))  # int32 exp computes in float64


def test_mixed_devices_raise(accel_device):
    dev = accel_device
    a = np.ones((2, 3), np.float32)
    g = to_device(a, dev)
    c = tf.asarray(a)
    for fn in (lambda: g + c, lambda: c * g, lambda: tf.where(c > 0, g, c),
               lambda: tf.matmul(g, c.T), lambda: tf.einsum("ij,kj->ik", c, g),
               lambda: tf.concatenate([c, g]), lambda: tf.maximum(c, g)):
        with pytest.raises(tf.DeviceMismatchError,
                           match="expected all tensors on one device") as ei:
            fn()
        assert set(ei.value.devices) == {"cpu", str(dev)}


# -- elementwise -------------------------------------------------------------------------

@pytest.mark.parametrize("name,dtype", UNARY_CASES)
def test_unary(device, name, dtype):
    a = _data((4, 5), dtype, OPS[name].domains()[0], seed=5)
    expected = reference(name)(a.astype(loop_dtype(name, dtype)))
    t = to_device(a, device)
    out = run_on(device, _fn(name), t)
    check_on(out, expected, device, op=name)


@pytest.mark.parametrize("name,dtype", BINARY_CASES)
def test_binary(device, name, dtype):
    a, b = _binary_data(name, dtype, (4, 5), (4, 5))
    lin = loop_dtype(name, dtype, dtype)
    expected = reference(name)(a.astype(lin), b.astype(lin))
    out = run_on(device, _fn(name), to_device(a, device), to_device(b, device))
    check_on(out, expected, device, op=name)


@pytest.mark.parametrize("name,dtype", BINARY_CASES)
def test_binary_broadcast(device, name, dtype):
    a, b = _binary_data(name, dtype, (3, 1, 5), (4, 1))
    lin = loop_dtype(name, dtype, dtype)
    expected = reference(name)(a.astype(lin), b.astype(lin))
    out = run_on(device, _fn(name), to_device(a, device), to_device(b, device))
    assert out.shape == (3, 4, 5)
    check_on(out, expected, device, op=name)


# ops spread over every kind of data (float math, integer math, comparisons, logic)
LAYOUT_OPS = ["add", "multiply", "divide", "maximum", "power", "less", "logical_xor",
              "bitwise_and", "floor_divide", "remainder"]
LAYOUT_CASES = [pytest.param(n, d, id="%s-%s" % (n, d)) for n in LAYOUT_OPS
                for d in DEVICE_DTYPES
                if (lambda r: r is not None and r[0] in DEVICE_DTYPES)(
                    _loop(n, BINARY[n].type_rule, (d, d)))]
DEVICE_LAYOUTS = ["transposed", "step2", "negstride", "broadcast", "offset"]


def device_layout(a, layout, device):
    """A tensor on ``device`` whose view (made on the device) holds ``a``'s values,
    and those values (they differ for the broadcast layout)."""
    a = np.asarray(a)
    if layout == "transposed":
        return to_device(np.ascontiguousarray(a.T), device).T, a
    if layout == "step2":
        big = np.zeros(tuple(2 * n + 1 for n in a.shape), a.dtype)
        key = tuple(slice(1, None, 2) for _ in a.shape)
        big[key] = a
        return to_device(big, device)[key], a
    if layout == "negstride":
        return tf.flip(to_device(np.ascontiguousarray(np.flip(a)), device)), a
    if layout == "broadcast":
        return tf.broadcast_to(to_device(a[:1], device), a.shape), np.broadcast_to(a[:1], a.shape)
    if layout == "offset":  # a view starting inside its buffer
        big = np.concatenate([a, a])
        return to_device(big, device)[a.shape[0]:], a
    raise ValueError(layout)


@pytest.mark.parametrize("layout", DEVICE_LAYOUTS)
@pytest.mark.parametrize("name,dtype", LAYOUT_CASES)
def test_binary_strided(device, name, dtype, layout):
    a, b = _binary_data(name, dtype, (4, 6), (4, 6))
    ta, va = device_layout(a, layout, device)
    tb, vb = device_layout(b, "transposed" if layout != "transposed" else "step2", device)
    assert ta.device == device and tb.device == device
    out = run_on(device, _fn(name), ta, tb)
    lin = loop_dtype(name, dtype, dtype)
    check_on(out, reference(name)(va.astype(lin), vb.astype(lin)), device, op=name)


@pytest.mark.parametrize("layout", DEVICE_LAYOUTS)
@pytest.mark.parametrize("name", ["exp", "negative", "sqrt", "floor", "isfinite"])
def test_unary_strided(device, name, layout):
    a = _data((5, 3), F32, OPS[name].domains()[0], seed=6)
    t, v = device_layout(a, layout, device)
    check_on(run_on(device, _fn(name), t), reference(name)(v), device, op=name)


def test_scalar_operands(device):
    a = random_array((3, 4), F32, seed=7)
    t = to_device(a, device)
    check_on(t * 2.5 + 1, a * np.float32(2.5) + 1, device)
    check_on(3 - t, 3 - a, device)
    check_on(t ** 2, a ** 2, device, op="power")
    check_on(t > 0.5, a > 0.5, device)
    i = random_array((3, 4), I32, seed=8)
    ti = to_device(i, device)
    check_on(ti * 3 - 7, i * 3 - 7, device)
    check_on(ti // 4, i // 4, device)
    check_on(ti % 5, i % 5, device)


def test_nonfinite_values(device):
    """NaN and infinities survive the device's math (WGSL may assume they do not
    occur: a driver must still give NumPy's answers)."""
    a = np.array([0.0, -1.5, np.inf, -np.inf, np.nan, 2.0], np.float32)
    b = np.array([1.0, np.nan, 3.0, np.inf, 0.5, -np.inf], np.float32)
    ta, tb = to_device(a, device), to_device(b, device)
    for name in ("isnan", "isinf", "isfinite"):
        check_on(run_on(device, _fn(name), ta), reference(name)(a), device, op=name)
    with np.errstate(all="ignore"):
        for name in ("maximum", "minimum", "fmax", "fmin", "add", "multiply"):
            check_on(run_on(device, _fn(name), ta, tb), reference(name)(a, b), device, op=name)
        check_on(ta / to_device(np.zeros(6, np.float32), device), a / np.float32(0), device)


# -- casts, where, clip ---------------------------------------------------------------------

CASTS = [(s, d) for s in DEVICE_DTYPES for d in DEVICE_DTYPES if s != d]


@pytest.mark.parametrize("src,dst", CASTS, ids=lambda d: str(d))
def test_cast(device, src, dst):
    if src == F32:
        a = (stable_rng("cast", str(dst)).uniform(-40, 40, (3, 7))).astype(np.float32)
        a[0, :3] = [0.0, -0.0, 0.75]
    else:
        a = random_array((3, 7), src, seed=9)
    t = to_device(a, device)
    check_on(run_on(device, t.astype, dst), a.astype(dst), device)
    # and from a transposed view
    tt = to_device(np.ascontiguousarray(a.T), device).T
    check_on(run_on(device, tt.astype, dst), a.astype(dst), device)


@pytest.mark.parametrize("dtype", DEVICE_DTYPES, ids=str)
def test_where(device, dtype):
    c = random_array((3, 1, 5), BOOL, seed=10)
    a = random_array((4, 5), dtype, seed=11)
    b = random_array((3, 4, 1), dtype, seed=12)
    out = run_on(device, tf.where, to_device(c, device), to_device(a, device),
                 to_device(b, device))
    check_on(out, np.where(c, a, b), device)
    # scalar branches
    zero = a.dtype.type(0).item()  # a weak Python scalar of a's kind: a's dtype stays
    out = run_on(device, tf.where, to_device(c, device), to_device(a, device), zero)
    check_on(out, np.where(c, a, a.dtype.type(0)), device)


@pytest.mark.parametrize("dtype", [F32, I32, I64], ids=str)
def test_clip(device, dtype):
    a = random_array((4, 6), dtype, seed=13)
    t = to_device(a, device)
    check_on(run_on(device, tf.clip, t, -1, 2), np.clip(a, -1, 2), device)
    check_on(run_on(device, tf.clip, t, None, 0), np.clip(a, None, 0), device)
    lo = random_array((6,), dtype, seed=14) - 1
    check_on(run_on(device, tf.clip, t, to_device(lo, device), 5), np.clip(a, lo, 5), device)


# -- reductions ---------------------------------------------------------------------------------

AXES = [None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2), ()]
REDUCTIONS = ["sum", "prod", "max", "min", "any", "all", "mean"]


def _reduction_data(name, dtype):
    if name == "prod":  # values near 1 keep float32 products well-conditioned
        if dtype == F32:
            return stable_rng("prod").uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
        if dtype == I32:
            return stable_rng("prodi").integers(-2, 3, (3, 4, 5)).astype(np.int32)
    if name in ("any", "all") and dtype != BOOL:
        a = random_array((3, 4, 5), dtype, seed=15)
        a[a.__abs__() < (1 if dtype == I32 else 0.5)] = 0
        a[1] = 1  # an all-true slice for all()
        return a
    return random_array((3, 4, 5), dtype, seed=15)


def _reduction_cases():
    out = []
    for name in REDUCTIONS:
        for d in DEVICE_DTYPES:
            # mean of integers is float64 in NumPy: not a float32/int32/bool computation
            if name in ("max", "min", "any", "all", "sum", "prod") or d == F32:
                out.append(pytest.param(name, d, id="%s-%s" % (name, d)))
    return out


@pytest.mark.parametrize("keepdims", [False, True], ids=["", "keepdims"])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name,dtype", _reduction_cases())
def test_reduction(device, name, dtype, axis, keepdims):
    a = _reduction_data(name, dtype)
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    out = run_on(device, _fn(name), to_device(a, device), axis=axis, keepdims=keepdims)
    rt, at = None, None
    if dtype == F32 and device.type != "cpu":  # summation order differs on the device
        rt, at = 1e-5, 1e-5 * a.shape[0] * a.shape[1] * a.shape[2]
    check_on(out, expected, device, op=name, rtol=rt, atol=at)


@pytest.mark.parametrize("axis", [None, 0, 2, (0, 1)], ids=str)
@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize("dtype", [I32, BOOL], ids=str)
def test_integer_reduction_in_int32(device, dtype, name, axis):
    """NumPy sums integers in int64 by default; dtype=int32 keeps them in int32."""
    a = _reduction_data(name, dtype)
    expected = getattr(np, name)(a, axis=axis, dtype=np.int32)
    out = run_on(device, _fn(name), to_device(a, device), axis=axis, dtype=tf.int32)
    check_on(out, expected, device, op=name)


@pytest.mark.parametrize("name", ["sum", "max", "min", "mean"])
@pytest.mark.parametrize("axis", [None, 0, 1], ids=str)
def test_reduction_strided_and_large(device, name, axis):
    """Reductions of views made on the device, and of sizes past one workgroup."""
    from conftest import reduction_tol

    a = stable_rng("large", name).uniform(-1, 1, (300, 130)).astype(np.float32)
    t = to_device(np.ascontiguousarray(a.T), device).T
    expected = getattr(np, name)(a.astype(np.float64), axis=axis).astype(np.float32)
    out = run_on(device, _fn(name), t, axis=axis)
    n = a.size // expected.size
    rt, at = reduction_tol(device, F32, n, name)
    check_on(out, expected, device, op=name, rtol=rt, atol=at)
    b = to_device(a, device)[::3, 1::2]
    expected = getattr(np, name)(a[::3, 1::2].astype(np.float64), axis=axis).astype(np.float32)
    rt, at = reduction_tol(device, F32, a[::3, 1::2].size // expected.size, name)
    check_on(run_on(device, _fn(name), b, axis=axis), expected, device, op=name,
             rtol=rt, atol=at)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1], ids=str)
@pytest.mark.parametrize("dtype", DEVICE_DTYPES, ids=str)
def test_argreduction(device, name, axis, dtype):
    a = random_array((3, 4, 5), dtype, seed=16)
    if dtype == F32:
        a[0, 1, :2] = a.max() + 1  # ties: the first index wins, as in NumPy
        a[2, 0, 3:] = a.min() - 1
    expected = getattr(np, name)(a, axis=axis)
    out = run_on(device, _fn(name), to_device(a, device), axis=axis)
    check_on(out, expected, device, op=name)


# -- copies, matmul, einsum -----------------------------------------------------------------------

@pytest.mark.parametrize("axes", [(1, 0, 2), (2, 0, 1), (2, 1, 0), (0, 2, 1)], ids=str)
@pytest.mark.parametrize("dtype", DEVICE_DTYPES, ids=str)
def test_permute_copy(device, dtype, axes):
    a = random_array((3, 4, 5), dtype, seed=17)
    t = to_device(a, device)
    p = tf.permute_dims(t, axes)
    assert p.device == device and p.shape == tuple(a.shape[i] for i in axes)
    expected = np.transpose(a, axes)
    check_on(p, expected, device)
    c = run_on(device, tf.copy, p)
    check_on(c, expected, device)
    assert c.is_contiguous()
    check_on(run_on(device, tf.reshape, p, (-1,)), expected.reshape(-1), device)
    check_on(t.T[::-1, 1:3], a.T[::-1, 1:3], device)


MATMUL_SHAPES = [((3, 4), (4, 5)), ((33, 17), (17, 65)), ((2, 3, 4), (2, 4, 5)),
                 ((1, 3, 4), (2, 4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((64, 64), (64, 64)),
                 ((1, 1), (1, 1)), ((2, 0), (0, 3))]


@pytest.mark.parametrize("dtype", [F32, I32], ids=str)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=str)
def test_matmul(device, sa, sb, dtype):
    a = random_array(sa, dtype, "small", seed=18)
    b = random_array(sb, dtype, "small", seed=19)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
    out = run_on(device, tf.matmul, to_device(a, device), to_device(b, device))
    k = sa[-1]
    check_on(out, expected, device, op="matmul", rtol=1e-5, atol=1e-6 * max(k, 1))
    ta = to_device(a, device)
    check_on(run_on(device, lambda: ta @ to_device(b, device)), expected, device,
             rtol=1e-5, atol=1e-6 * max(k, 1))


@pytest.mark.parametrize("la,lb", [("C", "F"), ("F", "C"), ("F", "F"), ("slice", "C")])
def test_matmul_strided(device, la, lb):
    a = random_array((20, 12), F32, "small", seed=20)
    b = random_array((12, 9), F32, "small", seed=21)

    def lay(x, how):
        if how == "C":
            return to_device(x, device)
        if how == "F":
            return to_device(np.ascontiguousarray(x.T), device).T
        return device_layout(x, "step2", device)[0]
    out = run_on(device, tf.matmul, lay(a, la), lay(b, lb))
    check_on(out, (a.astype(np.float64) @ b).astype(np.float32), device, rtol=1e-5, atol=2e-5)


EINSUMS = [("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
           ("ik,jk->ij", [(3, 4), (5, 4)]), ("ij,ij->", [(3, 4), (3, 4)]),
           ("abc,cd->abd", [(2, 3, 4), (4, 5)]), ("abcd,bdce->ae", [(2, 3, 4, 5), (3, 5, 4, 2)]),
           ("i,j->ij", [(3,), (4,)]), ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
           ("ii->i", [(4, 4)]), ("ij->", [(3, 4)]), ("bij,jk->bki", [(2, 3, 4), (4, 6)])]


@pytest.mark.parametrize("dtype", [F32, I32], ids=str)
@pytest.mark.parametrize("subs,shapes", EINSUMS, ids=[e[0] for e in EINSUMS])
def test_einsum(device, subs, shapes, dtype):
    arrays = [random_array(s, dtype, "small", seed=22 + i) for i, s in enumerate(shapes)]
    expected = np.einsum(subs, *[x.astype(np.float64) for x in arrays]).astype(dtype)
    out = run_on(device, tf.einsum, subs, *[to_device(x, device) for x in arrays])
    check_on(out, expected, device, op="einsum", rtol=1e-5, atol=1e-5)


def test_einsum_int32_stays_int32(device):
    """einsum of int32 computes in int32 as NumPy's does (wrapping on overflow), so a
    device without int64 matmul (WebGPU) runs it instead of refusing a widened int64."""
    a = np.array([[2**30, 3], [5, -7]], np.int32)
    b = np.array([[4, 1], [2**29, 9]], np.int32)
    with np.errstate(over="ignore"):
        want = np.einsum("ij,jk->ik", a, b)
    assert want.dtype == np.int32
    out = tf.einsum("ij,jk->ik", to_device(a, device), to_device(b, device))
    check_on(out, want, device, dtype=I32)
    check_on(tf.einsum("ij->", to_device(a, device)), np.einsum("ij->", a), device, dtype=I32)


# -- autodiff ---------------------------------------------------------------------------------------

def _loss(x, y):
    return tf.sum(tf.sin(x) * y + tf.exp(x) / (1 + y * y)) + tf.mean(tf.tanh(x * y) ** 2)


def _loss_contract(x, y):
    return tf.sum(tf.matmul(x, y.T) ** 2) + tf.max(tf.einsum("ij,ij->i", x, y))


@pytest.mark.parametrize("loss", [_loss, _loss_contract], ids=["elementwise", "contract"])
def test_grad_matches_cpu(device, loss):
    x = random_array((4, 3), F32, "small", seed=30)
    y = random_array((4, 3), F32, "small", seed=31)
    g = tf.grad(loss, argnums=(0, 1))
    gx_cpu, gy_cpu = g(tf.asarray(x), tf.asarray(y))
    gx, gy = run_on(device, g, to_device(x, device), to_device(y, device))
    check_on(gx, gx_cpu.numpy(), device, rtol=1e-4, atol=1e-5)
    check_on(gy, gy_cpu.numpy(), device, rtol=1e-4, atol=1e-5)
    # and against central differences in float64 (the CPU gradient is itself checked)
    from conftest import central_grad

    def f64(a):
        return float(loss(tf.asarray(a), tf.asarray(y.astype(np.float64))).item())
    np.testing.assert_allclose(gx_cpu.numpy(), central_grad(f64, x.astype(np.float64)),
                               rtol=1e-3, atol=1e-4)


def test_eager_backward_on_device(device):
    x = random_array((5,), F32, seed=32)
    t = to_device(x, device).requires_grad_()
    out = run_on(device, lambda: tf.sum(tf.exp(t) * t))
    out.backward()
    assert t.grad.device == device
    check_on(t.grad, (np.exp(x) * (1 + x)).astype(np.float32), device, op="exp")


# -- the harness itself: absent devices skip, and only documented dtypes turn into skips ----

class _Float32Driver(NumpyDriver):
    """A device holding float32 only, with no ops (to exercise conftest's helpers)."""

    name = "f32dev"
    dtypes = frozenset({F32})


class _NoDeviceDriver(_Float32Driver):
    name = "nodev"

    def device_count(self):
        return 0

    def unavailable_reason(self):
        return "no adapter found (test)"


@pytest.fixture
def f32dev():
    import tenferro.devices as devs

    devs._drivers["f32dev"] = _Float32Driver()
    devs._drivers["nodev"] = _NoDeviceDriver()
    try:
        yield tf.device("f32dev")
    finally:
        for k in ("f32dev", "nodev"):
            devs._drivers.pop(k, None)
        for k in [k for k in devs._devices if str(k).startswith(("f32dev", "nodev"))]:
            del devs._devices[k]


def test_harness_absent_device_reasons(f32dev):
    from conftest import _absent_reason, get_test_device

    assert _absent_reason("nosuchdev") == "no nosuchdev driver in this build"
    assert _absent_reason("nodev") == "nodev: no adapter found (test)"
    assert _absent_reason("cpu") is None and _absent_reason("f32dev") is None
    with pytest.raises(pytest.skip.Exception, match="device absent: nodev: no adapter found"):
        get_test_device("nodev")
    assert get_test_device("f32dev") is f32dev


def test_harness_skips_only_documented_dtypes(f32dev, monkeypatch):
    import conftest

    def raises(dtype, op="sin"):
        def fn():
            raise tf.UnsupportedOperation(f32dev, op, np.dtype(dtype))
        return fn

    # a driver the documentation does not know (a test double): its declarations decide
    for dtype in ("float64", "int64", "complex64"):
        with pytest.raises(pytest.skip.Exception, match="documented as unsupported"):
            run_on(f32dev, raises(dtype))
    with pytest.raises(pytest.skip.Exception, match="documented as unsupported"):
        run_on(f32dev, raises("float32"))  # declared: no implementation of sin
    # a documented driver: only the committed table decides, not what it answers now
    table = dict(conftest.documented_coverage())
    table["f32dev"] = {"sin": frozenset({F32}), "cos": frozenset()}
    monkeypatch.setitem(conftest._COVERAGE, conftest.DEVICES_DOC, table)
    # documented as supported but refused at run time (a kernel gone): a FAILURE
    with pytest.raises(tf.UnsupportedOperation, match="^sin: not supported on device "
                       "'f32dev:0' for dtype float32$"):
        run_on(f32dev, tf.sin, to_device(np.ones(3, np.float32), f32dev))
    for op in ("sin", "add"):  # add: not in the row, but float32 is a documented dtype
        with pytest.raises(tf.UnsupportedOperation, match="float32"):
            run_on(f32dev, raises("float32", op))
    # documented gaps: an (op, dtype) its row leaves out, a dtype no row lists
    with pytest.raises(pytest.skip.Exception, match="documented as unsupported"):
        run_on(f32dev, raises("float32", "cos"))
    with pytest.raises(pytest.skip.Exception, match="documented as unsupported"):
        run_on(f32dev, raises("float64"))
    with pytest.raises(pytest.skip.Exception, match="does not support cos for float32"):
        skip_unless_supported(f32dev, "cos", F32)
    skip_unless_supported(f32dev, "sin", F32)  # documented: no skip
    # the CPU documents every dtype: never a skip there
    with pytest.raises(tf.UnsupportedOperation):
        run_on(tf.device("cpu"), raises("float64"))
    skip_unless_supported(tf.device("cpu"), "sin", F32, I32, BOOL)  # no skip


def test_harness_documented_table_is_the_docs():
    """The fixed list is docs/devices.md's committed table: WebGPU lacks float64 and
    complex, int64 division/shifts/matmul; a missing table is an error, not a skip."""
    import conftest

    table = conftest.documented_coverage()
    assert set(table) >= {"cpu", "webgpu"}
    assert all(d is None or len(d) == 7 for d in table["cpu"].values())
    assert table["webgpu"]["einsum"] is None  # "any device"
    assert table["webgpu"]["matmul"] == {I32, F32}
    assert I64 not in table["webgpu"]["floor_divide"] and I64 in table["webgpu"]["add"]
    assert not any(d and np.dtype("float64") in d for d in table["webgpu"].values())


def test_harness_missing_table_is_an_error(tmp_path):
    import conftest

    doc = tmp_path / "devices.md"
    doc.write_text("# Devices\n\nno table here\n")
    with pytest.raises(RuntimeError, match="has no coverage table between"):
        conftest.documented_coverage(str(doc))


def test_harness_reduction_tolerances():
    """A mean of 39,000 float32 values in [-1, 1] is checked to a few eps, not to the
    old blanket atol 1e-3 (30% of a typical such mean, ~3e-3)."""
    from conftest import reduction_tol

    for dev in ("cpu", "webgpu"):
        assert reduction_tol(dev, F32, 39000, "mean")[1] < 1e-6
        assert reduction_tol(dev, F32, 39000, "sum")[1] < 2e-2  # |sum| up to 39,000
        assert reduction_tol(dev, F32, 39000, "max") == (0.0, 0.0)
        assert reduction_tol(dev, F32, 130, "sum")[1] < 1e-4


def test_harness_tolerances():
    from conftest import device_tol

    assert device_tol("cpu", F32) == (4e-6, 1e-6)
    rt, at = device_tol("webgpu", F32)
    assert rt > 4e-6 and at > 1e-6
    assert device_tol("webgpu", F32, "sin")[1] >= 2.0 ** -11  # WGSL's absolute bound
    assert device_tol("webgpu", I32) == (0.0, 0.0)


def test_summary_counts_tests_per_device(pytester):
    """The report's per-device line (conftest.pytest_terminal_summary)."""
    import conftest

    class hook:  # a plugin carrying only the summary hook
        pytest_terminal_summary = staticmethod(conftest.pytest_terminal_summary)
    pytester.makepyfile("""
        import pytest

        @pytest.mark.parametrize("device", ["cpu", "webgpu"])
        @pytest.mark.parametrize("n", [1, 2])
        def test_a(device, n):
            if device == "webgpu" and n == 2:
                pytest.skip("device absent: webgpu: no adapter")
            assert not (device == "cpu" and n == 2)
    """)
    # a module of the device's own counts for it
    pytester.makepyfile(test_webgpu_extra="""
        def test_b():
            pass
    """)
    result = pytester.runpytest_inprocess("-q", plugins=[hook])
    result.assert_outcomes(passed=3, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*tests per device*",
                                 "cpu: 1 passed, 1 failed, 0 skipped",
                                 "webgpu: 2 passed, 0 failed, 1 skipped (device absent: "
                                 "webgpu: no adapter)"])


def test_required_device_skips_fail(pytester, monkeypatch):
    """With CI's switches set, a missing WebGPU adapter (a test's skip, a module-level
    skip, a skipif mark) or a missing optional module is a failure, not a skip."""
    import conftest

    class hook:  # the conftest's two report hooks only
        pytest_runtest_makereport = conftest.pytest_runtest_makereport
        pytest_make_collect_report = conftest.pytest_make_collect_report
    pytester.makepyfile(test_a="""
        import pytest

        def test_device():
            pytest.skip("device absent: webgpu: no adapter")

        @pytest.mark.skipif(True, reason="no WebGPU adapter")
        def test_mark():
            pass

        def test_torch():
            pytest.importorskip("no_such_module_tenferro")

        def test_other():
            pytest.skip("longdouble is double on this platform")
    """)
    pytester.makepyfile(test_webgpu_mod="""
        import pytest
        pytest.skip("no WebGPU device: no adapter", allow_module_level=True)
    """)
    monkeypatch.delenv("TENFERRO_REQUIRE_WEBGPU", raising=False)
    monkeypatch.delenv("TENFERRO_REQUIRE_OPTIONAL", raising=False)
    pytester.runpytest_inprocess("-q", plugins=[hook]).assert_outcomes(skipped=5)
    monkeypatch.setenv("TENFERRO_REQUIRE_WEBGPU", "1")
    monkeypatch.setenv("TENFERRO_REQUIRE_OPTIONAL", "1")
    result = pytester.runpytest_inprocess("-q", "--continue-on-collection-errors",
                                          plugins=[hook])
    result.assert_outcomes(failed=2, skipped=1, errors=2)  # (setup and collection: errors)
    result.stdout.fnmatch_lines(["*TENFERRO_REQUIRE_WEBGPU is set, so this skip is a "
                                 "failure: *no WebGPU*"])


# -- every differentiable op's gradient, reverse and forward, on every device ---------------
# The reference is float64 central differences of the CPU's float64 FORWARD values (no
# derivative rule involved: a rule with a flipped sign fails on every device, the CPU
# included), compared with the device's float32 grad and jvp within float32 tolerances.

def _differentiable(cases):
    from tenferro._primitive import registry

    return [c for c in cases if c.values[1] == F32 and registry[c.values[0]].differentiable
            and c.values[0] not in ("real", "imag", "conj", "angle")]


def _finite_differences(f, args, tangents, h=1e-6):
    """(gradients of sum(f), jvp along ``tangents``) of ``f`` at ``args`` by float64
    central differences of its CPU forward values."""
    from conftest import central_grad

    xs = [np.asarray(a, np.float64) for a in args]

    def values(*vs):
        return np.asarray(f(*[tf.asarray(v) for v in vs]).numpy(), np.float64)

    grads = [central_grad(lambda v, i=i: values(*xs[:i], v, *xs[i + 1:]).sum(), x, h)
             for i, x in enumerate(xs)]
    jvp = (values(*[x + h * t for x, t in zip(xs, tangents)])
           - values(*[x - h * t for x, t in zip(xs, tangents)])) / (2 * h)
    return grads, jvp


def _check_derivatives(device, f, *args, rtol=2e-4, atol=2e-5):
    """grad (reverse) and jvp (forward) of ``f`` at float32 ``args`` on ``device`` vs
    float64 finite differences of the forward values."""
    rng = stable_rng("tangents", len(args))
    tangents = [rng.standard_normal(np.shape(a)).astype(np.float32) for a in args]
    argnums = tuple(range(len(args)))

    def on(dev):
        xs = [to_device(np.asarray(a, np.float32), dev) for a in args]
        ts = [to_device(t, dev) for t in tangents]
        g = tf.grad(lambda *v: tf.sum(f(*v)), argnums=argnums)(*xs)
        _, jt = tf.jvp(f, tuple(xs), tuple(ts))
        return list(g), jt

    want_g, want_t = _finite_differences(f, args, tangents)
    got_g, got_t = run_on(device, on, device)
    for got, want in zip(got_g, want_g):
        check_on(got, want.astype(np.float32), device, rtol=rtol, atol=atol)
    check_on(got_t, want_t.astype(np.float32), device, rtol=rtol, atol=atol)


def test_derivative_reference_is_not_the_rules(monkeypatch):
    """A flipped-sign rule (sin's JVP and VJP negated) fails on the CPU too: the
    reference is finite differences, not the CPU's own rules."""
    from tenferro._primitive import registry

    def flipped(rule):
        def run(*a, **k):
            r = rule(*a, **k)
            if isinstance(r, (tuple, list)):
                return type(r)(None if g is None else -g for g in r)
            return -r
        return run

    p = registry["sin"]
    monkeypatch.setattr(p, "jvp", flipped(p.jvp))
    monkeypatch.setattr(p, "vjp", flipped(p.vjp))
    x = _data((3, 4), F32, "any", 40)
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        _check_derivatives(tf.device("cpu"), tf.sin, x)


def _grad_data(name, dtype, *shapes):
    """Float data for each operand of ``name`` from its differentiation domain (off its
    kinks, poles and ties: tests/op_table.py)."""
    rng = stable_rng(name, "grad")
    return [r.draw(rng, s).astype(dtype) for r, s in zip(OPS[name].grad_ranges(), shapes)]


@pytest.mark.parametrize("name,dtype", _differentiable(UNARY_CASES))
def test_unary_derivatives(device, name, dtype):
    skip_unless_supported(device, name, dtype)
    _check_derivatives(device, _fn(name), *_grad_data(name, dtype, (3, 4)))


@pytest.mark.parametrize("name,dtype", _differentiable(BINARY_CASES))
def test_binary_derivatives(device, name, dtype):
    skip_unless_supported(device, name, dtype)
    # broadcast: b's gradient sums
    _check_derivatives(device, _fn(name), *_grad_data(name, dtype, (3, 4), (4,)))


_STRUCTURAL = {
    "sum_axis": lambda x: tf.sum(x, axis=1),
    "prod": lambda x: tf.prod(x, axis=0),
    "max": lambda x: tf.max(x, axis=-1),
    "min_all": lambda x: tf.min(x),
    "mean": lambda x: tf.mean(x, axis=(0, 2)),
    "transpose_slice": lambda x: x.transpose((2, 0, 1))[1:, ::2] * 3.0,
    "reshape_broadcast": lambda x: tf.reshape(x, (6, 4)) * tf.reshape(x, (24, 1))[:4].T,
    "where_clip": lambda x: tf.where(x > 0, tf.clip(x, -0.5, 0.7), x * x),
    "concatenate": lambda x: tf.concatenate([x, tf.exp(x)], axis=1),
    "diagonal": lambda x: tf.diagonal(x, axis1=1, axis2=2),
    "matmul": lambda x: tf.matmul(x, x.transpose((0, 2, 1))),
    "einsum": lambda x: tf.einsum("abc,bc->a", x, x[0]),
}


@pytest.mark.parametrize("name", list(_STRUCTURAL))
def test_structural_derivatives(device, name):
    x = random_array((2, 3, 4), F32, "small", seed=41)
    _check_derivatives(device, _STRUCTURAL[name], x)
