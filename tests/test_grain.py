"""Grain sizes (tenferro.devices.cpu.threads.GRAIN): where a kernel family starts using
more than one thread.  They change speed only: results are the same bits whichever
family runs threaded, and bad settings are clear errors."""
import numpy as np
import pytest

import tenferro as tf
import tenferro.linalg as tl
from tenferro.devices.cpu import threads

ALL_THREADED = dict(elementwise=1, transcendental=1, reduce=1, index=1,
                    batched_linalg_work=1, batched_matmul_work=1)
NONE_THREADED = {k: 1e18 for k in ALL_THREADED}


def _workloads():
    rng = np.random.default_rng(7)
    x = tf.asarray(rng.standard_normal((300, 257)))
    y = tf.asarray(rng.standard_normal((300, 257)))
    idx = tf.asarray(rng.integers(0, 300, 5000))
    a = rng.standard_normal((200, 5, 5))
    spd = tf.asarray(np.einsum("bij,bkj->bik", a, a) + 5 * np.eye(5))
    b = tf.asarray(a)
    i257 = tf.asarray(rng.integers(0, 257, (300, 64)))
    i50 = tf.asarray(rng.integers(0, 50, 500))
    v = {k: tf.asarray(rng.standard_normal(k)) for k in [(300, 1000), (500, 1024), (5000,),
                                                         (300, 64), (5000, 257)]}
    return {
        "x * y + 1": lambda: x * y + 1.0,
        "sin(x)": lambda: tf.sin(x),
        "astype": lambda: x.astype("float32"),
        "sum axis 0": lambda: x.sum(axis=0),
        "sum": lambda: x.sum(),
        "cumsum": lambda: tf.cumsum(x, axis=1),
        "argmax": lambda: tf.argmax(x, axis=0),
        "take": lambda: tf.take(x, idx, axis=0),
        "take 1-D": lambda: tf.take(tf.reshape(x, (-1,)), idx),
        "take_along_axis": lambda: tf.take_along_axis(x, i257, axis=1),
        # scatter-adds cut along an outer dimension, and two on one thread
        "scatter_add axis 1": lambda: tf.scatter_add((300, 257), i257[0] * 4 % 257,
                                                     v[300, 1000][:, :64], 1),
        "scatter_add axis 0": lambda: tf.scatter_add((50, 1024), i50, v[500, 1024], 0),
        "scatter_add 1-D": lambda: tf.scatter_add((300,), idx, v[5000,], 0),
        "scatter_add_along_axis": lambda: tf.scatter_add_along_axis((300, 257), i257,
                                                                    v[300, 64], 1),
        "setitem (put)": lambda: _setitem(tf.zeros((300, 257)), idx, v[5000, 257]),
        "cholesky": lambda: tl.cholesky(spd, lower=True),
        "eigvalsh": lambda: tl.eigh(spd)[0],
        "batched matmul": lambda: b @ b,
        "fused": lambda: tf.jit(lambda u, v: (tf.exp(u) * v).sum(axis=1))(x, y),
    }


def _setitem(y, key, value):
    y[key] = value
    return y


@pytest.mark.parametrize("name", sorted(_workloads()))
def test_results_do_not_depend_on_the_grain(name):
    fn = _workloads()[name]
    with tf.num_threads(2):
        with threads.grain(**ALL_THREADED):
            par = np.asarray(fn())
        with threads.grain(**NONE_THREADED):
            ser = np.asarray(fn())
    np.testing.assert_array_equal(par, ser)


def test_set_grain_round_trips_and_rejects_bad_input():
    before = threads.get_grain()
    old = threads.set_grain(reduce=12345)
    try:
        assert old == before and threads.get_grain()["reduce"] == 12345
    finally:
        threads.set_grain(**old)
    assert threads.get_grain() == before
    with pytest.raises(ValueError, match="unknown kernel families \\['elementwsie'\\]"):
        threads.set_grain(elementwsie=10)
    for bad in (0, -5, True, "big", float("nan")):
        with pytest.raises(ValueError, match="reduce must be a number >= 1"):
            threads.set_grain(reduce=bad)
    assert threads.get_grain() == before


def _index_errors():
    """Each indexing op called with one out-of-range index among 80000: op -> message."""
    x = tf.asarray(np.ones((40000, 2)))
    bad = np.zeros(50001, np.int64)
    bad[-1] = 40000
    along = np.zeros((40000, 2), np.int64)
    along[-1, 0] = 2
    calls = {
        "take": lambda: tf.take(x, bad, axis=0),
        "take_along_axis": lambda: tf.take_along_axis(x, along, axis=1),
        "scatter_add": lambda: tf.scatter_add((40000, 2), bad, tf.ones((50001, 2)), 0),
        "scatter_add_along_axis": lambda: tf.scatter_add_along_axis((40000, 2), along,
                                                                    tf.ones((40000, 2)), 1),
        "getitem": lambda: x[bad],
        "setitem": lambda: _setitem(tf.zeros((40000, 2)), bad, 1.0),
    }
    got = {}
    for op, call in calls.items():
        with pytest.raises(IndexError) as e:
            call()
        got[op] = str(e.value)
    return got


def test_index_errors_do_not_depend_on_threads():
    """Out-of-range indices raise the same IndexError, naming the op, on 1 and 2 threads
    (they are checked before the kernel runs; none leave its parallel loops)."""
    with tf.num_threads(1), threads.grain(**NONE_THREADED):
        one = _index_errors()
    with tf.num_threads(2), threads.grain(index=1):
        two = _index_errors()
    assert one == two
    for op, msg in one.items():
        n, axis = (2, 1) if op.endswith("along_axis") else (40000, 0)
        assert msg == ("tenferro.%s: index %d is out of bounds for axis %d with size %d"
                       % ("getitem" if op == "setitem" else op, n, axis, n)), msg


# (target shape, axis, index shape): scatter-adds cut along dimension 0, along a middle
# dimension (an index dimension in front of it), and two on one thread (no outer
# dimension the target moves along)
SCATTERS = [((40, 30), 1, (700,)), ((6, 20, 9), 2, (30, 5)), ((7, 2000), 0, (50, 3)),
            ((300,), 0, (5000,))]


@pytest.mark.parametrize("case", SCATTERS, ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
def test_scatter_add_same_bits_for_any_thread_count(case, order):
    """Every chunk owns its target elements and adds into them in the serial order."""
    from tenferro._kernels import _index as K

    shape, axis, ish = case
    rng = np.random.default_rng(3)
    idx = rng.integers(0, shape[axis], ish)            # many duplicates
    vals = rng.standard_normal(shape[:axis] + ish + shape[axis + 1:])
    ref = np.zeros(shape)
    np.add.at(ref, (slice(None),) * axis + (idx,), vals)
    outs = []
    with threads.grain(index=1):
        for nt in (1, 2, 3, 7):
            out = np.zeros(shape, order=order)
            K.scatter_add(out, idx, axis, np.asarray(vals, order=order), nt)
            outs.append(out)
    np.testing.assert_allclose(outs[0], ref, rtol=1e-12, atol=1e-12)
    for out in outs[1:]:
        np.testing.assert_array_equal(out, outs[0])
