"""Every primitive's batching rule against a Python loop over the batch.

The cases come from the existing tables: tests/op_table.py (every elementwise op, each
dtype it takes) and tests/autodiff_specs.py (the specs of every differentiable
primitive, linalg's and special's included); the few non-differentiable primitives no
table covers have a case here.  A registry walk fails naming any primitive that has
neither a batching rule nor a loop-only declaration.
"""
import numpy as np
import pytest

import tenferro as tf
import tenferro.linalg  # noqa: F401  (registers its primitives and rules)
import tenferro.special  # noqa: F401
from tenferro._primitive import registry
from tenferro.batching import loop_only, rules

import autodiff_specs
from conftest import random_array
from op_table import OPS

B = 3


def _leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _check_against_loop(fn, batched_args, in_axes, size, rtol=1e-10, atol=1e-12):
    """vmap(fn) equals stacking fn over the examples (each output leaf)."""
    got = _leaves(tf.vmap(fn, in_axes=in_axes)(*batched_args))
    per = []
    for i in range(size):
        ex = [a if ax is None else np.take(a.numpy(), i, axis=ax)
              for a, ax in zip(batched_args, in_axes)]
        per.append(_leaves(fn(*[tf.asarray(e) if isinstance(e, np.ndarray) else e
                                for e in ex])))
    assert len(got) == len(per[0])
    for k, g in enumerate(got):
        want = np.stack([p[k].numpy() for p in per])
        assert g.shape == want.shape and g.dtype == want.dtype, (k, g.shape, want.shape)
        np.testing.assert_allclose(g.numpy(), want, rtol=rtol, atol=atol, err_msg=str(k))


def test_every_primitive_has_a_batching_rule():
    missing = sorted(name for name, p in registry.items()   # (tests' own: _test*)
                     if p not in rules and p not in loop_only and not name.startswith("_test"))
    assert not missing, ("primitives without a batching rule or a loop-only declaration "
                         "(tenferro.autograd.extend.def_batch_rule / def_batch_loop): %s"
                         % missing)


@pytest.mark.parametrize("op", list(OPS.values()), ids=lambda o: o.name)
def test_elementwise(op):
    """Each op of the table in its first and last dtype: all operands batched, and the
    first batched (along its last axis) beside unbatched others of lower rank."""
    fn = getattr(tf, op.name)
    for dt in {op.dtypes[0], op.dtypes[-1]}:
        doms = op.domains()
        xs = [tf.asarray(random_array((B, 2, 4), dt, d, seed=i)) for i, d in enumerate(doms)]
        odt = fn(*[x[0] for x in xs]).dtype   # (SIMD and scalar loops differ by ulps)
        tol = {"rtol": 0, "atol": 0, **op.tolerance(odt)}
        _check_against_loop(fn, xs, (0,) * op.arity, B, **tol)
        if op.arity == 2:
            x0 = tf.asarray(random_array((2, 4, B), dt, doms[0], seed=5))
            x1 = tf.asarray(random_array((4,), dt, doms[1], seed=6))
            _check_against_loop(fn, [x0, x1], (-1, None), B, **tol)
            _check_against_loop(fn, [x1, x0], (None, 2), B, **tol)


def _spec_id(case):
    s, dt = case
    return "%s-%s" % (s.name, dt)


_CASES = [(s, dt) for s in autodiff_specs.SPECS for dt in s.dtypes]


@pytest.mark.parametrize("case", _CASES, ids=[_spec_id(c) for c in _CASES])
def test_spec(case):
    """Each autodiff spec's function (it covers the primitives it names) batched: all
    arguments mapped along axis 0; then the first mapped along its last axis, the others
    shared by the batch; then only the last mapped."""
    s, dt = case
    rng = np.random.default_rng(0)
    examples = [[autodiff_specs.sample(a, dt, rng) for a in s.args] for _ in range(B)]
    stacked = [tf.stack([ex[k] for ex in examples]) for k in range(len(s.args))]
    tol = dict(rtol=1e-8, atol=1e-10)
    _check_against_loop(s.fn, stacked, (0,) * len(stacked), B, **tol)
    if s.args[0].points is None:
        first = tf.moveaxis(stacked[0], 0, -1)
        _check_against_loop(s.fn, [first] + [ex for ex in examples[0][1:]],
                            (-1,) + (None,) * (len(stacked) - 1), B, **tol)
    if len(stacked) > 1:   # the last batched, the others shared
        _check_against_loop(s.fn, examples[0][:-1] + [stacked[-1]],
                            (None,) * (len(stacked) - 1) + (0,), B, **tol)


def _sorted(n):
    return tf.asarray(np.sort(np.random.default_rng(n).normal(size=(B, 5)), axis=-1))


def _bind(name, *args, **params):
    return registry[name].bind(*args, **params)


