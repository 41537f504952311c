"""Every public elementwise op against NumPy: values, result dtypes (NumPy 2 rules,
float16 -> float32), special values, layouts, broadcasting, promotion with weak Python
scalars, operators (plain, reflected, in-place), errors and thread independence."""
import operator

import numpy as np
import pytest

import tenferro as tf
from tenferro._catalog import BINARY, UNARY

from conftest import (DTYPES, FLOAT, LAYOUTS, NUMERIC, assert_close, layout_values,
                      make_layout, random_array)
from op_table import OPS

TF_FN = {"round": lambda x: tf.round(x)}
SHAPES1 = [(), (0,), (1,), (7,), (3, 4), (2, 0, 3), (2, 3, 4)]
SHAPES2 = [((), ()), ((5,), ()), ((), (5,)), ((0,), (1,)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)),
           ((1,), (6,)), ((2, 1, 3), (1, 5, 1)), ((3, 4), (3, 4))]


def _canon(d):
    d = np.dtype(d)
    return {np.dtype("float16"): np.dtype("float32"), np.dtype("int8"): np.dtype("int32"),
            np.dtype("int16"): np.dtype("int32"), np.dtype("uint8"): np.dtype("int32")}.get(d, d)


def reference(name, *xs):
    """NumPy's answer for op ``name``, with NumPy's float16/int8 results recomputed in the
    wider dtype tenferro uses (e.g. sin(bool) is float32 here)."""
    ref = OPS[name].reference
    with np.errstate(all="ignore"):
        resolver = UNARY[name].type_rule if name in UNARY else (BINARY[name].type_rule if name in BINARY
                                                         else ref)
        want = _canon(resolver(*xs).dtype) if name not in ("real", "imag", "angle",
                                                           "round") else None
        if want is not None and any(x.dtype != want for x in xs) and (
                want.kind in "fc" or resolver(*xs).dtype != want):
            if not (name in ("floor_divide", "remainder", "left_shift", "right_shift")
                    and want.kind in "iu" and resolver(*xs).dtype == want):
                xs = [x.astype(want) if x.dtype.kind in "biu" or want.kind in "fc" and
                      x.dtype.kind in "fc" and x.dtype.itemsize < want.itemsize else x
                      for x in xs]
        r = np.asarray(ref(*xs))
    if name == "angle" and xs[0].dtype.kind in "biu":
        r = np.angle(xs[0].astype(np.float64))
    if want is not None and r.dtype != want:
        r = r.astype(want)
    return r


def tf_op(name):
    return TF_FN.get(name) or getattr(tf, name)


def _tol(name, dtype):
    return OPS[name].tolerance(dtype)


def _domains(name):
    return OPS[name].domains()


def check(name, *arrays, tensors=None):
    ts = tensors if tensors is not None else [tf.asarray(a) for a in arrays]
    got = tf_op(name)(*ts)
    exp = reference(name, *arrays)
    assert_close(got, exp, **_tol(name, exp.dtype))
    return got


# -- the table covers everything -------------------------------------------------------

def test_table_covers_every_op():
    """Every elementwise primitive of the op registry has a row in tests/op_table.py
    (its tests' domains, reference and tolerances), with the registry's arity."""
    ops = {**{n: 1 for n in UNARY}, **{n: 2 for n in BINARY},
           "real": 1, "imag": 1, "angle": 1}
    missing = sorted(set(ops) - set(OPS))
    assert not missing, "elementwise ops without a row in tests/op_table.py: %s" % (
        ", ".join(missing))
    for name, row in OPS.items():
        assert ops.get(name) == row.arity, "op_table row %s: arity %s, registry %s" % (
            name, row.arity, ops.get(name))
        assert callable(tf_op(name)), name


# -- values and dtypes vs NumPy ----------------------------------------------------------

UNARY_CASES = [(n, d) for n, op in OPS.items() if op.arity == 1 for d in op.dtypes]
BINARY_CASES = [(n, d) for n, op in OPS.items() if op.arity == 2 for d in op.dtypes]


@pytest.mark.parametrize("name,dtype", UNARY_CASES, ids=lambda x: str(x))
def test_unary_vs_numpy(name, dtype):
    for i, shape in enumerate(SHAPES1):
        a = random_array(shape, dtype, _domains(name)[0], seed=i)
        check(name, a)


