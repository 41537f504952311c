"""NumPy's protocols on tensors (tenferro/_numpy_protocols): ``__array_function__``
dispatches every listed NumPy function to its tenferro twin (checked against NumPy on
sample inputs, differentiable), ``__array_ufunc__`` every ufunc tenferro has, and
everything else goes through the explicit NumPy fallback (CPU tensors back, TypeError
for tensors that require grad or live on another device)."""
import numpy as np
import pytest
import scipy.special as sc

import tenferro as tf
from tenferro._numpy_protocols import _functions as F, _ufuncs as U, twin
from numpy_protocol_samples import SAMPLES

A = np.random.default_rng(1).standard_normal((3, 4))


def _func(qualname):
    mod, name = qualname.rsplit(".", 1)
    return getattr({"numpy": np, "numpy.linalg": np.linalg}[mod], name)


def _tensors(tree):
    if isinstance(tree, np.ndarray):
        return tf.asarray(tree)
    if type(tree) in (list, tuple):
        return type(tree)(_tensors(x) for x in tree)
    return tree


def _as_numpy(r, ref):
    """tenferro's result ``r`` as NumPy values, checking it has ``ref``'s structure and a
    Tensor (of ``ref``'s dtype and shape) wherever NumPy gives an array or a scalar."""
    if isinstance(ref, (np.ndarray, np.generic)):
        assert isinstance(r, tf.Tensor), (type(r), ref)
        assert r.device == tf.device("cpu")
        assert (r.dtype, r.shape) == (ref.dtype, ref.shape), (r.dtype, r.shape, ref.dtype,
                                                             ref.shape)
        return r.numpy()
    if isinstance(ref, (tuple, list)):
        assert isinstance(r, (tuple, list)) and len(r) == len(ref), (r, ref)
        assert getattr(r, "_fields", None) == getattr(ref, "_fields", None)
        return type(ref)(*(_as_numpy(x, y) for x, y in zip(r, ref))) \
            if hasattr(ref, "_fields") else [_as_numpy(x, y) for x, y in zip(r, ref)]
    assert not isinstance(r, tf.Tensor) and r == ref, (r, ref)
    return r


