"""64-bit indexing: tensors of more than 2**31 elements, without the memory for them.

A zero-stride broadcast view has 2**31 + 7 logical elements over one stored element,
so kernels that index with 32-bit integers would wrap around and give wrong counts.
"""
import numpy as np

import tenferro as tf

N = 2 ** 31 + 7


def test_sum_over_more_than_2_31_elements():
    x = tf.broadcast_to(tf.ones(1, dtype=tf.int32), (N,))
    assert x.size == N
    assert int(x.sum()) == N
    assert int(tf.count_nonzero(x)) == N


def test_reduce_axis_over_more_than_2_31_elements():
    m = N // 2 + 1
    x = tf.broadcast_to(tf.asarray(np.array([[1.0], [2.0]])), (2, m))
    assert x.size > 2 ** 31
    np.testing.assert_array_equal(x.sum(axis=1).numpy(), [m, 2.0 * m])