@pytest.mark.parametrize("name,dtype", BINARY_CASES, ids=lambda x: str(x))
def test_binary_vs_numpy(name, dtype):
    da, db = _domains(name)
    for i, (sa, sb) in enumerate(SHAPES2):
        a = random_array(sa, dtype, da, seed=i)
        b = random_array(sb, dtype, db, seed=100 + i)
        check(name, a, b)


MIXED = [("bool", "int32"), ("int32", "int64"), ("int32", "float32"), ("int64", "float32"),
         ("float32", "float64"), ("float32", "complex64"), ("float64", "complex64"),
         ("int32", "complex64"), ("bool", "float32")]


@pytest.mark.parametrize("da,db", MIXED)
@pytest.mark.parametrize("name", ["add", "multiply", "divide", "maximum", "less", "power",
                                  "subtract"])
def test_binary_mixed_dtype_promotion(name, da, db):
    a = random_array((3, 4), da, "pos", seed=1)
    b = random_array((4,), db, "shift" if name == "power" else "pos", seed=2)
    with np.errstate(all="ignore"):
        want = _canon(getattr(np, name)(a, b).dtype)
    got = tf_op(name)(tf.asarray(a), tf.asarray(b))
    assert got.dtype == want
    with np.errstate(all="ignore"):
        exp = getattr(np, name)(a.astype(want) if want.kind in "fc" else a,
                                b.astype(want) if want.kind in "fc" else b)
    assert_close(got, exp.astype(want), **_tol("power" if name == "power" else "add", want))


# every op in every layout for every dtype it supports: each dtype's data is laid out
# itself (a strided float64 tensor converted afterwards would test only float64 strides)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,dtype", UNARY_CASES, ids=lambda x: str(x))
def test_unary_layouts(name, dtype, layout):
    a = random_array((4, 6), dtype, _domains(name)[0], seed=3)
    t = make_layout(a, layout)
    assert t.dtype == a.dtype
    check(name, layout_values(a, layout), tensors=[t])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,dtype", BINARY_CASES, ids=lambda x: str(x))
def test_binary_layouts(name, dtype, layout):
    da, db = _domains(name)
    a = random_array((4, 6), dtype, da, seed=4)
    b = random_array((4, 6), dtype, db, seed=5)
    # one operand in the layout, the other transposed-contiguous: mixed strides
    ta = make_layout(a, layout)
    tb = make_layout(b, "transposed")
    assert ta.dtype == a.dtype and tb.dtype == b.dtype
    check(name, layout_values(a, layout), b, tensors=[ta, tb])
    # both operands in the layout: the kernels' equal-stride paths
    check(name, layout_values(a, layout), layout_values(b, layout),
          tensors=[ta, make_layout(b, layout)])


def test_layout_of_3d_negative_and_step():
    a = random_array((3, 4, 5), "float32", seed=9)
    for lay in LAYOUTS:
        t = make_layout(a, lay)
        assert_close(tf.exp(t) * 2 - t, np.exp(layout_values(a, lay)) * 2 - layout_values(a, lay))


# -- special values --------------------------------------------------------------------

SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -0.5, 1e-30, -1e-30, 1e30,
           -1e30, 2.5, -2.5, 3.5]


@pytest.mark.parametrize("dtype", FLOAT, ids=str)
@pytest.mark.parametrize("name", [n for n, op in OPS.items() if op.arity == 1
                                  and np.dtype("float64") in op.dtypes])
def test_unary_special_values(name, dtype):
    a = np.array(SPECIAL, dtype=dtype)
    got = tf_op(name)(tf.asarray(a))
    exp = reference(name, a)
    tol = _tol(name, exp.dtype)
    assert_close(got, exp, rtol=max(tol.get("rtol", 0), 1e-5) if exp.dtype.kind == "f" else None,
                 atol=tol.get("atol") if tol else None)
    g = np.asarray(got)
    if exp.dtype.kind == "f":
        zero = exp == 0
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(exp[zero]),
                                      err_msg="sign of zero differs for %s" % name)
        np.testing.assert_array_equal(np.isposinf(g), np.isposinf(exp))
        np.testing.assert_array_equal(np.isneginf(g), np.isneginf(exp))