def _assert_same(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
    elif isinstance(want, (np.ndarray, np.generic)) and want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


CASES = [(name, i) for name in sorted(SAMPLES) for i in range(len(SAMPLES[name]))]


@pytest.mark.parametrize("name,i", CASES, ids=["%s-%d" % c for c in CASES])
def test_dispatched_function_matches_numpy(name, i):
    func = _func(name)
    args, kwargs, *post = SAMPLES[name][i]
    if twin(func) is None:
        pytest.skip("tenferro has no twin of %s yet (it is listed: it dispatches once it "
                    "appears)" % name)
    want = func(*args, **kwargs)
    got = _as_numpy(func(*_tensors(args), **_tensors(kwargs)), want)
    if post:
        got, want = post[0](got), post[0](want)
    _assert_same(got, want)


def test_every_dispatched_function_has_samples():
    names = {label for _, _, label in F.TWINS.values()}
    assert names == set(SAMPLES), (sorted(names - set(SAMPLES)),
                                   sorted(set(SAMPLES) - names))


def test_samples_run_on_numpy():
    """The samples of twins tenferro does not have yet are valid NumPy calls."""
    for name, samples in SAMPLES.items():
        for args, kwargs, *_ in samples:
            _func(name)(*args, **kwargs)


def test_shared_names_are_classified():
    """A tenferro function sharing a NumPy function's name is listed as its twin or, with
    a reason, as not one: a name clash cannot dispatch (or fail to) unnoticed."""
    shared = {n for n in dir(tf) if not n.startswith("_") and callable(getattr(tf, n))
              and hasattr(getattr(np, n, None), "_implementation")}
    unlisted = {n for n in shared if getattr(np, n) not in F.TWINS and n not in F.NOT_TWINS}
    assert not unlisted, sorted(unlisted)
    linalg = {n for n in tf.linalg.__all__
              if hasattr(getattr(np.linalg, n, None), "_implementation")}
    listed = set(F.SAME_LINALG) | {n for m, n in F.OTHER if m == "numpy.linalg"} | {
        "eig", "eigvals", "lstsq", "pinv"}   # NumPy's semantics differ: the fallback
    assert linalg <= listed, sorted(linalg - listed)


# -- dispatch, looked up by name at call time -------------------------------------------
def test_dispatch_calls_tenferros_function(monkeypatch):
    calls = []
    real = tf.sum
    monkeypatch.setattr(tf, "sum", lambda x, *a, **k: calls.append(1) or real(x, *a, **k))
    assert float(np.sum(tf.asarray(A))) == pytest.approx(A.sum())
    assert calls == [1]


def test_twin_appearing_later_is_picked_up(monkeypatch):
    monkeypatch.setattr(tf, "sort", lambda x, axis=-1, **k: "tenferro's", raising=False)
    assert np.sort(tf.asarray(A)) == "tenferro's"


def test_unlisted_name_never_dispatches(monkeypatch):
    monkeypatch.setattr(tf, "convolve", lambda *a, **k: "clash", raising=False)
    r = np.convolve(tf.asarray(A[0]), tf.asarray(A[1]))
    assert isinstance(r, tf.Tensor)
    np.testing.assert_allclose(r.numpy(), np.convolve(A[0], A[1]))


def test_argument_the_twin_lacks_goes_to_numpy():
    t = tf.asarray(A)
    r = np.sum(t, where=A > 0)
    assert isinstance(r, tf.Tensor) and float(r) == pytest.approx(A[A > 0].sum())
    r = np.take(t, [0, 7], mode="wrap")
    np.testing.assert_array_equal(r.numpy(), np.take(A, [0, 7], mode="wrap"))


def test_out_tensor_is_filled():
    t, o = tf.asarray(A), tf.zeros(4)
    assert np.sum(t, axis=0, out=o) is o
    np.testing.assert_allclose(o.numpy(), A.sum(0))
    o2 = tf.zeros((3, 4))
    assert np.clip(t, -0.1, 0.1, out=o2) is o2
    np.testing.assert_allclose(o2.numpy(), np.clip(A, -0.1, 0.1))
    assert np.round(t, 1, out=o2) is o2   # tenferro.round takes no out=: filled after
    np.testing.assert_allclose(o2.numpy(), np.round(A, 1))
    o3 = np.zeros(4)   # an ndarray out: NumPy's own
    assert np.sum(t, axis=0, out=o3) is o3
    np.testing.assert_allclose(o3, A.sum(0))


def test_inside_jit_and_transforms():
    f = tf.jit(lambda x: np.sum(np.sin(np.stack([x, 2 * x]))))
    np.testing.assert_allclose(float(f(tf.asarray(A))), np.sin(np.stack([A, 2 * A])).sum())
    with pytest.raises(tf.ConcretizationError):
        tf.grad(lambda x: tf.sum(np.fmod(x, 2)))(tf.asarray(A))


# -- gradients through dispatched functions and ufuncs ----------------------------------
def test_gradient_through_sum_of_stack():
    x = tf.tensor(A, requires_grad=True)
    y = tf.tensor(A[0], requires_grad=True)
    np.sum(np.stack([x[0] * 2, np.sin(y)])).backward()
    np.testing.assert_allclose(y.grad.numpy(), np.cos(A[0]))
    np.testing.assert_allclose(x.grad.numpy()[0], 2.0)
    np.testing.assert_allclose(x.grad.numpy()[1:], 0.0)


SPD = A[:, :3] @ A[:, :3].T + 3 * np.eye(3)
GRADS = {
    "concatenate": (lambda x: np.sum(np.concatenate([x, np.sin(x)])), A),
    "einsum+norm": (lambda x: np.linalg.norm(np.einsum("ij,kj->ik", x, x)), A),
    "where+clip": (lambda x: np.where(x > 0, np.clip(x, -0.5, 0.5), x * x), A),
    "take+moveaxis": (lambda x: np.moveaxis(np.take(x, [0, 2], axis=1), 0, 1), A),
    "tensordot+mean": (lambda x: np.mean(np.tensordot(x, x, axes=([1], [1])), axis=0), A),
    "cumsum+transpose": (lambda x: np.cumsum(np.transpose(x), axis=1), A),
    "ufunc outer/reduce": (lambda x: np.add.reduce(np.multiply.outer(x[0], x[1]), axis=1), A),
    "expit": (lambda x: sc.expit(x), A),
    "det+solve+inv": (lambda x: np.linalg.det(x) * np.linalg.solve(x, np.linalg.inv(x)[0]),
                      SPD),
    "cholesky+eigh": (lambda x: np.linalg.cholesky(x + x.T).sum() + np.linalg.eigh(
        x + x.T).eigenvalues.sum(), SPD),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradcheck_through_numpy_calls(name):
    f, x = GRADS[name]
    tf.autograd.gradcheck(f, (tf.asarray(x),), modes=("jvp", "vjp"), order=1)
