"""What the API reference reads from public objects besides their docstrings'
sections (tests/test_docstrings.py): real signatures where the code takes *args, and
class docstrings where instances carry their own."""
import inspect

import numpy as np
import pytest

import tenferro as tf
from tenferro.autograd import extend
from tenferro.devices import DeviceArray


def test_primitive_class_has_a_docstring_and_instances_keep_theirs():
    assert inspect.getdoc(extend.Primitive).startswith("An operation known to every transform")
    assert extend.registry["check"].__doc__.startswith("check(x, ok; error, message)")
    assert extend.registry["sin"].__doc__ is None
    p = extend.Primitive("_test_doc_prim", doc="one line")
    try:
        assert p.__doc__ == "one line"
        p.__doc__ = "another"
        assert p.__doc__ == "another"
        assert inspect.getdoc(extend.Primitive).startswith("An operation known")
    finally:
        del extend.registry["_test_doc_prim"]


def test_jit_signature_is_its_parameters_and_the_decorator_form_keeps_them():
    assert list(inspect.signature(tf.jit).parameters) == [
        "f", "maxsize", "passes", "reuse", "static_argnums", "static_argnames"]

    @tf.jit(static_argnums=1, maxsize=3)
    def f(x, n):
        return x * n
    assert float(f(tf.ones(()), 3)) == 3.0
    assert f.static_argnums == (1,) and f.maxsize == 3


def test_trace_has_numpys_signature_and_still_traces_a_callable():
    assert list(inspect.signature(tf.trace).parameters) == [
        "a", "offset", "axis1", "axis2", "dtype"]
    assert float(tf.trace(tf.asarray(np.eye(3)), offset=0)) == 3.0
    with pytest.warns(DeprecationWarning, match="use tenferro.make_graph"):
        g = tf.trace(tf.sin, tf.TensorSpec((2,)))
    assert isinstance(g, tf.Graph)


def test_device_array_protocol_has_an_empty_signature():
    assert str(inspect.signature(DeviceArray)) == "()"