@pytest.mark.parametrize("dtype", FLOAT, ids=str)
@pytest.mark.parametrize("name", [n for n, op in OPS.items() if op.arity == 2
                                  and np.dtype("float64") in op.dtypes])
def test_binary_special_values(name, dtype):
    v = np.array(SPECIAL, dtype=dtype)
    a, b = np.meshgrid(v, v, indexing="ij")
    got = tf_op(name)(tf.asarray(a), tf.asarray(b))
    exp = reference(name, a, b)
    assert_close(got, exp, rtol=1e-5 if exp.dtype.kind == "f" else None,
                 atol=0 if exp.dtype.kind == "f" else None)
    if exp.dtype.kind == "f" and name not in ("maximum", "minimum", "fmax", "fmin"):
        # (which of two equal zeros max/min return is implementation-defined in IEEE 754)
        g = np.asarray(got)
        zero = exp == 0
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(exp[zero]),
                                      err_msg="sign of zero differs for %s" % name)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_special_values(dtype):
    v = np.array([complex(np.nan, 0), complex(np.inf, 0), complex(0, np.inf), complex(-0.0, 0),
                  complex(1, -0.0), complex(-1, 1)], dtype=dtype)
    for name in ("abs", "isnan", "isinf", "isfinite", "conj", "real", "imag", "sign"):
        got = tf_op(name)(tf.asarray(v))
        assert_close(got, reference(name, v))


def test_round_decimals_and_half_even():
    a = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 1.2345, -1.2355, 123.456])
    for dec in (0, 1, 2, -1):
        assert_close(tf.round(tf.asarray(a), dec), np.round(a, dec))
    assert_close(tf.round(tf.asarray(a, dtype=tf.float32), 2), np.round(a.astype(np.float32), 2),
                 rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_rint_all_dtypes(dtype):
    a = random_array((7,), dtype, seed=3) * (3 if np.dtype(dtype).kind != "b" else 1)
    want = _canon(np.rint(a).dtype)
    with np.errstate(all="ignore"):
        exp = np.rint(a.astype(want) if a.dtype.kind == "b" else a)
    assert_close(tf.rint(tf.asarray(a)), exp.astype(want))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_round_integers_keep_dtype(dtype):
    a = np.array([-25, -15, -5, 0, 4, 5, 15, 25, 35, 1234], dtype)
    for dec in (0, 2, -1, -2):
        assert_close(tf.round(tf.asarray(a), dec), np.round(a, dec))
    t = tf.asarray(a)
    assert not np.shares_memory(np.asarray(tf.round(t)), np.asarray(t))


def test_angle_deg_and_int():
    z = random_array((5,), "complex128", seed=2)
    assert_close(tf.angle(tf.asarray(z), deg=True), np.angle(z, deg=True))
    i = np.array([-2, 0, 3], np.int32)
    assert_close(tf.angle(tf.asarray(i)), np.angle(i))


# -- where and clip ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_where_vs_numpy(dtype):
    c = random_array((3, 1, 4), "bool", seed=1)
    x = random_array((2, 4), dtype, seed=2)
    y = random_array((3, 2, 1), dtype, seed=3)
    assert_close(tf.where(tf.asarray(c), tf.asarray(x), tf.asarray(y)), np.where(c, x, y))
    # non-bool condition, scalar branches (weak), mixed dtypes
    assert_close(tf.where(tf.asarray(x), 1, 0), np.where(x, 1, 0).astype(np.int64))
    assert_close(tf.where(tf.asarray(c), tf.asarray(x), 2.5), np.where(c, x, 2.5))


def test_where_promotion_and_errors():
    c = np.array([True, False, True])
    a = np.arange(3, dtype=np.int32)
    b = np.ones(3, np.float32)
    assert_close(tf.where(tf.asarray(c), tf.asarray(a), tf.asarray(b)), np.where(c, a, b))
    with pytest.raises(ValueError, match=r"where: shapes .*\(3,\).*\(4,\)"):
        tf.where(tf.asarray(c), tf.ones(4), 0.0)


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_clip_vs_numpy(dtype):
    # (complex clip follows NumPy's lexicographic maximum/minimum)
    x = random_array((4, 5), dtype, seed=4)
    lo = random_array((5,), dtype, "small", seed=5)
    assert_close(tf.clip(tf.asarray(x), tf.asarray(lo), 2), np.clip(x, lo, 2))
    assert_close(tf.clip(tf.asarray(x), None, 1), np.clip(x, None, 1))
    assert_close(tf.clip(tf.asarray(x), -1, None), np.clip(x, -1, None))
    assert_close(tf.asarray(x).clip(-1, 1), np.clip(x, -1, 1))


def test_clip_nan_and_error():
    x = np.array([np.nan, -5.0, 0.3, 7.0])
    assert_close(tf.clip(tf.asarray(x), -1.0, 1.0), np.clip(x, -1.0, 1.0))
    with pytest.raises(ValueError, match="clip: at least one of min and max"):
        tf.clip(tf.asarray(x))


# -- promotion with weak Python scalars -------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("scalar", [True, 3, 2.5, 1 + 2j])
@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.truediv])
def test_weak_scalar_promotion(dtype, scalar, op):
    a = random_array((5,), dtype, "pos", seed=7)
    try:
        with np.errstate(all="ignore"):
            exp = op(a, scalar)
            rexp = op(scalar, a)
    except (TypeError, OverflowError) as e:
        with pytest.raises(type(e)):
            op(tf.asarray(a), scalar)
        return
    got = op(tf.asarray(a), scalar)
    assert got.dtype == _canon(exp.dtype)
    assert_close(got, exp.astype(_canon(exp.dtype)), **_tol("add", _canon(exp.dtype)))
    assert_close(op(scalar, tf.asarray(a)), rexp.astype(_canon(rexp.dtype)),
                 **_tol("add", _canon(rexp.dtype)))


