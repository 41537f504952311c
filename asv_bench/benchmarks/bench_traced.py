"""Traced graphs: ``tenferro.jit`` (trace once, run the compiled program) beside eager
tenferro, NumPy and eager PyTorch (float64, 2 threads each).

Cases (issue 6): the elementwise chain ``x*y + sin(x)`` on 10^7 elements (the
program is one fused kernel; "C loop" is the limit: the same expression as one
vectorised OpenMP C loop with glibc's SIMD sin, compiled here with -O3 -march=native),
the gradient of a 10-op scalar chain and of a 2x2 solve (per-call cost), and the
gradient of a Gaussian process's log marginal likelihood (n = 200).  The eager
tenferro and PyTorch cases differentiate on every call; the jit case runs the
compiled gradient program.
"""
import ctypes
import functools
import hashlib
import os
import subprocess
import sysconfig
import tempfile

import numpy as np

from .common import FactoryBench, N_THREADS, get_array, sync, torch_or_none

TRACED_LIBS = ["tenferro-jit", "tenferro", "numpy", "torch", "jax-jit", "torch-compile",
               "numexpr", "C loop"]

_C_LOOP = r"""
#include <math.h>
#pragma omp declare simd notinbranch
extern double sin(double);
void xy_sin(const double *restrict x, const double *restrict y, double *restrict out,
            long n, int nthreads) {
    #pragma omp parallel for simd schedule(static) num_threads(nthreads)
    for (long i = 0; i < n; i++) out[i] = x[i] * y[i] + sin(x[i]);
}
"""


