"""tenferro.dask.map: batches of linear algebra and a sweep of gradients against
NumPy/SciPy and finite differences, pytrees, complex dtypes and Python scalars, on Dask's
local scheduler and on a dask.distributed.LocalCluster of two worker processes; the
function compiled once per worker; the errors."""
import collections
import inspect
import os
import sys

import numpy as np
import pytest

pytest.importorskip("dask")

import scipy.linalg  # noqa: E402

import tenferro as tf  # noqa: E402
import tenferro.dask as td  # noqa: E402
import tenferro.linalg as tl  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def cluster():
    """A Client of a LocalCluster of two single-threaded worker processes; this module's
    functions travel by value (the workers cannot import it)."""
    distributed = pytest.importorskip("distributed")
    import cloudpickle
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as c, \
                distributed.Client(c) as client:
            yield client
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        mp.undo()


@pytest.fixture
def threads():
    """Dask's threaded scheduler as the default (a Client, once made, is the default)."""
    import dask
    with dask.config.set(scheduler="threads"):
        yield


@pytest.fixture(params=["local", "cluster"])
def client(request):
    if request.param == "local":
        request.getfixturevalue("threads")
        return None
    return request.getfixturevalue("cluster")


def _spd(rng, n, dtype):
    a = rng.standard_normal((n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((n, n))
    return (a @ a.conj().T + n * np.eye(n)).astype(dtype)


def _solve_and_factor(a, b):
    return tl.solve(a, b), tl.cholesky(a, lower=True)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_batch_of_solves_and_choleskys(client, dtype):
    rng = np.random.default_rng(0)
    mats = [_spd(rng, 6, dtype) for _ in range(8)]
    rhs = [_spd(rng, 6, dtype)[:, :2] for _ in range(8)]
    got = td.map(_solve_and_factor, [(tf.asarray(a), b) for a, b in zip(mats, rhs)],
                 client=client)
    assert len(got) == 8
    for (x, L), a, b in zip(got, mats, rhs):
        assert isinstance(x, tf.Tensor) and x.device.type == "cpu"
        assert x.dtype == L.dtype == tf.asarray(a).dtype
        np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-10)
        np.testing.assert_allclose(L.numpy(), scipy.linalg.cholesky(a, lower=True),
                                   rtol=1e-10, atol=1e-12)


def _gp_nll(logp, X, y, xp):
    """The negative log marginal likelihood of a Gaussian process with a squared-
    exponential kernel (log length scale, log signal and noise amplitudes ``logp``)."""
    ls, sf, sn = xp.exp(logp[0]), xp.exp(logp[1]), xp.exp(logp[2])
    d = xp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf ** 2 * xp.exp(-0.5 * d / ls ** 2) + sn ** 2 * xp.eye(X.shape[0])
    if xp is np:
        L = np.linalg.cholesky(K)
        alpha = scipy.linalg.cho_solve((L, True), y)
    else:
        L = tl.cholesky(K, lower=True)
        alpha = tl.cho_solve((L, True), y)
    return 0.5 * xp.sum(y * alpha) + xp.sum(xp.log(xp.diagonal(L))) \
        + 0.5 * X.shape[0] * np.log(2 * np.pi)


def _gp_value_and_grad(logp, X, y):
    return tf.value_and_grad(lambda p: _gp_nll(p, X, y, tf))(logp)


def test_sweep_of_gp_likelihoods_and_their_gradients(client):
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((25, 2)), rng.standard_normal(25)
    grid = [np.array([ls, sf, -1.0]) for ls in (-0.5, 0.0, 0.5) for sf in (-0.3, 0.4)]
    Xt, yt = tf.asarray(X), tf.asarray(y)   # shared by every batch: sent once per worker
    got = td.map(_gp_value_and_grad, [(tf.asarray(p), Xt, yt) for p in grid],
                 client=client)
    eps = 1e-6
    for (value, grad), p in zip(got, grid):
        np.testing.assert_allclose(value.numpy(), _gp_nll(p, X, y, np), rtol=1e-10)
        fd = [(_gp_nll(p + eps * e, X, y, np) - _gp_nll(p - eps * e, X, y, np)) / (2 * eps)
              for e in np.eye(3)]
        np.testing.assert_allclose(grad.numpy(), fd, rtol=1e-5, atol=1e-6)


Pair = collections.namedtuple("Pair", "left right")


def _tree_fn(params, pair):
    z = params["w"] @ pair.left + params["b"]
    return {"z": z, "both": (tf.sum(z), [r * 2 for r in pair.right]), "none": None}


def test_pytrees_in_and_out(client):
    rng = np.random.default_rng(2)
    batches = [({"w": rng.standard_normal((3, 4)), "b": tf.asarray(rng.standard_normal(3))},
                Pair(tf.asarray(rng.standard_normal(4)), [tf.ones(2), 1j * tf.ones(2)]))
               for _ in range(4)]
    got = td.map(_tree_fn, batches, client=client)
    for g, (params, pair) in zip(got, batches):
        want = _tree_fn({"w": tf.asarray(params["w"]), "b": params["b"]}, pair)
        assert sorted(g) == ["both", "none", "z"] and g["none"] is None
        np.testing.assert_allclose(g["z"].numpy(), want["z"].numpy(), rtol=1e-12)
        np.testing.assert_allclose(g["both"][0].numpy(), want["both"][0].numpy())
        assert isinstance(g["both"][1], list) and g["both"][1][1].dtype == tf.complex128
        np.testing.assert_allclose(g["both"][1][1].numpy(), 2j * np.ones(2))


def _power(x, k, scale):
    return tf.ones(k) * tf.sum(x ** k) * scale


@pytest.mark.parametrize("jit", [True, False])
def test_python_scalars_and_single_arguments(client, jit):
    x = tf.asarray(np.array([1.0 + 1j, 2.0]))
    batches = [(x, k, s) for k in (1, 2, 3) for s in (0.5, -2.0)]
    got = td.map(_power, batches, client=client, jit=jit)
    for g, b in zip(got, batches):
        np.testing.assert_allclose(g.numpy(), _power(*b).numpy(), rtol=1e-12)
    # an item that is not a tuple is the one argument; NumPy arrays arrive as Tensors
    got = td.map(lambda a: tf.sum(a) * 2, [np.arange(3.0), np.float32(2.5)], client=client,
                 jit=jit)
    assert [g.item() for g in got] == [6.0, 5.0] and got[1].dtype == tf.float32


def test_shared_arrays_travel_once(cluster, monkeypatch):
    """An array every batch shares is scattered once, to every worker; so is f."""
    sent, scatter = [], cluster.scatter
    monkeypatch.setattr(cluster, "scatter", lambda objs, **kw: sent.append(
        (len(objs), kw["broadcast"])) or scatter(objs, **kw))
    X = tf.asarray(np.arange(9.0).reshape(3, 3))
    got = td.map(lambda a, v: a @ v, [(X, np.full(3, k)) for k in range(5)],
                 client=cluster)
    assert sorted(sent) == [(1, True), (1, True), (5, False)]   # X, f; the vectors
    for k, g in enumerate(got):
        np.testing.assert_allclose(g.numpy(), X.numpy() @ np.full(3, k))


def test_empty_batches(client):
    assert td.map(tf.sin, [], client=client) == []
    assert td.map(tf.sin, (x for x in ()), client=client) == []


class _Counted:
    """Writes a file named after the process each time it is unpickled."""

    def __init__(self, folder):
        self.folder = folder

    def __reduce__(self):
        return _unpickled, (self.folder,)


def _unpickled(folder):
    _touch(folder, "unpickle")
    return _Counted(folder)


def _touch(folder, what):
    with open(os.path.join(folder, "%s-%d-%s" % (what, os.getpid(), os.urandom(4).hex())),
              "w"):
        pass


def _counts(folder, what):
    """Files ``what`` per process id."""
    return collections.Counter(n.split("-")[1] for n in os.listdir(folder)
                               if n.startswith(what + "-"))


@pytest.mark.parametrize("jit", [True, False])
def test_compiled_and_shipped_once_per_worker(cluster, tmp_path, jit):
    marker = _Counted(str(tmp_path))

    def f(a, b):
        _touch(marker.folder, "call")   # runs when traced (jit) or called (eager)
        return tl.solve(a, b)

    rng = np.random.default_rng(3)
    batches = [(_spd(rng, 4, "float64"), rng.standard_normal(4)) for _ in range(20)]
    got = td.map(f, batches, client=cluster, jit=jit)
    for x, (a, b) in zip(got, batches):
        np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-10)
    workers = {str(p) for p in cluster.run(os.getpid).values()}
    unpickled, calls = _counts(tmp_path, "unpickle"), _counts(tmp_path, "call")
    assert set(unpickled) <= workers and max(unpickled.values()) == 1, unpickled
    assert set(calls) <= workers
    if jit:
        assert max(calls.values()) == 1, calls   # one trace per worker
    else:
        assert sum(calls.values()) == 20, calls


