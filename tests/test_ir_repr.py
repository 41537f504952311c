"""The readable printouts of graph objects: Var, Node, and constants in a Graph."""
import numpy as np

import tenferro as tf
from tenferro._ir import Var


def test_var_repr_is_its_type():
    assert repr(Var((2, 3), np.float32)) == "Var(f32[2, 3])"
    assert repr(Var((), np.complex128)) == "Var(c128[])"
    g = tf.make_graph(tf.sin, tf.TensorSpec((3,)))
    assert repr(g.inputs) == "(Var(f64[3]),)"


def test_node_repr_names_primitive_params_and_operands():
    g = tf.make_graph(lambda x: tf.sin(x) * 2.0, tf.TensorSpec((3,)))
    assert repr(g.nodes[0]) == \
        "Node(sin[out_dtype=float64], inputs=[Var(f64[3])], outputs=[Var(f64[3])])"
    assert repr(g.nodes[1]) == ("Node(multiply[out_dtype=float64], inputs=[Var(f64[3]), "
                                "const(2.0)], outputs=[Var(f64[3])])")


def test_node_repr_summarises_a_subgraph_parameter():
    g = tf.make_graph(lambda x: tf.checkpoint(tf.sin, x) * 2.0, tf.TensorSpec((2,)))
    assert repr(g.nodes[0]) == \
        "Node(checkpoint[graph=Graph(1 node)], inputs=[Var(f64[2])], outputs=[Var(f64[2])])"


def test_printout_shows_small_constants_by_value_and_large_by_type():
    g = tf.make_graph(lambda x: tf.sin(x) * 2 + 1, tf.TensorSpec((3,), tf.float64))
    assert str(g).splitlines() == [
        "{ lambda a:f64[3] .",
        "    b:f64[3] = sin[out_dtype=float64] a",
        "    c:f64[3] = multiply[out_dtype=float64] b const(2.0)",
        "    d:f64[3] = add[out_dtype=float64] c const(1.0)",
        "  in (d) }"]
    small = tf.asarray([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).reshape(2, 3)
    text = str(tf.make_graph(lambda x: x * small, tf.TensorSpec((2, 3))))
    assert "const([[1. 2. 3.] [4. 5. 6.]])" in text          # one line, by value
    large = tf.ones((10, 3))
    text = str(tf.make_graph(lambda x: x + large, tf.TensorSpec((10, 3))))
    assert "const(f64[10, 3])" in text
    text = str(tf.make_graph(lambda x: x * tf.arange(7.0), tf.TensorSpec((7,))))
    assert "const(f64[7])" in text


def test_printout_of_a_constant_output():
    g = tf.make_graph(lambda x: tf.asarray([1, 2]), tf.TensorSpec((3,)))
    assert str(g).splitlines()[-1] == "  in (const([1 2])) }"


def test_printout_shows_a_device_constant_by_value(accel_device):
    """A small constant on an accelerator is copied to the host for the printout (its
    driver's to_numpy), not shown by type."""
    dt = "float32"   # every device has it (WebGPU has no float64)
    c = tf.asarray([1.0, 2.0], device=accel_device, dtype=dt)
    g = tf.make_graph(lambda x: x * c, tf.TensorSpec((2,), dt, device=accel_device))
    assert "const([1. 2.])" in str(g)


def test_tensor_spec_repr_names_a_device_other_than_the_cpu(accel_device):
    assert repr(tf.TensorSpec((2, 3), "float32")) == "TensorSpec((2, 3), float32)"
    spec = tf.TensorSpec((2,), "float32", device=accel_device)
    assert repr(spec) == "TensorSpec((2,), float32, device=%r)" % str(accel_device)
