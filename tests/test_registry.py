"""Walks of the primitive registry: nothing registered without its pieces."""
import numpy as np
import pytest

import tenferro as tf
from tenferro._primitive import registry


def test_every_primitive_runs_on_the_cpu():
    cpu = tf.device("cpu").driver.implementations   # the driver's own and the registered
    missing = [name for name, p in registry.items() if p.impl is None and name not in cpu]
    assert missing == []


def test_every_primitive_but_data_dependent_ones_has_a_shape_rule():
    missing = [name for name, p in registry.items() if p.abstract_eval is None]
    assert sorted(missing) == ["bincount", "nonzero", "unique_sorted"]


def test_non_differentiable_primitives_say_why():
    for p in registry.values():
        if not p.differentiable:
            assert p.nondiff_reason, p.name
            with pytest.raises(TypeError, match="%s is not differentiable" % p.name):
                p.rule("vjp")


def test_missing_rule_is_an_error_naming_primitive_and_mode():
    from tenferro._primitive import Primitive

    p = Primitive("_test_without_rules")
    try:
        with pytest.raises(NotImplementedError, match=r"_test_without_rules: no VJP rule is "
                                                      r"registered \(reverse mode\)"):
            p.rule("vjp")
        with pytest.raises(NotImplementedError, match=r"_test_without_rules: no JVP rule is "
                                                      r"registered \(forward mode\)"):
            p.rule("jvp")
    finally:
        del registry["_test_without_rules"]


@pytest.mark.parametrize("name,args,params", [
    ("add", [((2, 1), "float64"), ((3,), "float64")], {"out_dtype": np.dtype("float64")}),
    ("sum", [((2, 3, 4), "float32")], {"axes": (0, 2), "out_dtype": np.dtype("float32")}),
    ("matmul", [((5, 2, 3), "float64"), ((5, 3, 4), "float64")], {}),
    ("take", [((4, 5), "int32"), ((2, 3), "int64")], {"axis": 1}),
    ("diagonal", [((3, 4, 5), "float64")], {"offset": 1, "axis1": 0, "axis2": 2}),
    ("basic_index", [((6, 5), "float64")], {"key": (("s", 5, -1, -2), ("n",), ("i", 2))}),
])
def test_shape_rules_agree_with_eager_results(name, args, params):
    """abstract_eval (used by tracing) predicts what the CPU driver computes."""
    rng = np.random.default_rng(0)
    tensors = [tf.asarray(rng.integers(0, 2, s).astype(d)) for s, d in args]
    shape, dtype = registry[name].abstract_eval(*[(s, np.dtype(d)) for s, d in args], **params)
    out = registry[name].bind(*tensors, **params)
    assert out.shape == shape and out.dtype == dtype
