"""The pass registry and the rewrite-rule table (tenferro.graph.register_pass,
register_rewrite): a pass or a rule registered from outside runs where it is put, an
explicit ``passes=`` list is obeyed, errors name the problem, and programs rewritten by
a registered rule still equal NumPy.  Every test removes what it registers."""
import contextlib

import numpy as np
import pytest

import tenferro as tf
import tenferro.linalg as la
from tenferro import graph

from conftest import assert_close

BUILTIN = ("fold", "simplify", "transpose", "plans", "cse", "dce", "fuse")


@pytest.fixture(autouse=True)
def _registry_left_clean():
    """Each test leaves the registry as it found it (the built-in passes and rules)."""
    rules = graph.rewrite_rules()
    yield
    assert graph.PASSES == BUILTIN and graph.registered_passes() == BUILTIN
    assert graph.rewrite_rules() == rules


@contextlib.contextmanager
def registered(name, fn, **where):
    graph.register_pass(name, fn, **where)
    try:
        yield
    finally:
        graph.unregister_pass(name)


@contextlib.contextmanager
def rule(prim, fn):
    graph.register_rewrite(prim, fn)
    try:
        yield
    finally:
        graph.unregister_rewrite(prim, fn)


def _recorder(log, name):
    """A pass that records its name (and the primitives it saw) and changes nothing."""
    def run(g):
        log.append((name, [n.prim.name for n in g.nodes]))
        return g
    return run


def _graph():
    x = tf.TensorSpec((3, 4), "float64")
    return tf.make_graph(lambda a: tf.sum(tf.exp(a) * 1.0 + tf.sin(a), axis=0), x)


def _prims(prog):
    return [n.prim.name for n in prog.graph.nodes]


# -- the pass registry --------------------------------------------------------------------

def test_builtin_passes():
    assert graph.PASSES == BUILTIN and isinstance(graph.PASSES, tuple)
    assert [name for name, _ in graph.lookup_passes()] == list(BUILTIN)
    assert graph.lookup_passes(("dce", "cse"))[0] == ("dce", graph.passes.dead_code_elimination)


@pytest.mark.parametrize("where, at", [({}, 7), ({"before": "cse"}, 4),
                                       ({"after": "fuse"}, 7), ({"before": "fold"}, 0),
                                       ({"after": "simplify"}, 2)])
def test_registered_pass_runs_where_put(where, at):
    log = []
    with registered("count", _recorder(log, "count"), **where):
        assert graph.PASSES.index("count") == at and len(graph.PASSES) == 8
        from tenferro.graph import PASSES   # the package reads the registry at each use
        assert PASSES == graph.PASSES
        prog = tf.compile(_graph())
        assert prog.passes == graph.PASSES and len(log) == 1
        # it sees the graph the passes before it left: fused after "fuse", not before
        assert ("fused_elementwise" in log[0][1]) == (at == 7)
    assert "count" not in graph.PASSES


def test_registered_pass_runs_under_jit_by_default():
    log = []
    with registered("count", _recorder(log, "count"), before="fuse"):
        f = tf.jit(lambda a: tf.exp(a) + 1.0)
        x = np.linspace(0, 1, 6)
        assert_close(f(tf.asarray(x)), np.exp(x) + 1.0)
        assert len(log) == 1
        assert f.lower(tf.asarray(x)).passes == graph.PASSES


def test_explicit_passes_are_obeyed():
    """``passes=`` runs exactly the named passes, in the order given, registered ones
    included (a pass registered with default=False only there)."""
    log = []
    with registered("first", _recorder(log, "first"), before="fold"), \
            registered("extra", _recorder(log, "extra"), default=False):
        assert "extra" not in graph.PASSES and "extra" in graph.registered_passes()
        g = _graph()
        tf.compile(g)
        assert [name for name, _ in log] == ["first"]
        del log[:]
        prog = tf.compile(g, passes=("extra", "simplify", "first"))
        assert prog.passes == ("extra", "simplify", "first")
        assert [name for name, _ in log] == ["extra", "first"]
        assert "multiply" in log[0][1] and "multiply" not in log[1][1]   # x * 1.0 simplified
        del log[:]
        tf.compile(g, passes=())
        assert log == []