def _take(x, i, axis=0):
    from tenferro._ops.indexing import take_in_range

    return take_in_range(x, i, axis)


_X = tf.asarray(np.random.default_rng(1).normal(size=(B, 4, 5)))
_IDX = tf.asarray(np.random.default_rng(2).integers(0, 4, size=(B, 6)))
# (name, function, batched arguments, in_axes): the primitives no table covers, and the
# gathers and scatters with batched indices
EXTRA = [
    ("comparisons", lambda x, y: (x < y, x >= y, tf.equal(x, y), tf.logical_not(x > 0)),
     [_X, _X[:, ::-1]], (0, 0)),
    ("any_all", lambda x: (tf.any(x > 0, axis=1), tf.all(x > -1)), [_X], (0,)),
    ("argmax_argmin", lambda x: (tf.argmax(x, axis=0), tf.argmin(x), tf.argmax(x, axis=-1)),
     [_X], (0,)),
    ("argsort", lambda x: (tf.argsort(x, axis=0), tf.argsort(x, axis=-1)), [_X], (0,)),
    ("searchsorted", lambda a, v: tf.searchsorted(a, v), [_sorted(3), _sorted(4)], (0, 0)),
    ("searchsorted_shared", lambda a, v: tf.searchsorted(a, v), [_sorted(3)[0], _sorted(4)],
     (None, 0)),
    ("lu_permutation", lambda a: tf.linalg.lu(a)[0], [_X[:, :, :4]], (0,)),
    # (public indexing by batched index tensors: tests/test_vmap_indexing.py)
    ("take_batched_index", lambda x, i: (_take(x, i), _take(x, i, 1), _take(x, i[:2], 1)),
     [_X, _IDX], (0, 0)),
    ("take_shared_operand", lambda x, i: _take(x, i, 1), [_X[0], _IDX], (None, 0)),
    ("take_shared_index", lambda x: (x[_IDX[0]], x[:, _IDX[1]]), [_X], (0,)),
    ("take_along_axis", lambda x: (tf.sort(x, axis=0), tf.sort(x, axis=-1)), [_X], (0,)),
    ("scatter_batched_index", lambda x, i: tf.grad(lambda y: (_take(y, i) ** 2).sum())(x),
     [_X, _IDX], (0, 0)),
    ("scatter_shared_operand", lambda x, i: tf.grad(lambda y: (_take(y, i, 1) ** 2).sum())(x),
     [_X[0], _IDX], (None, 0)),
    ("scatter_along_axis", lambda x: tf.grad(lambda y: (tf.sort(y, axis=1) ** 3 * y).sum())(x),
     [_X], (0,)),
    # (the values-only primitives are bound only outside tracing; bound directly here)
    ("sort_values", lambda x: (_bind("sort_values", x, axis=0), _bind("sort_values", x, axis=1)),
     [_X], (0,)),
    ("partition", lambda x: _bind("partition", x, kth=(1, 3), axis=-1)[..., (1, 3)],
     [_X], (0,)),
    ("rounding", lambda x: (tf.floor(x), tf.ceil(x), tf.round(x), tf.trunc(x), tf.sign(x)),
     [_X], (0,)),
]


@pytest.mark.parametrize("name, fn, args, in_axes", EXTRA, ids=[e[0] for e in EXTRA])
def test_extra(name, fn, args, in_axes):
    _check_against_loop(fn, args, in_axes, B)


def test_nonzero_batches_when_counts_agree():
    """nonzero's output size depends on the values: one call on the batch, which works
    when every example has as many nonzeros (else IndexError: test_vmap_indexing.py)."""
    from tenferro._ops.indexing import nonzero_p

    assert nonzero_p in rules
    x = tf.asarray(np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 4.0]]))
    got = tf.vmap(lambda v: tf.nonzero(v)[0])(x)
    np.testing.assert_array_equal(got.numpy(), [[1, 2], [0, 2]])


@pytest.mark.parametrize("case", _CASES, ids=[_spec_id(c) for c in _CASES])
def test_spec_batches_of_one_and_none(case):
    """A batch of one example is that example; an empty batch gives empty outputs of
    the examples' shapes and dtypes."""
    s, dt = case
    rng = np.random.default_rng(1)
    ex = [autodiff_specs.sample(a, dt, rng) for a in s.args]
    want = _leaves(s.fn(*ex))
    one = _leaves(tf.vmap(s.fn)(*[tf.expand_dims(x, 0) for x in ex]))
    for g, w in zip(one, want):
        np.testing.assert_allclose(g.numpy(), w.numpy()[None], rtol=1e-10, atol=1e-12)
    empty = _leaves(tf.vmap(s.fn)(*[tf.zeros((0,) + x.shape, dtype=x.dtype) for x in ex]))
    assert [(g.shape, g.dtype) for g in empty] == [((0,) + w.shape, w.dtype) for w in want]
