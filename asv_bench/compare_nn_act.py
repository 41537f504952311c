#!/usr/bin/env python
"""tenferro.nn vs torch.nn.functional: per-call time of the activations, softmax,
normalizations and affine (no asv needed).

Each activation runs eagerly on 1e6 float64 and float32 elements (the fused kernel's
throughput) and on 1e3 float64 elements (the per-call overhead), and forward plus
backward on the eager tape at 1e6 float64; softmax/log_softmax reduce the last axis of
a (1000, 1000) array, layer_norm and rms_norm normalize its rows (with a weight, and
layer_norm a bias; float64 and float32, and forward plus backward into all of them),
affine broadcasts a row of scales and shifts.  ``jit chain`` is
``silu(gelu(x) * 2) + 1`` compiled by tenferro.jit (one fused kernel) against
PyTorch's eager calls.  tenferro and PyTorch are timed each in its own block after a
0.4 s pause (so one's threads do not spin on the other's cores), with compare.py's
best-of-N timer.  Prints a Markdown table:

    case | n | dtype | tenferro | PyTorch | PyTorch/tenferro

A ratio > 1 means tenferro is faster.  ``--interleave`` alternates the two blocks five
times and keeps each library's best (on a loaded machine a single block can land in a
busy spell).

    python asv_bench/compare_nn_act.py [--threads 2] [--repeat 5] [--only NAME] [--interleave]
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts tenferro on sys.path)
import tenferro as tf  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

PAUSE = 0.4
ACTS = ["relu", "leaky_relu", "elu", "softplus", "gelu", "gelu_tanh", "silu"]


def _act(lib, name):
    mod = tf.nn if lib == "tenferro" else F
    if name == "gelu_tanh":
        return lambda x: mod.gelu(x, approximate="tanh")
    return getattr(mod, name)


def _data(lib, shape, dtype, requires_grad=False):
    a = np.random.default_rng(0).standard_normal(shape).astype(dtype) * 3
    if lib == "tenferro":
        return tf.tensor(a, requires_grad=True) if requires_grad else tf.asarray(a)
    return torch.from_numpy(a).requires_grad_(requires_grad)


def _backward(lib, f, x):
    def run():
        f(x).sum().backward()
        x.grad = None
    return run


def _norm(lib, name, dtype, grad):
    """layer_norm (weight and bias) or rms_norm (weight) over the rows of (1000, 1000);
    with ``grad``, forward and backward on the eager tape into x and the parameters."""
    x = _data(lib, (1000, 1000), dtype, grad)
    ps = [_data(lib, (1000,), dtype, grad) for _ in range(2 if name == "layer_norm" else 1)]
    f = getattr(tf.nn if lib == "tenferro" else F, name)
    if not grad:
        return lambda: f(x, (1000,), *ps)

    def run():
        f(x, (1000,), *ps).sum().backward()
        for t in [x] + ps:
            t.grad = None
    return run


def cases():
    """(case, n, dtype, make(lib) -> a function of no arguments)."""
    for name in ACTS:
        for shape, dtype in (((1000, 1000), "float64"), ((1000, 1000), "float32"),
                             ((1000,), "float64")):
            yield (name, shape, dtype, lambda lib, name=name, shape=shape, dtype=dtype: (
                lambda f, x: lambda: f(x))(_act(lib, name), _data(lib, shape, dtype)))
        yield (name + " fwd+bwd", (1000, 1000), "float64", lambda lib, name=name: _backward(
            lib, _act(lib, name), _data(lib, (1000, 1000), "float64", True)))
    for name in ("softmax", "log_softmax"):
        yield (name, (1000, 1000), "float64", lambda lib, name=name: (
            lambda f, x: (lambda: f(x, axis=-1)) if lib == "tenferro" else (lambda: f(x, -1)))(
            getattr(tf.nn if lib == "tenferro" else F, name),
            _data(lib, (1000, 1000), "float64")))
    for name in ("layer_norm", "rms_norm"):
        for dtype, grad in (("float64", False), ("float32", False), ("float64", True)):
            yield (name + (" fwd+bwd" if grad else ""), (1000, 1000), dtype,
                   lambda lib, name=name, dtype=dtype, grad=grad: _norm(lib, name, dtype, grad))

    def affine(lib):
        x, s, b = (_data(lib, sh, "float64") for sh in ((1000, 1000), (1000,), (1000,)))
        if lib == "tenferro":
            return lambda: tf.nn.affine(x, s, b)
        return lambda: torch.addcmul(b, x, s)    # PyTorch's fused x * s + b
    yield ("affine", (1000, 1000), "float64", affine)

    def chain(lib):
        x = _data(lib, (1000, 1000), "float64")
        if lib == "tenferro":
            f = tf.jit(lambda v: tf.nn.silu(tf.nn.gelu(v) * 2.0) + 1.0)
            return lambda: f(x)
        return lambda: F.silu(F.gelu(x) * 2.0) + 1.0
    yield ("jit chain", (1000, 1000), "float64", chain)


def main(argv=None):
    rounds = 1
    if argv is None:
        argv = sys.argv[1:]
    if "--interleave" in argv:   # (taken out before compare's parser sees it)
        argv = [a for a in argv if a != "--interleave"]
        rounds = 5
    args = compare.parse_args(argv, __doc__, repeat=5, min_time=0.1)
    print(compare.versions_comment(args))
    print("| case | n | dtype | tenferro | PyTorch | PyTorch/tenferro |")
    print("|---|---:|---|---:|---:|---:|")
    for name, shape, dtype, make in cases():
        if args.only and args.only not in name:
            continue
        fns = {lib: make(lib) for lib in ("tenferro", "torch")}
        t = {}
        for _ in range(rounds):
            for lib, fn in fns.items():
                time.sleep(PAUSE)
                t[lib] = min(t.get(lib, np.inf), compare.best_of(fn, args.repeat, args.min_time))
        print("| %s | %s | %s | %s | %s | %.2f |" % (
            name, "1e%d" % round(np.log10(np.prod(shape))), dtype, compare.fmt_t(t["tenferro"]),
            compare.fmt_t(t["torch"]), t["torch"] / t["tenferro"]), flush=True)


if __name__ == "__main__":
    main()