def test_weak_scalar_named_examples():
    i = tf.asarray(np.arange(4, dtype=np.int32))
    assert (i + 1).dtype == tf.int32
    assert (i + 1.0).dtype == tf.float64
    assert (tf.ones(3, dtype=tf.float32) + 1j).dtype == tf.complex64
    assert (tf.ones(3, dtype=tf.float32) * 2.0).dtype == tf.float32
    assert (tf.asarray([True]) + 1).dtype == tf.int64
    assert_close(i * 3 - 1, np.arange(4, dtype=np.int32) * 3 - 1)


def test_python_int_overflow_like_numpy():
    a = np.arange(3, dtype=np.int32)
    with pytest.raises(OverflowError) as np_err:
        a + 2 ** 40
    with pytest.raises(OverflowError, match="out of bounds for int32") as tf_err:
        tf.asarray(a) + 2 ** 40
    assert str(tf_err.value) == "tenferro.add: " + str(np_err.value)   # NumPy's, naming the op
    with pytest.raises(OverflowError, match="1099511627776 out of bounds for int32"):
        2 ** 40 * tf.asarray(a)
    # fits after all: no error, exact
    assert_close(tf.asarray(a) + (2 ** 31 - 3), a + (2 ** 31 - 3))


# -- operators ----------------------------------------------------------------------------

BINOPS = [("add", operator.add), ("subtract", operator.sub), ("multiply", operator.mul),
          ("divide", operator.truediv), ("floor_divide", operator.floordiv),
          ("remainder", operator.mod), ("power", operator.pow),
          ("bitwise_and", operator.and_), ("bitwise_or", operator.or_),
          ("bitwise_xor", operator.xor), ("left_shift", operator.lshift),
          ("right_shift", operator.rshift), ("equal", operator.eq),
          ("not_equal", operator.ne), ("less", operator.lt), ("less_equal", operator.le),
          ("greater", operator.gt), ("greater_equal", operator.ge)]