def test_replace_keeps_the_place():
    log = []
    with registered("mine", _recorder(log, "old"), before="cse"):
        graph.register_pass("mine", _recorder(log, "new"), replace=True)
        assert graph.PASSES.index("mine") == 4
        tf.compile(_graph(), passes=("mine",))
        assert [name for name, _ in log] == ["new"]
        graph.register_pass("mine", _recorder(log, "new"), replace=True, after="fuse")
        assert graph.PASSES[-1] == "mine"
        graph.register_pass("mine", _recorder(log, "new"), replace=True, default=False)
        assert "mine" not in graph.PASSES


def test_registration_errors_name_the_problem():
    ident = lambda g: g   # noqa: E731
    with pytest.raises(ValueError, match=r"'cse' is already registered.*'fold'"):
        graph.register_pass("cse", ident)
    with pytest.raises(ValueError, match=r"no pass 'csee' to put 'mine' before.*'cse'"):
        graph.register_pass("mine", ident, before="csee")
    with pytest.raises(ValueError, match=r"no pass 'mine' to put 'mine' after"):
        graph.register_pass("mine", ident, after="mine")
    with pytest.raises(ValueError, match="not both"):
        graph.register_pass("mine", ident, before="cse", after="dce")
    with pytest.raises(TypeError, match="a string and a function"):
        graph.register_pass("mine", None)
    with pytest.raises(ValueError, match=r"'fuse' is not a registered pass \(it is built in\)"):
        graph.unregister_pass("fuse")
    with registered("mine", ident):
        with pytest.raises(ValueError, match=r"'nope' is not a registered pass.*\['mine'\]"):
            graph.unregister_pass("nope")
        with pytest.raises(ValueError, match=r"unknown passes \['nope'\].*'mine'"):
            tf.compile(_graph(), passes=("mine", "nope"))


def test_a_failed_registration_changes_nothing():
    with pytest.raises(ValueError):
        graph.register_pass("mine", lambda g: g, before="nope")
    assert graph.registered_passes() == BUILTIN


# -- rewrite rules ------------------------------------------------------------------------

def double_negation(node, inputs, ctx):
    """``-(-x) -> x``: negation flips the sign bit (floats: also of 0, inf and NaN) or
    negates modulo 2**n (integers: ``-INT_MIN`` is ``INT_MIN``), so twice is the
    identity, bit for bit."""
    src = ctx.producer(inputs[0])
    if src is not None and src.prim.name == "negative" and \
            src.inputs[0].dtype == node.outputs[0].dtype:
        return (src.inputs[0],)
    return None


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int32", "int64"])
def test_registered_rule_fires_and_is_exact(dtype):
    f = lambda a: tf.exp(-(-a)) if np.dtype(dtype).kind in "fc" else -(-a) * 3  # noqa: E731
    npf = lambda a: np.exp(-(-a)) if np.dtype(dtype).kind in "fc" else -(-a) * 3  # noqa: E731
    info = np.iinfo(dtype) if np.dtype(dtype).kind == "i" else None
    x = (np.array([info.min, -1, 0, 1, info.max], dtype) if info is not None else
         np.array([-0.0, 0.0, np.nan, -np.inf, 1.5], dtype))
    if np.dtype(dtype).kind == "c":
        x.imag = x.real[::-1].copy()
    g = tf.make_graph(f, tf.TensorSpec(x.shape, dtype))
    unfused = tuple(p for p in graph.PASSES if p != "fuse")
    before = tf.compile(g, passes=unfused)
    assert _prims(before).count("negative") == 2
    with rule("negative", double_negation):
        assert graph.rewrite_rules("negative") == (double_negation,)
        prog = tf.compile(g, passes=unfused)
        assert "negative" not in _prims(prog)
        with np.errstate(all="ignore"):
            want = npf(x)
        got = prog(tf.asarray(x)).numpy()
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got.real), np.signbit(want.real))
        np.testing.assert_array_equal(got, before(tf.asarray(x)).numpy())
    assert "negative" not in graph.rewrite_rules()
    assert "negative" in _prims(tf.compile(g, passes=unfused))