@functools.lru_cache(maxsize=None)
def _c_loop():
    """The reference loop, compiled once into a temporary directory."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    d = os.path.join(tempfile.gettempdir(), "tenferro-bench-" +
                     hashlib.sha1(_C_LOOP.encode()).hexdigest()[:12])
    so = os.path.join(d, "loop.so")
    if not os.path.exists(so):
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "loop.c"), "w") as f:
            f.write(_C_LOOP)
        r = subprocess.run([cc, "-O3", "-march=native", "-fopenmp", "-fno-math-errno",
                            "-shared", "-fPIC", os.path.join(d, "loop.c"), "-o", so,
                            "-lmvec", "-lm"], capture_output=True, text=True)
        if r.returncode:
            raise NotImplementedError("no C compiler with OpenMP and libmvec: " + r.stderr)
    return ctypes.CDLL(so).xy_sin
CASES = ["x*y + sin(x), 1e7", "grad of a 10-op chain", "grad of a 2x2 solve",
         "GP likelihood grad, n=200"]


def _gp_data(n=200):
    x = np.sort(get_array((n,), "float64", "uniform", seed=41) * 6 - 3)
    return x, np.sin(2 * x)


def make(lib, case):
    """A zero-argument callable running ``case`` with ``lib`` (NotImplementedError when
    the library lacks it)."""
    if lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        return _make_torch(torch, case)
    if lib == "jax-jit":
        return _make_jax(case)
    if lib == "torch-compile":
        torch = torch_or_none()
        if torch is None or case != CASES[0]:
            raise NotImplementedError("torch.compile: the elementwise case only")
        x, y = (torch.from_numpy(np.array(get_array((10 ** 7,), "float64", seed=s)))
                for s in (1, 2))
        f = torch.compile(lambda x, y: x * y + torch.sin(x))
        return lambda: f(x, y)
    if lib == "numexpr":
        try:
            import numexpr
        except ImportError:
            raise NotImplementedError("numexpr is not installed")
        if case != CASES[0]:
            raise NotImplementedError("numexpr: the elementwise case only")
        numexpr.set_num_threads(N_THREADS)
        x, y = get_array((10 ** 7,), "float64", seed=1), get_array((10 ** 7,), "float64", seed=2)
        return lambda: numexpr.evaluate("x * y + sin(x)", local_dict={"x": x, "y": y})
    if lib == "C loop":
        if case != CASES[0]:
            raise NotImplementedError("the C reference is for the elementwise case")
        x, y = get_array((10 ** 7,), "float64", seed=1), get_array((10 ** 7,), "float64", seed=2)
        fn, p = _c_loop(), ctypes.c_void_p
        out = np.empty_like(x)   # allocated once: the limit is the loop alone

        def run():
            fn(p(x.ctypes.data), p(y.ctypes.data), p(out.ctypes.data), ctypes.c_long(x.size),
               ctypes.c_int(N_THREADS))
            return out
        return run
    if lib == "numpy":
        if case != CASES[0]:
            raise NotImplementedError("numpy has no autodiff")
        x, y = get_array((10 ** 7,), "float64", seed=1), get_array((10 ** 7,), "float64", seed=2)
        return lambda: x * y + np.sin(x)
    import tenferro as tf
    import tenferro.linalg as tl

    wrap = tf.jit if lib == "tenferro-jit" else (lambda f: f)
    if case == CASES[0]:
        x, y = (tf.asarray(get_array((10 ** 7,), "float64", seed=s)) for s in (1, 2))
        f = wrap(lambda x, y: x * y + tf.sin(x))
        return lambda: f(x, y)
    if case == CASES[1]:
        def chain(x):
            for _ in range(3):
                x = tf.sin(x) * 1.1 + 0.1
            return x.sum()
        x = tf.asarray([0.3, 0.5])
        g = wrap(tf.grad(chain))
        return lambda: g(x)
    if case == CASES[2]:
        a, b = tf.asarray([[3.0, 1.0], [1.0, 2.0]]), tf.asarray([1.0, 2.0])
        g = wrap(tf.grad(lambda a, b: tl.solve(a, b).sum()))
        return lambda: g(a, b)
    xs, ys = (tf.asarray(v) for v in _gp_data())

    def nll(theta, x, y):
        ell, sf2, sn2 = tf.exp(theta[0]), tf.exp(theta[1]), tf.exp(theta[2])
        d = x[:, None] - x[None, :]
        L = tl.cholesky(sf2 * tf.exp(-0.5 * d * d / ell**2) + sn2 * tf.eye(x.shape[0]),
                        lower=True)
        return 0.5 * y @ tl.cho_solve((L, True), y) + tf.sum(tf.log(tf.diagonal(L)))
    theta = tf.asarray([0.1, -0.2, -1.0])
    g = wrap(tf.grad(nll))
    return lambda: g(theta, xs, ys)


def _make_jax(case):
    """jax.jit of the same functions (float64; XLA's CPU client; results blocked on)."""
    try:
        import jax
        import jax.numpy as jnp
        import jax.scipy.linalg as jsl
    except ImportError:
        raise NotImplementedError("JAX is not installed")
    jax.config.update("jax_enable_x64", True)

    def blocked(f, *args):
        return lambda: f(*args).block_until_ready()
    if case == CASES[0]:
        x, y = (jnp.asarray(get_array((10 ** 7,), "float64", seed=s)) for s in (1, 2))
        return blocked(jax.jit(lambda x, y: x * y + jnp.sin(x)), x, y)
    if case == CASES[1]:
        def chain(x):
            for _ in range(3):
                x = jnp.sin(x) * 1.1 + 0.1
            return x.sum()
        return blocked(jax.jit(jax.grad(chain)), jnp.asarray([0.3, 0.5]))
    if case == CASES[2]:
        a, b = jnp.asarray([[3.0, 1.0], [1.0, 2.0]]), jnp.asarray([1.0, 2.0])
        return blocked(jax.jit(jax.grad(lambda a, b: jnp.linalg.solve(a, b).sum())), a, b)
    xn, yn = _gp_data()

    def nll(theta, x, y):
        ell, sf2, sn2 = jnp.exp(theta[0]), jnp.exp(theta[1]), jnp.exp(theta[2])
        d = x[:, None] - x[None, :]
        L = jnp.linalg.cholesky(sf2 * jnp.exp(-0.5 * d * d / ell**2) + sn2 * jnp.eye(len(x)))
        return 0.5 * y @ jsl.cho_solve((L, True), y) + jnp.sum(jnp.log(jnp.diagonal(L)))
    return blocked(jax.jit(jax.grad(nll)), jnp.asarray([0.1, -0.2, -1.0]), jnp.asarray(xn),
                   jnp.asarray(yn))


def _make_torch(torch, case):
    dt = torch.float64
    if case == CASES[0]:
        x, y = (torch.from_numpy(np.array(get_array((10 ** 7,), "float64", seed=s)))
                for s in (1, 2))
        return lambda: x * y + torch.sin(x)
    if case == CASES[1]:
        x = torch.tensor([0.3, 0.5], dtype=dt, requires_grad=True)

        def run():
            y = x
            for _ in range(3):
                y = torch.sin(y) * 1.1 + 0.1
            return torch.autograd.grad(y.sum(), x)[0]
        return run
    if case == CASES[2]:
        a = torch.tensor([[3.0, 1.0], [1.0, 2.0]], dtype=dt, requires_grad=True)
        b = torch.tensor([1.0, 2.0], dtype=dt)
        return lambda: torch.autograd.grad(torch.linalg.solve(a, b).sum(), a)[0]
    xn, yn = _gp_data()
    xs, ys = torch.from_numpy(xn), torch.from_numpy(yn)
    theta = torch.tensor([0.1, -0.2, -1.0], dtype=dt, requires_grad=True)

    def run():
        ell, sf2, sn2 = torch.exp(theta[0]), torch.exp(theta[1]), torch.exp(theta[2])
        d = xs[:, None] - xs[None, :]
        L = torch.linalg.cholesky(sf2 * torch.exp(-0.5 * d * d / ell**2)
                                  + sn2 * torch.eye(len(xn), dtype=dt))
        alpha = torch.cholesky_solve(ys[:, None], L)[:, 0]
        loss = 0.5 * ys @ alpha + torch.log(torch.diagonal(L)).sum()
        return torch.autograd.grad(loss, theta)[0]
    return run


class Traced(FactoryBench):
    params = [TRACED_LIBS, CASES]
    make = staticmethod(make)

    def time_traced(self, lib, case):
        sync(self.fn(), self.lib if lib != "tenferro-jit" else "tenferro")
