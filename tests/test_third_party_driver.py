"""A third-party driver package plugs in with no edit to any tenferro file: the toy
driver of tests/plugins/tenferro_toy, "installed" through a ``.dist-info`` entry point
(the mechanism pip gives a real package), runs eager ops, autodiff, a compiled program
through its own fused-group hook, and a linalg primitive it registered with
``def_impl`` -- each compared with NumPy.  Run in a fresh interpreter: device discovery
and registration are process-wide."""
import pathlib
import shutil
import subprocess
import sys
import textwrap
import typing

import pytest

PLUGIN = pathlib.Path(__file__).parent / "plugins" / "tenferro_toy"
REPO = pathlib.Path(__file__).resolve().parents[1]


def _install(site):
    shutil.copytree(PLUGIN, site / "tenferro_toy")
    info = site / "tenferro_toy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tenferro-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tenferro.devices]\ntoy = tenferro_toy:Driver\n")


SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import tenferro as tf

    # nothing device-specific is loaded by importing tenferro or its linalg
    assert "tenferro_toy" not in sys.modules
    assert "toy" in tf.devices.known_device_types()
    toy = tf.device("toy")
    import tenferro_toy
    assert type(toy.driver).__module__ == "tenferro_toy"

    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 4))
    x = tf.asarray(a).to("toy")
    assert x.device == toy and type(x._data).__name__ == "ToyArray"

    # eager ops, on the toy device's own implementations
    y = tf.sin(x) * 2.0 + x.sum(axis=0)
    assert y.device == toy
    np.testing.assert_allclose(y.to("cpu").numpy(), np.sin(a) * 2.0 + a.sum(axis=0),
                               rtol=1e-14)
    assert tenferro_toy.calls["ops"] > 0

    # autodiff (rules are device-independent)
    g = tf.grad(lambda v: (tf.sin(v) ** 2).sum())(x)
    np.testing.assert_allclose(g.to("cpu").numpy(), 2 * np.sin(a) * np.cos(a), rtol=1e-13)

    # a compiled program: the fusion pass hands the group to the driver's hook
    f = tf.jit(lambda v: (tf.exp(v) * v - 1.0).sum(axis=1))
    np.testing.assert_allclose(f(x).to("cpu").numpy(), (np.exp(a) * a - 1.0).sum(axis=1),
                               rtol=1e-13)
    assert tenferro_toy.calls["fused"] > 0

    # a linalg primitive registered for "toy" by the package (before the driver loaded)
    m = a.T @ a + 4 * np.eye(4)
    c = tf.linalg.cholesky(tf.asarray(m).to("toy"), lower=True)
    assert c.device == toy and tenferro_toy.calls["cholesky"] == 1
    np.testing.assert_allclose(c.to("cpu").numpy(), np.linalg.cholesky(m), rtol=1e-13)

    # a registration after the driver loaded reaches it too
    from tenferro.autograd import extend
    p = extend.Primitive("_toy_twice", lambda a: a)
    extend.def_impl(p, "toy", lambda d: tenferro_toy.ToyArray(d.data * 2))
    np.testing.assert_array_equal(p.bind(x).to("cpu").numpy(), 2 * a)
    # and a primitive the driver lacks is a clear error, never a transfer
    q = extend.Primitive("_toy_missing", lambda a: a)
    extend.def_impl(q, "cpu", lambda d: d)
    try:
        q.bind(x)
    except tf.UnsupportedOperation as e:
        assert "_toy_missing" in str(e) and "toy" in str(e)
    else:
        raise AssertionError("no error")
    print("ok")
""")


def test_a_driver_package_plugs_in_without_edits(tmp_path):
    _install(tmp_path)
    env = {"PYTHONPATH": "%s:%s" % (tmp_path, REPO), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def test_registering_for_a_device_loads_no_driver():
    """def_impl only records: registering for a device type whose driver is absent (or
    not loaded) imports nothing and raises nothing (JAX's register_lowering)."""
    code = textwrap.dedent("""
        import sys
        import tenferro.linalg
        from tenferro.autograd import extend
        from tenferro import devices
        extend.def_impl(extend.registry["linalg.cholesky"], "nosuchdevice", lambda a: a)
        assert "nosuchdevice" not in devices._drivers
        assert not any(m.startswith(("wgpu", "cuda")) for m in sys.modules), sorted(
            m for m in sys.modules if m.startswith(("wgpu", "cuda")))
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(REPO),
                                                          "PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_each_driver_has_its_own_implementations():
    """A driver class without an ``implementations`` table does not share (or write
    into) another's: each instance gets its device type's own dict."""
    from tenferro.devices.base import Driver

    class A(Driver):
        name = "_test_a"

    class B(Driver):
        name = "_test_b"

    a, b = A(), B()
    a.implementations["x"] = len
    assert "x" not in b.implementations and not hasattr(Driver, "implementations")


@pytest.mark.parametrize("fn", ["defjvp", "defvjp", "def_jvp_rule", "def_vjp_rule",
                                "deflinear", "def_impl", "zero_derivative",
                                "is_differentiated"])
def test_extension_api_is_annotated(fn):
    from tenferro.autograd import extend
    hints = typing.get_type_hints(getattr(extend, fn))
    assert "return" in hints and len(hints) >= 2


@pytest.mark.parametrize("method", ["empty", "from_numpy", "to_numpy", "lookup", "supports",
                                    "device_count", "synchronize", "full", "info"])
def test_driver_interface_is_annotated(method):
    from tenferro.devices.base import Driver
    hints = typing.get_type_hints(getattr(Driver, method))
    assert "return" in hints