def test_rules_run_in_order_and_compose():
    """The rules of a primitive are tried in registration order (built-in first); a node
    a rule returns goes through its primitive's rules again."""
    seen = []

    def spy(node, inputs, ctx):
        seen.append(tuple(inputs[0].shape))
        return None
    g = tf.make_graph(lambda a: tf.reshape(tf.reshape(a, (12,)), (2, 6)),
                      tf.TensorSpec((3, 4), "float64"))
    with rule("reshape", spy):
        prog = tf.compile(g, passes=("simplify", "dce"))
    # the first reshape: neither applies; the second: the built-in rule composes it (the
    # spy never sees its (12,) input), then both rules see the composed reshape of ``a``
    assert _prims(prog) == ["reshape"] and seen == [(3, 4), (3, 4)]


def test_rule_errors():
    with pytest.raises(TypeError, match="must be callable"):
        graph.register_rewrite("negative", "not a rule")
    with rule("negative", double_negation):
        with pytest.raises(ValueError, match="already a rule of 'negative'"):
            graph.register_rewrite("negative", double_negation)
    with pytest.raises(ValueError, match=r"is not a rule of 'sum' \(its rules: .*sum_of_"):
        graph.unregister_rewrite("sum", double_negation)

    def restless(node, inputs, ctx):   # a rule that always returns a new node
        return graph.Node(node.prim, node.params, inputs, node.outputs)
    g = tf.make_graph(lambda a: -a, tf.TensorSpec((2,), "float64"))
    with rule("negative", restless):
        with pytest.raises(RuntimeError, match="keep rewriting a node.*restless"):
            tf.compile(g)


def inv_matmul_to_solve(node, inputs, ctx):
    """``inv(A) @ B -> solve(A, B)`` for 2-D ``A`` and ``B``: ``inv(A)`` traces to
    ``linalg.solve(A, I)``; one LU solve instead of an inverse and a product (fewer
    flops, smaller error -- but other rounding, so it is no built-in rule)."""
    src = ctx.producer(inputs[0])
    b = inputs[1]
    if src is None or src.prim.name != "linalg.solve" or inputs[0] is not src.outputs[0]:
        return None
    a, eye = src.inputs
    if isinstance(eye, graph.Var) or len(a.shape) != 2 or len(b.shape) != 2 or \
            b.dtype != a.dtype:
        return None
    if not np.array_equal(eye.numpy(), np.eye(a.shape[0])):
        return None
    return graph.Splice(tf.make_graph(lambda a, b: la.solve(a, b, check_finite=False),
                                      tf.TensorSpec(a.shape, a.dtype, ctx.device),
                                      tf.TensorSpec(b.shape, b.dtype, ctx.device)), [a, b])


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_linalg_rule_inv_matmul_to_solve(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 5)) + 5 * np.eye(5)
    b = rng.standard_normal((5, 3))
    if dtype == "complex128":
        a, b = a + 1j * rng.standard_normal((5, 5)), b - 1j * rng.standard_normal((5, 3))
    g = tf.make_graph(lambda a, b: la.inv(a) @ b, tf.TensorSpec(a.shape, dtype),
                      tf.TensorSpec(b.shape, dtype))
    with rule("matmul", inv_matmul_to_solve):
        prog = tf.compile(g)
        assert _prims(prog) == ["linalg.solve"]
        assert prog.graph.nodes[0].inputs[1].shape == (5, 3)
        assert_close(prog(tf.asarray(a), tf.asarray(b)), np.linalg.solve(a, b), rtol=1e-12)
    assert "matmul" in _prims(tf.compile(g))
