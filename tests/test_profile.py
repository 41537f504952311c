"""tenferro.profile / TENFERRO_PROFILE: every op is seen (the eager fast paths step aside
while a profile is open), with the right counts, bytes and devices; profiling off leaves
the hooks as they were."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tenferro as tf
import tenferro.linalg as tl
from tenferro import _primitive, _profile
from test_runtime_context import other_device


def _rows(p):
    return {(r["op"], r["device"]): r for r in p.rows()}


def test_every_kind_of_op_is_counted():
    x = tf.asarray(np.arange(4.0))
    a = tf.asarray(np.eye(3) + 0.1)
    f = tf.jit(lambda t: tf.sin(t) * 2.0 + 1.0)
    f(x)   # compiled before the profile: its run is what is counted
    with tf.profile() as p:
        x + x                     # elementwise, tensor-tensor fast path
        x * 2.0                   # elementwise, weak-scalar fast path
        tf.sum(x)                 # reduction fast path
        x.sum(axis=0)
        x[1]                      # basic indexing fast path
        x[1:3]
        a @ a                     # matmul
        tf.einsum("ij,jk->ik", a, a)          # einsum's two-operand fast path
        tl.solve(a, x[:3])                    # linalg
        f(x)                                  # jit's fast path
        f(x)
    assert p.calls("add") == 1
    assert p.calls("multiply") == 1
    assert p.calls("sum") == 2
    assert p.calls("basic_index") == 3       # x[1], x[1:3], x[:3]
    assert p.calls("matmul") == 1
    assert p.calls("einsum") == 1
    assert p.calls("linalg.solve") == 1
    assert p.calls("jit:<lambda>") == 2
    assert p.calls("sin") == 0               # inside the program: not a row of its own
    assert all(r["device"] == "cpu" for r in p.rows())


def test_program_steps_are_rows_within_the_program():
    f = tf.jit(lambda t, w: (tf.sin(t) * 2.0 + 1.0) @ w)
    x = tf.asarray(np.ones((8, 8)))
    ref = np.asarray(f(x, x))
    with tf.profile() as p:
        for _ in range(3):
            np.testing.assert_array_equal(np.asarray(f(x, x)), ref)
    rows = p.rows()
    assert [r["op"] for r in rows[:3]] == ["jit:<lambda>", "0:fused[sin,multiply,add]",
                                          "1:matmul"]
    assert p.calls("jit:<lambda>") == 3
    assert p.calls("1:matmul", within="jit:<lambda>") == 3
    assert p.calls("matmul") == 0                 # not an operation of its own
    assert rows[2]["bytes"] == 3 * 3 * 8 * 64     # a, w read, the product written
    steps = sum(r["total_s"] for r in rows if r["within"] == "jit:<lambda>")
    assert steps <= rows[0]["total_s"]
    assert "  1:matmul" in p.table()


def test_programs_run_inside_programs_are_part_of_their_step():
    x = tf.asarray(np.ones((4, 4)))
    g = tf.jit(tf.grad(lambda t: tf.checkpoint(lambda u: tf.sin(u) * 2, t).sum()))
    ref = np.asarray(g(x))
    with tf.profile() as p:
        np.testing.assert_array_equal(np.asarray(g(x)), ref)
    rows = p.rows()
    assert len(rows) == len(p.stats)      # every step listed under its program
    assert [r["op"] for r in rows if r["within"] is None] == ["jit:grad(<lambda>)"]


def test_multi_operand_einsum_counts_its_pairwise_steps():
    a = tf.asarray(np.eye(3) + 0.1)
    ref = tf.einsum("ij,jk,kl->il", a, a, a)
    with tf.profile() as p:
        r = tf.einsum("ij,jk,kl->il", a, a, a)
    assert p.calls("einsum") == 2
    np.testing.assert_allclose(np.asarray(r), np.asarray(ref), rtol=1e-15)


def test_writes_are_counted():
    x = tf.asarray(np.zeros(5))
    with tf.profile() as p:
        x[0] = 1.0                           # setitem: basic view + assign
        x[tf.asarray([1, 2])] = 2.0          # advanced: put
        tf.sin(x, out=x)                     # out=
    assert p.calls("assign") == 1
    assert p.calls("put") == 1
    assert p.calls("sin") == 1
    i = tf.asarray(np.arange(5))
    with tf.profile() as p:
        tf.add(i, i, out=x)                  # computed in int64, then assigned
    assert p.calls("add") == 1 and p.calls("assign") == 1
    np.testing.assert_array_equal(x.numpy(), 2 * np.arange(5.0))


def test_bytes_and_views():
    n = 1000
    x = tf.asarray(np.ones(n))
    with tf.profile() as p:
        x + x
        x.reshape(10, 100)
        x[2:7]
    rows = _rows(p)
    assert rows[("add", "cpu")]["bytes"] == 3 * 8 * n
    assert rows[("reshape", "cpu")]["bytes"] == 0
    assert rows[("basic_index", "cpu")]["bytes"] == 0
    r = rows[("add", "cpu")]
    assert r["total_s"] > 0 and r["mean_s"] == r["total_s"] / r["calls"]


def test_autodiff_ops_are_counted():
    x = tf.asarray(np.arange(3.0)).requires_grad_()
    with tf.profile() as p:
        (x * x).sum().backward()
    assert p.calls("multiply") >= 2        # forward, and the VJP's product
    assert p.calls("sum") == 1
    np.testing.assert_allclose(np.asarray(x.grad), 2 * np.arange(3.0))


def test_results_are_unchanged_and_hooks_restored():
    x = tf.asarray(np.linspace(-1, 1, 7))
    before = np.asarray(tf.exp(x) * x + 1.0)
    interp = list(_primitive._interpreters)
    with tf.profile():
        inside = np.asarray(tf.exp(x) * x + 1.0)
    np.testing.assert_array_equal(before, inside)
    assert _primitive._interpreters == interp
    assert _primitive.eager_apply is _profile._plain_apply
    assert _primitive.program_hook is None
    assert _primitive.driver_call is _primitive.plain_driver_call


def test_closed_on_exception():
    with pytest.raises(ZeroDivisionError):
        with tf.profile():
            1 / 0
    assert _primitive.eager_apply is _profile._plain_apply
    assert _profile._MARK not in _primitive._interpreters


def test_nested_profiles():
    x = tf.asarray(np.arange(3.0))
    with tf.profile() as outer:
        x + x
        with tf.profile() as inner:
            x - x
        x * x
    assert inner.calls("subtract") == 1 and inner.calls("add") == 0
    assert outer.calls("add") == outer.calls("subtract") == outer.calls("multiply") == 1
    with pytest.raises(RuntimeError, match="already open"):
        with outer:
            with outer:
                pass


def test_other_threads_are_recorded():
    x = tf.asarray(np.arange(3.0))

    def work():
        for _ in range(5):
            x + x

    with tf.profile() as p:
        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    assert p.calls("add") == 20


def test_table_and_rows():
    x = tf.asarray(np.arange(3.0))
    with tf.profile() as p:
        x + x
    text = p.table()
    assert "add" in text and "calls" in text and str(p) == text
    assert set(p.rows()[0]) == {"op", "device", "calls", "total_s", "mean_s", "bytes",
                                "within"}
    assert "1 ops" in repr(p)


def test_other_device_rows():
    dev = other_device()
    x = tf.asarray(np.arange(3.0, dtype=np.float32), device=dev)
    f = tf.jit(lambda t: tf.sin(t) * 2.0)
    ref = np.asarray(f(x).to("cpu"))
    with tf.profile() as p:
        y = x + x
        r = f(x)
    assert p.calls("add", device=str(y.device)) == 1
    assert p.calls("jit:<lambda>", device=str(y.device)) == 1
    assert any(row["within"] == "jit:<lambda>" for row in p.rows())
    np.testing.assert_array_equal(np.asarray(r.to("cpu")), ref)


def test_env_var_prints_at_exit():
    code = "import numpy as np, tenferro as tf; x = tf.asarray(np.ones(3)); x + x; x + x"
    env = dict(os.environ, TENFERRO_PROFILE="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "tenferro profile" in r.stderr
    line = [l for l in r.stderr.splitlines() if l.startswith("add ")]
    assert line and line[0].split()[2] == "2"


def test_profiling_changes_no_bit_of_special_functions():
    """The special functions' eager kernels run (and are counted) under a profile, not
    their compositions, so values are bitwise the unprofiled ones."""
    import tenferro.special as ts
    x = tf.asarray(np.random.default_rng(0).uniform(0.01, 0.99, 10000))
    want = [ts.logit(x).numpy(), ts.softmax(x).numpy(), ts.erfinv(x).numpy()]
    with tf.profile() as p:
        got = [ts.logit(x).numpy(), ts.softmax(x).numpy(), ts.erfinv(x).numpy()]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert p.calls("special.logit") == 1 and p.calls("special.softmax") == 1
