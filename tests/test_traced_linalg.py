"""tenferro.linalg under tenferro.make_graph: the rules that decided things on the
host at trace time -- LU's pivots, det's singular branch, the eigen/singular-vector
phase checks, lstsq's rank, expm's degree -- now run in the program.  Forward values
are compared with SciPy/NumPy, derivatives with the eager transforms (gradcheck'ed
against finite differences in tests/test_linalg_*.py); value-dependent errors are
runtime checks that raise in the compiled program exactly as eagerly."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
import tenferro.linalg as tl
from tenferro.autograd._check import check, check_p

from conftest import assert_close, sample, stable_rng


def _a(shape, *key, dtype="float64"):
    return sample(stable_rng("traced-linalg", *key), shape, dtype)


def _herm(n, *key):
    a = _a((n, n), *key, dtype="complex128")
    return tf.asarray(a + a.conj().T)


PHASES = "depends on the phases of the complex"


# -- the check primitive ---------------------------------------------------------------

def test_check_eager_raises_at_once_and_passes_its_value():
    x = tf.asarray([1.0, 2.0])
    assert check(x, tf.asarray([True, True]), ValueError, "never") is x
    with pytest.raises(ValueError, match="x must be positive"):
        check(x, x < 2.0, ValueError, "x must be positive")
    with pytest.raises(KeyError, match="plain bool"):
        check(x, False, KeyError, "plain bool")


def test_check_traced_is_a_node_kept_by_dce_and_raises_when_run():
    def f(x):
        return check(x * 2.0, x > 0, ValueError, "tenferro test: x must be positive") + 1.0
    g = tf.make_graph(f, tf.TensorSpec((3,)))
    assert "check" in str(g)
    for passes in (("fold", "simplify", "cse", "dce"), ()):
        prog = tf.compile(g, passes=passes)
        assert any(n.prim is check_p for n in prog.graph.nodes)
        assert_close(prog(tf.asarray([1.0, 2.0, 3.0])), np.array([3.0, 5.0, 7.0]))
        with pytest.raises(ValueError, match="x must be positive"):
            prog(tf.asarray([1.0, -2.0, 3.0]))
    # derivatives pass through the check (and it stays in the derivative's graph)
    w = tf.asarray([0.5, 1.5, 2.5])
    gg = tf.jit(tf.grad(lambda x: tf.sum(f(x) ** 2)))
    assert_close(gg(w), 2 * (2 * w.numpy() + 1) * 2)
    with pytest.raises(ValueError, match="x must be positive"):
        gg(tf.asarray([0.5, -1.5, 2.5]))


def test_check_condition_must_be_bool():
    msg = r"tenferro\.check: the condition must be a bool tensor, got dtype float64 \(shape"
    with pytest.raises(TypeError, match=msg):
        tf.make_graph(lambda x: check(x, x, ValueError, "m"), tf.TensorSpec((2,)))
    with pytest.raises(TypeError, match=msg):
        check(tf.ones(2), tf.ones(2), ValueError, "m")


# -- phase checks: the same program raises for a phase-dependent cotangent -----------------

def _eigh_loss(a, c):
    # phase-invariant |V|^2 part plus a part that depends on the phases unless c = 0
    w, v = tl.eigh(a)
    return tf.sum(tf.real(v * tf.conj(v)) * w[None, :]) + tf.sum(tf.real(v) * c)


def _svd_loss(a, c):
    u, s, vh = tl.svd(a, full_matrices=False)
    return tf.sum(tf.abs(u) ** 2 * s[None, :]) + tf.sum(tf.real(u) * c)


def _eig_loss(a, c):
    w, v = tl.eig(a)
    return tf.sum(tf.real(v * tf.conj(v))) + tf.sum(tf.real(w)) + tf.sum(tf.real(v) * c)


@pytest.mark.parametrize("loss,op,complex_input", [(_eigh_loss, "eigh", True),
                                                   (_svd_loss, "svd", True),
                                                   (_eig_loss, "eig", True),
                                                   (_eig_loss, "eig", False)])
def test_phase_check_raises_in_the_compiled_program(loss, op, complex_input):
    n = 4
    a = _herm(n, op) if op == "eigh" else tf.asarray(
        _a((n, n), op, complex_input, dtype="complex128" if complex_input else "float64"))
    grad = tf.grad(loss, argnums=(0, 1))
    prog = tf.jit(grad)
    good = tf.zeros((n, n))
    bad = tf.asarray(_a((n, n), op, "c"))
    for got, want in zip(prog(a, good), grad(a, good)):     # eager: the same values
        assert_close(got, want.numpy(), rtol=1e-9, atol=1e-9)
    with pytest.raises(tl.LinAlgError, match=r"linalg\.%s: the loss %s" % (op, PHASES)):
        grad(a, bad)                                         # eagerly
    with pytest.raises(tl.LinAlgError, match=r"linalg\.%s: the loss %s" % (op, PHASES)):
        prog(a, bad)                                         # when the program runs
    assert prog.cache_info().misses == 1


# -- det at singular matrices: the adjugate, selected at run time ------------------------

@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_det_derivatives_at_singular_matrices(dtype):
    a = _a((4, 4, 4), "det", dtype=dtype)
    a[0, :, 1] = 0                       # rank 3: adj(A) != 0
    a[1, :, 1:3] = 0                     # rank 2: adj(A) = 0
    a[2, 3] = 2 * a[2, 0]                # rank 3 (proportional rows)
    a = tf.asarray(a)
    w = np.asarray([1.0, -2.0, 0.5, 3.0])

    def f(x):
        return tf.sum(tf.real(tl.det(x)) * w)
    assert_close(tf.jit(tl.det)(a), sl.det(a.numpy()), rtol=1e-12, atol=1e-12)
    want = tf.grad(f)(a).numpy()
    assert np.abs(want[0]).max() > 0.1 and np.abs(want[1]).max() == 0
    assert_close(tf.jit(tf.grad(f))(a), want, rtol=1e-10, atol=1e-12)
    t = tf.asarray(_a((4, 4, 4), "det-t", dtype=dtype))
    out, dout = tf.jit(lambda x, t: tf.jvp(f, (x,), (t,)))(a, t)
    wout, wdout = tf.jvp(f, (a,), (t,))
    assert_close(out, wout.numpy(), rtol=1e-12, atol=1e-12)
    assert_close(dout, wdout.numpy(), rtol=1e-10, atol=1e-12)


# -- LU: permutations on the device --------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 5), (2, 6, 4), (3, 4)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_lu_traced_matches_scipy(shape, dtype):
    a = tf.asarray(_a(shape, "lu", dtype=dtype))
    p, l, u = tf.jit(tl.lu)(a)
    rows, l2, u2 = tf.jit(lambda x: tl.lu(x, p_indices=True))(a)
    for i in np.ndindex(shape[:-2]):
        wp, wl, wu = sl.lu(a.numpy()[i])
        assert_close(p[i], wp, rtol=0, atol=0)
        assert_close(l[i], wl, rtol=1e-12, atol=1e-12)
        assert_close(u[i], wu, rtol=1e-12, atol=1e-12)
        wr, _, _ = sl.lu(a.numpy()[i], p_indices=True)
        assert_close(rows[i], wr.astype(np.int32))
    assert_close(l2, l.numpy(), rtol=0, atol=0)
    pl, u3 = tf.jit(lambda x: tl.lu(x, permute_l=True))(a)
    assert_close(pl, (p.numpy().astype(dtype) @ l.numpy()), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_slogdet_traced(dtype):
    a = tf.asarray(_a((3, 5, 5), "slogdet", dtype=dtype))
    sign, logabs = tf.jit(tl.slogdet)(a)
    wsign, wlog = np.linalg.slogdet(a.numpy())
    assert_close(sign, wsign, rtol=1e-12, atol=1e-12)
    assert_close(logabs, wlog, rtol=1e-12, atol=1e-12)
    f = lambda x: tf.sum(tl.slogdet(x)[1])    # noqa: E731
    assert_close(tf.jit(tf.grad(f))(a), tf.grad(f)(a).numpy(), rtol=1e-10, atol=1e-12)


# -- lstsq: residues assume full rank, checked at run time ----------------------------------

def test_lstsq_traced_rank_and_residues():
    a = _a((6, 3), "lstsq")
    b = _a((6, 2), "lstsq-b")
    deficient = a.copy()
    deficient[:, 2] = deficient[:, 0]
    x, res, rank, s = tf.jit(tl.lstsq)(tf.asarray(a), tf.asarray(b))
    wx, wres, wrank, ws = sl.lstsq(a, b)
    assert_close(x, wx, rtol=1e-10, atol=1e-12)
    assert_close(res, wres, rtol=1e-10, atol=1e-12)
    assert_close(s, ws, rtol=1e-12, atol=1e-12)
    assert_close(rank, np.int32(wrank))
    # the residues of a rank-deficient matrix: empty eagerly, a runtime error traced
    assert tl.lstsq(deficient, b)[1].shape == (0,)
    with pytest.raises(tl.LinAlgError, match=r"lstsq: the residues of a traced lstsq "
                                             r"assume full column rank \(3\)"):
        tf.jit(tl.lstsq)(tf.asarray(deficient), tf.asarray(b))
    # not asked for, they are not computed: x and the rank run for that matrix too
    x2, rank2 = tf.jit(lambda a, b: tl.lstsq(a, b)[::2])(tf.asarray(deficient),
                                                          tf.asarray(b))
    wx2, _, wrank2, _ = sl.lstsq(deficient, b)
    assert_close(x2, wx2, rtol=1e-10, atol=1e-12)
    assert_close(rank2, np.int32(wrank2))


# -- expm: degree and scaling chosen when the program runs ----------------------------------

@pytest.mark.parametrize("scale", [1e-3, 1.0, 30.0])
def test_expm_traced_follows_the_values(scale):
    prog = tf.jit(tl.expm)
    a = _a((2, 4, 4), "expm", dtype="complex128")
    for s in (scale, 1e-3):   # one program, degrees chosen per call
        x = tf.asarray(a * s)
        assert_close(prog(x), sl.expm(x.numpy()), rtol=1e-10, atol=1e-12)
    assert prog.cache_info().misses == 1
    f = lambda x: tf.sum(tf.real(tl.expm(x)) ** 2)   # noqa: E731
    x = tf.asarray(a * scale)
    assert_close(tf.jit(tf.grad(f))(x), tf.grad(f)(x).numpy(), rtol=1e-9, atol=1e-12)