def test_compiled_once_on_the_local_scheduler(threads, tmp_path):
    def f(a):
        _touch(str(tmp_path), "call")
        return a * 2

    td.map(f, [tf.ones(3)] * 20)
    assert list(_counts(tmp_path, "call").values()) == [1]


def test_a_jit_object_keeps_its_options(client):
    f = tf.jit(lambda a, n: tf.ones(n) * tf.sum(a), static_argnums=1)
    got = td.map(f, [(tf.ones(2), 3), (tf.ones(3), 1)], client=client)
    assert [g.numpy().tolist() for g in got] == [[2.0] * 3, [3.0]]


def _host_branch(a):
    return a * 2 if float(tf.sum(a)) > 0 else a   # a host read jit cannot trace


def test_jit_false_for_an_untraceable_f(threads):
    with pytest.raises(tf.ConcretizationError if hasattr(tf, "ConcretizationError")
                       else TypeError, match="(?s)batch 0.*jit=False calls f eagerly"):
        td.map(_host_branch, [tf.ones(2), -tf.ones(2)])
    got = td.map(_host_branch, [tf.ones(2), -tf.ones(2)], jit=False)
    assert [g.numpy().tolist() for g in got] == [[2.0, 2.0], [-1.0, -1.0]]


def _fails_on_three(x, k):
    if k == 3:
        raise ValueError("no k=3 here")
    return x * k