@pytest.mark.parametrize("name,op", BINOPS, ids=[b[0] for b in BINOPS])
def test_operators_and_reflected(name, op):
    dtype = "int64" if name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                "right_shift", "power") else "float64"
    da, db = _domains(name)
    a = random_array((3, 4), dtype, da, seed=1)
    b = random_array((4,), dtype, db, seed=2)
    with np.errstate(all="ignore"):
        exp = op(a, b)
        assert_close(op(tf.asarray(a), tf.asarray(b)), exp, **_tol(name, exp.dtype))
        # ndarray on the left defers to the Tensor (__array_priority__ / __array_ufunc__)
        r = op(a, tf.asarray(b))
        assert isinstance(r, tf.Tensor)
        assert_close(r, exp, **_tol(name, exp.dtype))
        # Python scalar on the left: reflected method
        s = 3
        exp_r = op(s, b)
        assert_close(op(s, tf.asarray(b)), exp_r, **_tol(name, exp_r.dtype))


def test_unary_operators():
    a = random_array((5,), "float64", seed=1)
    i = random_array((5,), "int32", seed=2)
    assert_close(-tf.asarray(a), -a)
    assert_close(+tf.asarray(a), +a)
    assert_close(abs(tf.asarray(a)), abs(a))
    assert_close(~tf.asarray(i), ~i)
    b = random_array((5,), "bool", seed=3)
    assert_close(~tf.asarray(b), ~b)
    with pytest.raises(TypeError, match="negative.*bool"):
        -tf.asarray(b)


def test_matmul_operator():
    a = random_array((3, 4), "float64", seed=1)
    b = random_array((4, 2), "float64", seed=2)
    assert_close(tf.asarray(a) @ tf.asarray(b), a @ b, rtol=1e-13)
    assert_close(a @ tf.asarray(b), a @ b, rtol=1e-13)


INPLACE = [(operator.iadd, operator.add), (operator.isub, operator.sub),
           (operator.imul, operator.mul), (operator.itruediv, operator.truediv),
           (operator.ipow, operator.pow), (operator.ifloordiv, operator.floordiv),
           (operator.imod, operator.mod)]


@pytest.mark.parametrize("iop,op", INPLACE, ids=[o[1].__name__ for o in INPLACE])
@pytest.mark.parametrize("layout", ["contiguous", "fortran", "step2", "negstride"])
def test_inplace_float_keeps_identity(iop, op, layout):
    a = random_array((3, 4), "float64", "pos", seed=1)
    b = random_array((4,), "float64", "pos", seed=2)
    t = make_layout(a, layout)
    before = np.asarray(t)
    t2 = iop(t, tf.asarray(b))
    assert t2 is t
    assert_close(t, op(a, b))
    # the memory was written in place (np view of the same storage sees it)
    np.testing.assert_allclose(before, op(a, b))


def test_inplace_int():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = tf.asarray(a.copy())
    t2 = t
    t += 1
    t *= 2
    t -= tf.asarray(np.array([1, 2, 3], np.int32))
    assert t is t2
    assert_close(t, (a + 1) * 2 - np.array([1, 2, 3], np.int32))
    t <<= 1
    t |= 1
    assert_close(t, (((a + 1) * 2 - np.array([1, 2, 3], np.int32)) << 1) | 1)


def test_inplace_same_kind_errors():
    t = tf.asarray(np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="same_kind"):
        t += 1.5
    with pytest.raises(TypeError, match="same_kind"):
        t /= 2
    f = tf.ones(3, dtype=tf.float32)
    with pytest.raises(TypeError, match="same_kind"):
        f += 1j
    # float64 into float32 is same_kind: allowed, cast down like numpy
    f += tf.asarray(np.full(3, 0.1))
    assert f.dtype == tf.float32
    assert_close(f, np.ones(3, np.float32) + np.full(3, 0.1), dtype=np.float32, rtol=1e-7)
    with pytest.raises(ValueError, match=r"add: out has shape \(3,\) but the result has shape "
                       r"\(2, 3\)"):
        f += tf.ones((2, 3))
    assert_close(t, np.arange(3, dtype=np.int32))  # untouched by the failed updates


# -- numpy interop --------------------------------------------------------------------------

