"""make_graph's inputs: one TensorSpec, tensor or array data per argument; anything
else (a tuple of specs, a ragged list) raises a TypeError naming make_graph and the
way to trace nested arguments, instead of NumPy's "object is not a tenferro dtype"."""
import pytest

import tenferro as tf


def f(params, x):
    return params[0] * x + params[1]


@pytest.mark.parametrize("bad", [
    (tf.TensorSpec((2,)), tf.TensorSpec((2,))),
    (tf.TensorSpec((2,)), tf.zeros(2)),
    [[1.0, 2.0], [3.0]],
])
def test_nested_inputs_name_make_graph(bad):
    with pytest.raises(TypeError, match=r"tenferro\.make_graph: an input must be .*jit\(f\)\.trace"):
        tf.make_graph(f, bad, tf.TensorSpec((2,)))


def test_array_data_and_the_pytree_route_still_work():
    g = tf.make_graph(lambda x: x * 2.0, [1.0, 2.0])   # a list is array data
    assert g.inputs[0].shape == (2,)
    g = tf.make_graph(lambda x: x * 2.0, [tf.zeros(2), tf.zeros(2)])   # stacked
    assert g.inputs[0].shape == (2, 2)
    params = (tf.zeros(2), tf.ones(2))
    g = tf.jit(f).trace(params, tf.zeros(2))
    assert len(g.inputs) == 3
