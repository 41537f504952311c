"""``tenferro.vmap`` against the batched call it should amount to and a Python loop.

Cases (float64, seeded well-conditioned 4x4 systems, ``A = X + 4 I``), each a
zero-argument callable built by :func:`make` (also used by ``asv_bench/compare_vmap.py``):

* ``solve``: 10^4 systems with one right-hand-side vector each: ``vmap(linalg.solve)``,
  the batched ``linalg.solve`` called directly (``b`` as ``[N, 4, 1]``), the
  ``linalg.solve`` primitive's batched kernel alone (no checks or warnings), and a loop;
* ``solve + loss``: a function calling solve, then ``sum(x**2)`` per example;
* ``per-example grad``: ``vmap(grad(loss))`` against a loop of ``grad(loss)``;
* ``tiny``: per-call overhead, ``vmap(sin)`` of a 10x4 tensor against ``sin``.

The loop runs ``LOOP_N`` examples and is scaled to the batch, so it stays quick.
"""
import numpy as np

from .common import FactoryBench, get_array

N = 10**4
LOOP_N = 500
FORMS = ["vmap", "batched", "kernel", "loop"]
CASES = ["solve", "solve + loss", "per-example grad", "tiny"]


def systems(n=N):
    a = get_array((n, 4, 4), "float64", "normal", seed=41) + 4 * np.eye(4)
    b = get_array((n, 4), "float64", "normal", seed=43)
    return np.ascontiguousarray(a), b


def make(form, case):
    """A zero-argument callable computing ``case`` in ``form`` (NotImplementedError where
    the form does not apply).  ``fn.scale``: the factor a timing is multiplied by to be
    per whole batch (the loop runs on LOOP_N examples only)."""
    import tenferro as tf
    import tenferro.linalg as tl
    from tenferro.linalg._lu import solve_p

    a, b = systems()
    A, Bv = tf.asarray(a), tf.asarray(b)
    B1 = tf.asarray(b[..., None])

    def loss(a, b):
        return tf.sum(tl.solve(a, b) ** 2)
    scale = 1.0
    if case == "tiny":
        x = tf.asarray(get_array((10, 4), "float64", "normal", seed=47))
        fns = {"vmap": lambda v=tf.vmap(tf.sin): v(x), "batched": lambda: tf.sin(x)}
    elif case == "solve":
        v = tf.vmap(tl.solve)
        fns = {"vmap": lambda: v(A, Bv), "batched": lambda: tl.solve(A, B1),
               "kernel": lambda: solve_p.bind(A, B1)[0],
               "loop": lambda: [tl.solve(A[i], Bv[i]) for i in range(LOOP_N)]}
    elif case == "solve + loss":
        v = tf.vmap(loss)
        fns = {"vmap": lambda: v(A, Bv),
               "batched": lambda: tf.sum(tl.solve(A, B1) ** 2, axis=(1, 2)),
               "loop": lambda: [loss(A[i], Bv[i]) for i in range(LOOP_N)]}
    else:
        g, v = tf.grad(loss), tf.vmap(tf.grad(loss))
        fns = {"vmap": lambda: v(A, Bv),
               "loop": lambda: [g(A[i], Bv[i]) for i in range(LOOP_N)]}
    if form not in fns:
        raise NotImplementedError("%s has no %s form" % (case, form))
    fn = fns[form]
    if form == "loop":
        scale = N / LOOP_N
    run = (lambda: fn())
    run.scale = scale
    return run


class Vmap(FactoryBench):
    params = [FORMS, CASES]
    param_names = ["form", "case"]
    make = staticmethod(make)

    def time_vmap(self, form, case):
        self.fn()
