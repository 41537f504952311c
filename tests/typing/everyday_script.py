"""A typed user script over the everyday functions (beside user_script.py): indexing,
``where``/``nonzero``, linalg, random, devices and threads, sorting, quantiles and
statistics, shapes and joining, autodiff's other transforms.  ``mypy --strict`` must
accept it (tests/test_packaging.py) and it must run, its asserts holding."""
import tenferro as tf
import tenferro.linalg as tl


def indexing(x: tf.Tensor) -> None:
    assert x[0].shape == (3,) and x[1:, ::2].shape == (3, 2) and x[..., None].shape == (4, 3, 1)
    assert x[tf.asarray([0, 2])].shape == (2, 3) and x[x > 0.5].ndim == 1
    y = tf.zeros_like(x)
    y[0] = 1.0
    y[y > 0.5] = 2.0
    assert float(y.sum()) == 6.0
    rows = tf.take(x, tf.asarray([3, 0]), axis=0)
    along = tf.take_along_axis(x, tf.argsort(x, axis=1), axis=1)
    picked = tf.where(x > 0.5, x, tf.zeros(()))
    nz: tuple[tf.Tensor, ...] = tf.nonzero(x > 0.5)
    assert rows.shape == (2, 3) and along.shape == (4, 3) and picked.shape == (4, 3)
    assert len(nz) == 2 and tf.argwhere(x > 0.5).shape[1] == 2
    assert int(tf.count_nonzero(x > 0.5)) == int(tf.flatnonzero(x > 0.5).shape[0])


def linalg(x: tf.Tensor) -> None:
    a = x.T @ x + tf.eye(3)
    b = tf.ones(3)
    s = tl.solve(a, b)
    c = tl.cholesky(a, lower=True)
    w, v = tl.eigh(a)
    u, sv, vh = tl.svd(x, full_matrices=False)
    q, r = tl.qr(x, mode="economic")
    sol, res, rank, sing = tl.lstsq(x, tf.ones(4))
    sign, logdet = tl.slogdet(a)
    assert float(tl.norm(a @ s - b)) < 1e-10 and float(tl.norm(c @ c.T - a)) < 1e-10
    assert float(abs(tl.det(a) - sign * tf.exp(logdet))) < 1e-8 * float(abs(tl.det(a)))
    assert float(tl.norm(tl.inv(a) @ a - tf.eye(3))) < 1e-10
    assert float(abs(tl.eigvalsh(a) - w).max()) < 1e-10 and v.shape == (3, 3)
    assert float(abs(tl.svdvals(x) - sv).max()) < 1e-10 and u.shape == (4, 3)
    assert vh.shape == q.shape[1:] + (3,) and r.shape == (3, 3)
    assert sol.shape == (3,) and int(rank) == 2 and sing.shape == (3,) and res.ndim == 1
    lu_piv = tl.lu_factor(a)
    assert float(tl.norm(tl.lu_solve(lu_piv, b) - s)) < 1e-10
    assert float(tl.norm(tl.solve_triangular(c, b, lower=True) - tl.inv(c) @ b)) < 1e-10
    assert tl.pinv(x).shape == (3, 4) and tl.expm(tf.zeros((2, 2))).shape == (2, 2)
    assert tl.matrix_power(a, 2).shape == (3, 3) and tl.eigvals(a).shape == (3,)


def random_devices_threads() -> None:
    rng = tf.random.default_rng(0)
    n = rng.normal(size=(2, 3))
    k = rng.integers(0, 10, size=5)
    assert n.shape == (2, 3) and k.dtype == tf.int64
    tf.random.seed(1)
    state = tf.random.get_state()
    first = tf.random.uniform(size=3)
    tf.random.set_state(state)
    assert bool(tf.all(tf.random.uniform(size=3) == first))
    assert tf.random.standard_normal(size=2, dtype=tf.float32).dtype == tf.float32
    cpu: tf.Device = tf.device("cpu")
    assert cpu.type == "cpu" and "cpu" in tf.devices.available()
    assert tf.asarray([1.0], device=cpu).device == cpu
    with tf.num_threads(1):
        assert tf.get_num_threads() == 1


def sorting_statistics(x: tf.Tensor) -> None:
    flat = tf.ravel(x)
    srt = tf.sort(flat)
    assert bool(tf.all(srt[1:] >= srt[:-1])) and tf.argsort(flat).shape == (12,)
    values = tf.unique(tf.asarray([3, 1, 3]))
    counted = tf.unique_counts(tf.asarray([3, 1, 3]))
    assert values.shape == (2,) and counted.counts.shape == (2,)
    assert float(tf.quantile(flat, 0.5)) == float(tf.median(flat))
    assert tf.percentile(x, [25.0, 75.0], axis=0).shape == (2, 3)
    assert int(tf.searchsorted(srt, 0.5)) <= 12
    assert tf.var(x, axis=0).shape == (3,) and tf.std(x).ndim == 0
    assert tf.cumsum(flat).shape == (12,) and int(tf.argmax(flat)) == 11
    assert float(tf.nansum(x)) == float(tf.sum(x)) and tf.average(x, axis=1).shape == (4,)


def shapes_and_joining(x: tf.Tensor) -> None:
    assert tf.expand_dims(x, 0).shape == (1, 4, 3) and tf.squeeze(x[None]).shape == (4, 3)
    assert tf.moveaxis(x, 0, 1).shape == (3, 4) and tf.flip(x, axis=0).shape == (4, 3)
    assert tf.broadcast_to(x[0], (2, 3)).shape == (2, 3)
    assert tf.vstack([x, x]).shape == (8, 3) and len(tf.split(x, 2)) == 2
    assert tf.full((2,), 7.0).shape == (2,) and tf.diag(tf.ones(2)).shape == (2, 2)
    assert tf.tril(tf.ones((3, 3))).shape == (3, 3) and tf.pad(x, 1).shape == (6, 5)
    assert tf.dot(x[0], x[1]).ndim == 0 and tf.outer(x[0], x[1]).shape == (3, 3)
    assert tf.tensordot(x, x, axes=([0], [0])).shape == (3, 3)
    assert tf.clip(x, 0.2, 0.8).shape == (4, 3) and tf.astype(x, tf.float32).dtype == tf.float32
    gx, gy = tf.meshgrid(tf.arange(2), tf.arange(3))
    assert gx.shape == (3, 2) and gy.shape == (3, 2)
    assert float(tf.trapezoid(tf.ones(3))) == 2.0 and float(tf.trace(tf.eye(3))) == 3.0
    assert tf.can_cast(tf.int32, tf.float64) and tf.finfo(tf.float32).eps > 0
    assert tf.result_type(tf.int32, 1.0) == tf.float64 and tf.dtype("int64") == tf.int64


def autodiff(x: tf.Tensor) -> None:
    def f(v: tf.Tensor) -> tf.Tensor:
        return (tf.sin(v) * v).sum()

    v = x[0]
    assert tf.hessian(f)(v).shape == (3, 3) and tf.jacrev(tf.sin)(v).shape == (3, 3)
    assert tf.jacfwd(tf.sin)(v).shape == (3, 3)
    assert tf.stop_gradient(v).shape == (3,) and tf.is_grad_enabled()
    assert float(tf.checkpoint(f, v)) == float(f(v))


def main() -> None:
    x = tf.linspace(0.0, 1.0, 12).reshape(4, 3)
    indexing(x)
    linalg(x)
    random_devices_threads()
    sorting_statistics(x)
    shapes_and_joining(x)
    autodiff(x)


if __name__ == "__main__":
    main()
