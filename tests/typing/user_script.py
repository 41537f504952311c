"""A small typed user script: ``mypy --strict`` must accept it (tests/test_packaging.py)
and it must run.  It uses the annotated public API as a user would, with asserts
instead of reveal_type."""
import io

import numpy as np
import numpy.typing as npt

import tenferro as tf


def loss(w: tf.Tensor, x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    r = tf.matmul(x, w) - y
    return (r * r).mean()


def main() -> None:
    x: tf.Tensor = tf.linspace(0.0, 1.0, 12).reshape(4, 3)
    y = tf.asarray([1.0, 2.0, 3.0, 4.0], dtype=tf.float64)
    w = tf.zeros(3) + tf.ones((3,)) * 0.5
    shape: tuple[int, ...] = x.shape
    assert shape == (4, 3) and x.ndim == 2 and x.size == 12
    assert x.dtype == tf.float64 and str(x.device) == "cpu"
    assert x.T.shape == (3, 4) and tf.transpose(x).shape == (3, 4)
    a: npt.NDArray[np.float64] = x.numpy()
    assert a.shape == (4, 3)
    first: float = x[0, 1].item()
    assert first == float(x[0, 1])

    i = tf.arange(6, dtype=tf.int64)
    assert tf.sum(i).item() == 15 and int(i.sum()) == 15
    assert tf.reshape(i, (2, 3)).shape == (2, 3)
    both = tf.concatenate([i, i]) + tf.stack([i, i], axis=0).reshape(-1)
    assert both.shape == (12,)
    e = tf.einsum("ij,j->i", x, w)
    assert bool(tf.all((e - x @ w) == 0))
    m = tf.mean(x, axis=0)
    assert m.shape == (3,) and x.to("cpu", dtype=tf.float32).dtype == tf.float32
    z = tf.exp(tf.log(x + 1.0)) - tf.add(x, 1)            # the generated elementwise ops
    assert float(abs(z).max()) < 1e-12 and (-x).shape == x.shape

    g = tf.grad(loss)(w, x, y)
    assert isinstance(g, tf.Tensor) and g.shape == (3,)
    out, pullback = tf.vjp(lambda v: tf.sum(v * v), w)
    assert pullback(tf.ones(()))[0].shape == (3,)
    value, tangent = tf.jvp(lambda v: (v * v).sum(), (w,), (tf.ones(3),))
    assert abs(float(tangent) - 3.0) < 1e-12 and float(value) == float(out)
    fast = tf.jit(loss)
    assert abs(float(fast(w, x, y)) - float(loss(w, x, y))) < 1e-12

    spd = x.T @ x + tf.eye(3)
    c = tf.linalg.cholesky(spd, lower=True)
    s = tf.linalg.solve(spd, tf.ones(3))
    evals, evecs = tf.linalg.eigh(spd)
    only = tf.linalg.eigh(spd, eigvals_only=True)
    u, sv, vh = tf.linalg.svd(x, full_matrices=False)
    sv_only = tf.linalg.svd(x, compute_uv=False)
    q, r = tf.linalg.qr(x, mode="economic")
    assert c.shape == s.shape + (3,) and evecs.shape == (3, 3)
    assert float(tf.max(abs(evals - only))) < 1e-12
    assert float(abs(sv - sv_only).max()) < 1e-12 and u.shape == (4, 3)
    assert float(abs(q @ r - x).max()) < 1e-12 and vh.shape == (3, 3)

    buf = io.BytesIO()
    tf.save(buf, {"w": w})
    buf.seek(0)
    loaded = tf.load(buf)
    assert not isinstance(loaded, tf.Tensor)
    with loaded as tensors:
        assert float(abs(tensors["w"] - w).max()) == 0.0


if __name__ == "__main__":
    main()
