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
    return {
        "x * y + 1": lambda: x * y + 1.0,
        "sin(x)": lambda: tf.sin(x),
        "astype": lambda: x.astype("float32"),
        "sum axis 0": lambda: x.sum(axis=0),
        "sum": lambda: x.sum(),
        "cumsum": lambda: tf.cumsum(x, axis=1),
        "argmax": lambda: tf.argmax(x, axis=0),
        "take": lambda: tf.take(x, idx, axis=0),
        "cholesky": lambda: tl.cholesky(spd, lower=True),
        "eigvalsh": lambda: tl.eigh(spd)[0],
        "batched matmul": lambda: b @ b,
        "fused": lambda: tf.jit(lambda u, v: (tf.exp(u) * v).sum(axis=1))(x, y),
    }


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