def test_array_ufunc_returns_tensor():
    a = random_array((4,), "float64", seed=1)
    t = tf.asarray(a)
    for uf in (np.sin, np.exp, np.negative, np.conjugate, np.absolute):
        r = uf(t)
        assert isinstance(r, tf.Tensor), uf
        assert_close(r, uf(a))
    r = np.add(t, a)
    assert isinstance(r, tf.Tensor)
    assert_close(r, a + a)
    # an ndarray out= is NumPy's to fill (see tests/test_numpy_protocols.py)
    n = np.empty(4)
    assert np.sin(t, out=n) is n


# -- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [n for n in OPS if n in UNARY or n in BINARY])
def test_unsupported_dtypes_raise_typeerror_naming_op(name):
    op = OPS[name]
    for d in DTYPES:
        if d in op.dtypes or d in op.untested:
            continue
        a = tf.asarray(random_array((3,), d, seed=0))
        with pytest.raises(TypeError, match=r"tenferro\.%s: not supported.*%s" % (name, d)):
            tf_op(name)(*([a] * op.arity))
        # NumPy agrees it is unsupported (unless the reference takes more than the op)
        if not op.ref_is_wider:
            with pytest.raises(TypeError), np.errstate(all="ignore"):
                reference(name, *([np.asarray(a)] * op.arity))


def test_bitwise_on_float_message():
    with pytest.raises(TypeError, match=r"bitwise_and.*float64.*expected integer or bool"):
        tf.ones(3) & tf.ones(3)
    with pytest.raises(TypeError, match="left_shift"):
        tf.ones(3) << 1


@pytest.mark.parametrize("name", ["add", "multiply", "less", "arctan2", "bitwise_or"])
def test_broadcast_mismatch_message(name):
    dt = tf.int64 if name == "bitwise_or" else tf.float64
    with pytest.raises(ValueError, match=r"%s: shapes \(2, 3\) and \(4,\) do not broadcast"
                       % name):
        tf_op(name)(tf.ones((2, 3), dtype=dt), tf.ones(4, dtype=dt))


def test_unsupported_operand_type():
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Tensor' and "
                       r"'object'"):
        tf.ones(3) + object()
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*: 'object' and "
                       r"'Tensor'"):
        object() * tf.ones(3)
    with pytest.raises(TypeError, match="unsupported operand type.*'Tensor' and 'str'"):
        tf.ones(3) + "abc"


# -- threads -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sin", "exp", "add", "multiply", "hypot", "sqrt", "less",
                                  "where"])
def test_one_vs_two_threads_identical(name):
    n = 200_000
    a = random_array((n,), "float64", "pos", seed=1)
    b = random_array((n,), "float64", "pos", seed=2)
    ta, tb = tf.asarray(a), tf.asarray(b)
    if name == "where":
        def f():
            return tf.where(ta > 1.0, ta, tb)
    elif name in BINARY:
        def f():
            return tf_op(name)(ta, tb)
    else:
        def f():
            return tf_op(name)(ta)
    with tf.num_threads(1):
        r1 = np.asarray(f()).copy()
    with tf.num_threads(2):
        r2 = np.asarray(f()).copy()
    np.testing.assert_array_equal(r1, r2)
    exp = np.where(a > 1.0, a, b) if name == "where" else reference(
        name, *((a, b) if name in BINARY else (a,)))
    assert_close(tf.asarray(r2), exp, **_tol(name if name != "where" else "add", exp.dtype))


# -- property: random strided, permuted and broadcast operands ------------------------------

from hypothesis import given, strategies as st  # noqa: E402

from conftest import hyp_settings  # noqa: E402


@st.composite
def strided_operand(draw, shape, dtype="float64"):
    """An ndarray-backed tensor of ``dtype`` with logical ``shape`` but random strides
    (the strided buffer itself holds ``dtype``: no conversion makes it contiguous)."""
    nd = len(shape)
    perm = draw(st.permutations(range(nd)))
    steps = draw(st.lists(st.sampled_from([1, 2, -1, -3]), min_size=nd, max_size=nd))
    bshape = [shape[p] for p in perm]
    n = int(np.prod([abs(s) * n for s, n in zip(steps, bshape)]))
    vals = np.arange(n) % 7 - 3 if np.dtype(dtype).kind != "b" else np.arange(n) % 3 == 1
    if np.dtype(dtype).kind == "c":
        vals = vals + 1j * (np.arange(n) % 5 - 2)
    big = vals.astype(dtype).reshape([abs(s) * n for s, n in zip(steps, bshape)])
    key = tuple(slice(None, None, s) for s in steps)
    inv = np.argsort(perm)
    arr = np.transpose(big[key], inv) if nd else big
    t = tf.permute_dims(tf.asarray(big)[key], tuple(int(i) for i in inv)) if nd else \
        tf.asarray(big)
    return t, arr