@pytest.mark.parametrize("jit", [True, False])
def test_f_raising_names_the_batch(client, jit):
    with pytest.raises(ValueError, match="(?s)no k=3 here.*tenferro.dask.map: raised in "
                                         "the call of f on batch 3"):
        td.map(_fails_on_three, [(tf.ones(2), k) for k in range(5)], client=client, jit=jit)


class _Unpicklable(Exception):
    def __init__(self):   # a signature that Exception's pickling cannot call back
        super().__init__("no way back")


def _raise_unpicklable(x, k):
    if k:
        raise _Unpicklable()
    return x


def test_an_exception_that_does_not_unpickle(client):
    with pytest.raises(RuntimeError, match="(?s)_Unpicklable: no way back.*on batch 1"):
        td.map(_raise_unpicklable, [(tf.ones(1), 0), (tf.ones(1), 1)], client=client,
               jit=False)


def _device():
    dev = next((d for d in tf.devices.available() if not d.startswith("cpu")), None)
    if dev is None:
        pytest.skip("no device besides the CPU")
    return dev


def test_device_results_come_back_on_the_cpu(threads):
    dev = _device()
    got = td.map(lambda a: tf.asarray(a, device=dev) * 2, [np.ones(3, np.float32)],
                 jit=False)
    assert got[0].device.type == "cpu" and got[0].numpy().tolist() == [2.0] * 3


def test_a_device_input_is_refused():
    dev = _device()
    with pytest.raises(tf.UnsupportedOperation,
                       match="tenferro.dask.map: .*batch 1, argument 0 is on %s" % dev):
        td.map(tf.sin, [tf.ones(2), tf.ones(2, device=dev)])


def test_inputs_that_require_grad_are_refused(threads):
    w = tf.ones(3)
    w.requires_grad = True
    with pytest.raises(ValueError, match="tenferro.dask.map: batch 1, argument 1 requires "
                                         "grad, but map is not differentiable.*tenferro.grad"):
        td.map(lambda a, b: a * b, [(tf.ones(3), tf.ones(3)), (tf.ones(3), {"w": w})])
    with pytest.raises(TypeError, match="batch 0, argument 0 is traced by a transform"):
        tf.grad(lambda x: td.map(tf.sin, [x])[0].sum())(tf.ones(2))
    # a gradient through a closure is refused too (jit=False: f runs as written)
    with pytest.raises(RuntimeError, match="(?s)result on batch 0 requires grad.*batch 0"):
        td.map(lambda a: a * w, [tf.ones(3)], jit=False)


def test_bad_arguments():
    with pytest.raises(TypeError, match="tenferro.dask.map: f must be callable, got int"):
        td.map(3, [tf.ones(2)])
    with pytest.raises(TypeError, match="tenferro.dask.map: batches must be an iterable "
                                        "of call arguments.*got int"):
        td.map(tf.sin, 5)


def test_annotated_for_type_checkers():
    sig = inspect.signature(td.map)
    assert sig.return_annotation is not sig.empty
    assert all(p.annotation is not p.empty for p in sig.parameters.values())
