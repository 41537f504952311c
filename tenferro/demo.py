"""``python -m tenferro.demo``: a tour of what tenferro does today.

Shows the build (kernels, threads, devices), tensors and their NumPy interop,
views, broadcasting, reductions and matmul, each checked against NumPy, and a
quick timing of a few kernels beside NumPy.
"""
import time

import numpy as np

import tenferro as tf


def _time(f, repeat=5):
    f()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    tf.show_config()
    print()
    rng = tf.random.default_rng(0)

    print("== tensors")
    x = tf.arange(12, dtype=tf.float64).reshape(3, 4)
    print("x =", repr(x))
    print("x.T[1:, ::-1] =", repr(x.T[1:, ::-1]), "(a view: no copy)")
    a = np.asarray(x)
    print("np.asarray(x) shares memory:", np.shares_memory(a, x.numpy()))
    print("column-major data:", repr(tf.from_col_major([1, 2, 3, 4, 5, 6], (2, 3))))

    print("\n== elementwise, broadcasting, promotion (NumPy 2 rules)")
    y = tf.tensor([1, 2, 3, 4], dtype=tf.int32)
    print("x * y + 0.5 ->", (x * y + 0.5).dtype, "; int32 tensor + 1 ->", (y + 1).dtype,
          "; int32 tensor + 1.0 ->", (y + 1.0).dtype)
    z = tf.exp(1j * x) * tf.sqrt(x + 1)
    ok = np.allclose(z.numpy(), np.exp(1j * a) * np.sqrt(a + 1))
    print("complex exp/sqrt matches NumPy:", ok)

    print("\n== reductions and matmul")
    m = rng.normal(size=(200, 300))
    mn = m.numpy()
    print("sum(axis=0) matches:", np.allclose(m.sum(axis=0).numpy(), mn.sum(axis=0)))
    print("argmax:", int(m.argmax()), "==", int(mn.argmax()))
    print("var(ddof=1) matches:", np.allclose(m.var(axis=1, ddof=1).numpy(), mn.var(axis=1, ddof=1)))
    print("m @ m.T matches:", np.allclose((m @ m.T).numpy(), mn @ mn.T))

    print("\n== indexing")
    print("x[[0, 2], 1:3] =", repr(x[[0, 2], 1:3]))
    print("x[x > 5] =", repr(x[x > 5]))

    print("\n== autodiff")
    w = tf.tensor([[0.5, -1.0], [2.0, 0.1]], requires_grad=True)
    xin = tf.tensor([1.0, 2.0])
    loss = (tf.tanh(w @ xin) ** 2).sum()
    loss.backward()
    th = np.tanh(w.detach().numpy() @ xin.numpy())
    want = np.outer(2 * th * (1 - th ** 2), xin.numpy())
    print("loss.grad_fn:", loss.grad_fn, "; w.grad matches the formula:",
          np.allclose(w.grad.numpy(), want))
    f = lambda v: tf.sin(v).sum()  # noqa: E731
    v = tf.tensor([0.3, 1.2])
    print("grad(grad(sum sin)) = -sin:", np.allclose(tf.grad(lambda v: tf.grad(f)(v).sum())(v)
                                                      .numpy(), -np.sin(v.numpy())))
    print("jacfwd == jacrev:", np.allclose(tf.jacfwd(tf.exp)(v).numpy(),
                                           tf.jacrev(tf.exp)(v).numpy()))
    z = tf.tensor([1 + 2j])
    print("complex: grad |z|^2 = 2z (PyTorch's convention):",
          tf.grad(lambda z: (tf.abs(z) ** 2).sum())(z).numpy())
    print("gradcheck(tanh(x) * x), fwd and rev, order 2:",
          tf.autograd.gradcheck(lambda a: tf.tanh(a) * a, (v,), modes=("jvp", "vjp")))

    print("\n== einsum (opt_einsum paths, BLAS pairwise steps, cached plans)")
    mps = [rng.normal(size=s) for s in [(4, 30), (30, 4, 30), (30, 4)]]
    env = tf.einsum("pa,aqb,br,pc,cqd,dr->", *mps, *mps)   # <psi|psi> of a 3-site MPS
    mn = [t.numpy() for t in mps]
    print("MPS norm^2 matches numpy.einsum:",
          np.allclose(env.numpy(), np.einsum("pa,aqb,br,pc,cqd,dr->", *mn, *mn)))
    print("einsum_path:", tf.einsum_path("pa,aqb,br,pc,cqd,dr->", *mps, *mps)[0])
    print("trace 'ii->', diagonal 'ii->i', embedding 'i->ii':",
          float(tf.einsum("ii->", x[:, :3])), repr(tf.einsum("ii->i", x[:, :3])),
          tf.einsum("i->ii", xin).shape)
    g = tf.grad(lambda a: tf.einsum("pa,aqb,br,pc,cqd,dr->", a, mps[1], mps[2], *mps))(mps[0])
    print("grad through einsum, checked by gradcheck:", tf.autograd.gradcheck(
        lambda a: tf.einsum("pa,aqb,br->pqr", a, mps[1], mps[2]), (mps[0],),
        modes=("jvp", "vjp")), "; grad shape", g.shape)

    print("\n== linalg (scipy.linalg's API, batched, differentiable)")
    import scipy.linalg as sl

    import tenferro.linalg as tl
    X = np.sort(np.random.default_rng(0).uniform(-3, 3, 30))
    y = np.sin(2 * X)
    xs, ys = tf.asarray(X), tf.asarray(y)

    def nll(theta):  # a Gaussian process's negative log marginal likelihood (RBF kernel)
        ell, sf2, sn2 = tf.exp(theta[0]), tf.exp(theta[1]), tf.exp(theta[2])
        d = xs[:, None] - xs[None, :]
        L = tl.cholesky(sf2 * tf.exp(-0.5 * d * d / ell**2) + sn2 * tf.eye(30), lower=True)
        return 0.5 * ys @ tl.cho_solve((L, True), ys) + tf.sum(tf.log(tf.diagonal(L)))

    theta = tf.asarray([0.0, 0.0, -2.0])
    start = float(nll(theta))
    for _ in range(100):
        theta = theta - 0.01 * tf.grad(nll)(theta)
    print("GP hyperparameters by gradient descent through cholesky/cho_solve: nll %.2f -> "
          "%.2f, lengthscale %.2f" % (start, float(nll(theta)), np.exp(theta.numpy()[0])))
    a = rng.normal(size=(64, 4, 4))
    spd = a @ a.mT + 4 * tf.eye(4)
    w, v = tl.eigh(spd)
    print("batched eigh (64 x 4 x 4) matches scipy:",
          np.allclose(w.numpy(), [sl.eigvalsh(m) for m in spd.numpy()]))
    q, r = tl.qr(a[0])
    print("qr, svd, eig, lstsq, expm, ... e.g. |expm(A) - scipy|:",
          float(np.abs(tl.expm(a[0]).numpy() - sl.expm(a[0].numpy())).max()))

    print("\n== speed (best of 5, %d threads)" % tf.get_num_threads())
    n = 10_000_000
    u = rng.uniform(size=n)
    v = rng.uniform(size=n)
    un, vn = u.numpy(), v.numpy()
    rows = [("x + y, 1e7 float64", lambda: u + v, lambda: un + vn),
            ("x*y + sin(x), 1e7", lambda: u * v + tf.sin(u), lambda: un * vn + np.sin(un)),
            ("sum, 1e7", lambda: u.sum(), lambda: un.sum())]
    p, q = (rng.normal(size=(30, 30, 30, 30)) for _ in range(2))
    pn, qn = p.numpy(), q.numpy()
    rows.append(("einsum ijkl,lkmn->nijm", lambda: tf.einsum("ijkl,lkmn->nijm", p, q),
                 lambda: np.einsum("ijkl,lkmn->nijm", pn, qn, optimize=True)))
    e = rng.normal(size=(64, 4, 4))
    e = e @ e.mT + 4 * tf.eye(4)
    en = e.numpy()
    rows.append(("eigh 64 x 4x4", lambda: tl.eigh(e), lambda: np.linalg.eigh(en)))
    for name, ft, fn in rows:
        t1, t2 = _time(ft), _time(fn)
        print("  %-24s tenferro %7.2f ms   numpy %7.2f ms   (%.1fx)"
              % (name, t1 * 1e3, t2 * 1e3, t2 / t1))


if __name__ == "__main__":
    main()
