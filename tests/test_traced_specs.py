"""The traced twin of every autodiff rule test: each spec of tests/autodiff_specs.py
(every differentiable primitive), traced and compiled in reverse mode (grad of a
weighted loss) and forward mode (jvp), must give the eager functional transforms'
values to rounding."""
import pytest

import tenferro as tf

from autodiff_specs import SPECS, sample
from conftest import assert_close, stable_rng

CASES = [pytest.param(s, d, id="%s-%s" % (s.name, d)) for s in SPECS for d in s.dtypes]


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _setup(spec, dtype):
    rng = stable_rng("traced-twin", spec.name, dtype)
    args = [sample(a, dtype, rng) for a in spec.args]
    outs = [o for o in _flat(spec.fn(*args)) if o.dtype.kind in "fc"]
    weights = [tf.asarray(rng.standard_normal(o.shape).astype(o.real.dtype if
                                                            o.dtype.kind == "c" else o.dtype))
               for o in outs]

    def loss(*a):
        res = [o for o in _flat(spec.fn(*a)) if o.dtype.kind in "fc"]
        return sum(tf.sum(tf.real(o) * w) for o, w in zip(res, weights))
    return args, loss


def _tol(dtype):
    return 1e-4 if dtype in ("float32", "complex64") else 1e-10


@pytest.mark.parametrize("spec,dtype", CASES)
def test_traced_twin(spec, dtype):
    args, loss = _setup(spec, dtype)
    nums = tuple(range(len(args)))
    want = tf.grad(loss, argnums=nums)(*args)
    got = tf.jit(tf.grad(loss, argnums=nums))(*args)
    for g, w in zip(got, want):
        assert_close(g, w.numpy(), rtol=_tol(dtype), atol=_tol(dtype))
    ts = [sample(a, dtype, stable_rng("traced-twin-t", spec.name, dtype, i))
          for i, a in enumerate(spec.args)]
    jv = tf.jit(lambda *a: tf.jvp(loss, tuple(a[:len(args)]), tuple(a[len(args):])))
    out, dout = jv(*args, *ts)
    wout, wdout = tf.jvp(loss, tuple(args), tuple(ts))
    assert_close(out, wout.numpy(), rtol=_tol(dtype), atol=_tol(dtype))
    assert_close(dout, wdout.numpy(), rtol=_tol(dtype), atol=_tol(dtype))