_PROPERTY_OPS = ["add", "multiply", "maximum", "less", "arctan2"]


@st.composite
def binary_case(draw):
    name = draw(st.sampled_from(_PROPERTY_OPS))
    dtype = draw(st.sampled_from([str(d) for d in OPS[name].dtypes]))
    nd = draw(st.integers(0, 4))
    shape = draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd))
    # the second operand drops leading dims and sets some dims to 1 (broadcast)
    k = draw(st.integers(0, nd))
    s2 = [1 if draw(st.booleans()) else n for n in shape[k:]]
    t1, a1 = draw(strided_operand(tuple(shape), dtype))
    t2, a2 = draw(strided_operand(tuple(s2), dtype))
    if draw(st.booleans()):
        t1, a1, t2, a2 = t2, a2, t1, a1
    return name, dtype, t1, a1, t2, a2


@hyp_settings(100)
@given(binary_case())
def test_binary_strided_broadcast_property(case):
    # every dtype the op takes, strided in that dtype (was: float64 strided, other
    # dtypes converted to contiguous copies first)
    name, dtype, t1, a1, t2, a2 = case
    assert t1.dtype == dtype and t2.dtype == dtype
    got = tf_op(name)(t1, t2)
    exp = reference(name, a1, a2)
    assert_close(got, exp, **_tol(name, exp.dtype))
    u = tf_op("negative" if dtype != "bool" else "logical_not")(t1)   # unary, strided
    assert_close(u, -a1 if dtype != "bool" else ~a1)


# -- out= -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "multiply", "less", "arctan2"])
def test_out_argument(name):
    a = random_array((4, 5), "float64", "pos", seed=1)
    b = random_array((5,), "float64", "pos", seed=2)
    exp = getattr(np, name)(a, b)
    out = tf.empty(exp.shape, dtype=exp.dtype)
    r = tf_op(name)(tf.asarray(a), tf.asarray(b), out=out)
    assert r is out
    assert_close(out, exp)
    # a wider out dtype (same_kind cast on the way out)
    if exp.dtype == np.float64:
        out32 = tf.empty(exp.shape, dtype=tf.float32)
        tf_op(name)(tf.asarray(a), tf.asarray(b), out=out32)
        assert_close(out32, exp.astype(np.float32))


def test_out_unary_and_overlap():
    a = np.linspace(0, 1, 7)
    t = tf.asarray(a.copy())
    tf.exp(t, out=t)  # exact alias: in place
    assert_close(t, np.exp(a))
    z = tf.arange(8.0)
    tf.add(z[:-1], 1.0, out=z[1:])  # partial overlap: computed as if into a fresh buffer
    zn = np.arange(8.0)
    np.add(zn[:-1], 1.0, out=zn[1:])
    assert_close(z, zn)


def test_out_errors():
    x = tf.ones(3)
    with pytest.raises(ValueError, match=r"add: out has shape \(2,\) but the result has shape "
                       r"\(3,\)"):
        tf.add(x, x, out=tf.empty(2))
    with pytest.raises(TypeError, match="cannot cast the result from float64 to out's dtype "
                       "int64 under the same_kind rule"):
        tf.add(x, x, out=tf.empty(3, dtype=tf.int64))
    with pytest.raises(TypeError, match="out must be a Tensor, got ndarray"):
        tf.add(x, x, out=np.empty(3))


def test_numpy_clip_and_round_return_tensors():
    a = np.linspace(-2, 2, 9)
    t = tf.asarray(a)
    got = np.clip(t, -1, 1)
    assert isinstance(got, tf.Tensor)
    assert_close(got, np.clip(a, -1, 1))
    got = np.round(t * 1.37, 1)
    assert isinstance(got, tf.Tensor)
    assert_close(got, np.round(a * 1.37, 1))
