"""Compiler passes of traced graphs (issue 6): transpose folding into contractions
("transpose"), one einsum plan per signature ("plans") and plans run on operands of
any strides, broadcast-then-reduce and constant sums ("simplify").  Each pass is
checked on its own (the nodes it leaves) and every compiled program against NumPy and
against the same graph compiled with no passes; the derivatives against the eager
functional transforms (whose rules gradcheck verifies against finite differences)."""
import importlib

import numpy as np
import pytest

import tenferro as tf

from conftest import assert_close, sample, stable_rng

from tenferro._ops.einsum import build_plan, cache as _einsum_cache

_einsum_mod = importlib.import_module("tenferro._ops.einsum")  # (tf._ops.einsum: the function)

DTYPES = ["float64", "complex128"]


def _np(shape, *key, dtype="float64"):
    return sample(stable_rng("passes", *key), shape, dtype)


def _prims(prog):
    return [n.prim.name for n in prog.graph.nodes]


def _check(g, args, want, passes, rtol=1e-12):
    """The program after ``passes`` equals NumPy's ``want`` and the unoptimised program;
    returns it."""
    prog = tf.compile(g, passes=passes)
    got = prog(*args)
    assert_close(got, want, rtol=rtol, atol=rtol)
    assert_close(got, tf.compile(g, passes=())(*args).numpy(), rtol=rtol, atol=rtol)
    return prog


def _specs(args):
    return [tf.TensorSpec(a.shape, a.dtype) for a in args]


# -- transpose folding -------------------------------------------------------------------

# (function, NumPy function, operand shapes, einsum nodes, permute_dims left after
# "transpose" + "dce")
FOLDS = {
    "operand": (lambda a, b: tf.einsum("ij,jk->ik", a.T, b),
                lambda a, b: np.einsum("ij,jk->ik", a.T, b), [(3, 4), (3, 5)], 1, 0),
    "output": (lambda a, b: tf.einsum("ij,jk->ik", a, b).T,
               lambda a, b: (a @ b).T, [(3, 4), (4, 5)], 1, 0),
    "both": (lambda a, b: tf.permute_dims(tf.einsum("ij,kj->ik", a.T, b.T), (1, 0)),
             lambda a, b: (a.T @ b).T, [(4, 3), (4, 5)], 1, 0),
    "batch 3-d": (lambda a, b: tf.permute_dims(
        tf.einsum("bij,bjk->bik", tf.permute_dims(a, (2, 0, 1)), b), (2, 0, 1)),
        lambda a, b: np.einsum("bij,bjk->kbi", np.transpose(a, (2, 0, 1)), b),
        [(3, 4, 2), (2, 4, 5)], 1, 0),
    "diagonal": (lambda a: tf.einsum("ii->i", a.T), lambda a: np.einsum("ii->i", a.T),
                 [(4, 4)], 1, 0),
    "diagonal of a 3-d": (lambda a: tf.einsum("iji->ij", tf.permute_dims(a, (0, 2, 1))),
                          lambda a: np.einsum("iji->ij", np.transpose(a, (0, 2, 1))),
                          [(4, 4, 3)], 1, 0),
    "operand used twice": (lambda a: tf.einsum("ij,ij->j", a.T, a.T),
                           lambda a: np.einsum("ij,ij->j", a.T, a.T), [(3, 4)], 1, 0),
    "transpose and original": (lambda a: tf.einsum("ij,jk->ik", a.T, a),
                               lambda a: a.T @ a, [(3, 4)], 1, 0),
    "chain of transposes": (lambda a, b: tf.einsum("ijk,kl->ijl", tf.permute_dims(
        tf.permute_dims(a, (1, 2, 0)), (0, 2, 1)), b),
        lambda a, b: np.einsum("ijk,kl->ijl", np.transpose(a, (1, 0, 2)), b),
        [(3, 4, 5), (5, 2)], 1, 0),
    "shared transpose": (lambda a, b: (tf.einsum("ij,jk->ik", a.T, b), tf.exp(a.T)),
                         lambda a, b: (a.T @ b, np.exp(a.T)), [(3, 4), (3, 5)], 1, 1),
    "output used twice": (lambda a, b: (lambda e: (e.T, e))(tf.einsum("ij,jk->ik", a, b)),
                          lambda a, b: ((a @ b).T, a @ b), [(3, 4), (4, 5)], 1, 1),
    "three operands in one step": (
        lambda a, b, c: tf.einsum("ij,jk,kl->li", a.T, b, c.T, optimize=[(0, 1, 2)]),
        lambda a, b, c: (a.T @ b @ c.T).T, [(3, 4), (3, 5), (2, 5)], 1, 0),
    "negated transpose": (lambda a, b: tf.einsum("ij,jk->ik", -tf.conj(a.T), b),
                          lambda a, b: -np.conj(a.T) @ b, [(3, 4), (3, 5)], 1, 0),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(FOLDS))
def test_transpose_folding(name, dtype):
    fn, np_fn, shapes, n_einsum, n_permute = FOLDS[name]
    xs = [_np(s, name, i, dtype=dtype) for i, s in enumerate(shapes)]
    g = tf.make_graph(fn, *_specs(xs))
    assert "permute_dims" in [n.prim.name for n in g.nodes]
    want = np_fn(*xs)
    want = want if isinstance(want, tuple) else (want,)
    for passes in (("transpose",), ("transpose", "dce"), tf.graph.PASSES):
        prog = tf.compile(g, passes=passes)
        got = prog(*xs)
        got = got if isinstance(got, tuple) else (got,)
        unopt = tf.compile(g, passes=())(*xs)
        unopt = unopt if isinstance(unopt, tuple) else (unopt,)
        for t, w, u in zip(got, want, unopt):
            assert_close(t, w, rtol=1e-12, atol=1e-12)
            assert_close(t, u.numpy(), rtol=1e-12, atol=1e-12)
    prims = _prims(tf.compile(g, passes=("transpose", "dce")))
    assert prims.count("einsum") == n_einsum
    assert prims.count("permute_dims") == n_permute
    # switched off: the transposes stay
    assert _prims(tf.compile(g, passes=("dce",))).count("permute_dims") >= 1


def test_transpose_folding_does_not_modify_its_input():
    g = tf.make_graph(lambda a, b: tf.einsum("ij,jk->ik", a.T, b).T, tf.TensorSpec((3, 4)),
                 tf.TensorSpec((3, 5)))
    before = [(n.prim.name, dict(n.params), list(n.inputs), list(n.outputs)) for n in g.nodes]
    tf.compile(g, passes=("transpose", "dce"))
    assert [(n.prim.name, dict(n.params), list(n.inputs), list(n.outputs))
            for n in g.nodes] == before


def test_transpose_folding_rebuilds_the_plan():
    g = tf.make_graph(lambda a, b: tf.einsum("ij,jk->ik", a.T, b), tf.TensorSpec((3, 4)),
                 tf.TensorSpec((3, 5)))
    (e,) = [n for n in tf.compile(g, passes=("transpose", "dce")).graph.nodes]
    assert e.params["ins"] == ((0, 1), (0, 2)) and e.params["out"] == (1, 2)
    plan = e.params["plan"]
    assert plan.params["ins"] == e.params["ins"] and plan.shape == (4, 5)
    old = [n for n in g.nodes if n.prim.name == "einsum"][0].params["plan"]
    assert plan is not old


def test_matmul_keeps_its_transposed_operand():
    # the CPU matmul kernel folds a transposed (strided) operand into BLAS's flags
    a, b = _np((3, 4), "mm", 0), _np((3, 5), "mm", 1)
    g = tf.make_graph(lambda a, b: a.T @ b, a, b)
    prog = _check(g, [a, b], a.T @ b, tf.graph.PASSES)
    assert _prims(prog) == ["permute_dims", "matmul"]


# (function, operand shapes): gradients of einsums of transposed operands
GRADS = {
    "matrix": (lambda a, b: tf.sum(tf.abs(tf.einsum("ij,jk->ik", a.T, b)) ** 2),
               [(3, 4), (3, 5)]),
    "batch, output transposed": (lambda a, b: tf.sum(tf.abs(tf.permute_dims(
        tf.einsum("bij,bkj->bik", a, tf.permute_dims(b, (0, 2, 1))), (2, 1, 0))) ** 2),
        [(2, 3, 4), (2, 4, 5)]),
    "diagonal": (lambda a, b: tf.sum(tf.abs(tf.einsum("ii,ij->j", a.T, b)) ** 2),
                 [(4, 4), (4, 3)]),
    "operand used twice": (lambda a, b: tf.sum(tf.abs(tf.einsum("ij,ik,jk->", a.T, a.T,
                                                                  b)) ** 2),
                           [(3, 4), (3, 3)]),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(GRADS))
def test_transpose_folding_in_gradients(name, dtype):
    fn, shapes = GRADS[name]
    args = [tf.asarray(_np(s, name, "g", i, dtype=dtype)) for i, s in enumerate(shapes)]
    g = tf.make_graph(fn, *args)
    for i in range(len(args)):
        gi = g.grad(i)
        want = tf.grad(fn, argnums=i)(*args).numpy()
        for passes in (("transpose",), ("transpose", "dce"), tf.graph.PASSES):
            assert_close(tf.compile(gi, passes=passes)(*args), want, rtol=1e-11, atol=1e-11)
        folded = tf.compile(gi, passes=("transpose", "dce"))
        assert (_prims(folded).count("permute_dims")
                < _prims(tf.compile(gi, passes=("dce",))).count("permute_dims"))


# -- einsum plans ------------------------------------------------------------------------

def _strided(x, how):
    """Views of traced ``x`` whose strides differ from the C-order ones its einsum
    plan was built for."""
    if how == "transposed":   # the caller passes a transposed view already
        return x
    if how == "reversed":
        return x[::-1, ::-1]
    if how == "every other":
        return x[::2, 1::2]
    if how == "broadcast":
        return tf.broadcast_to(x[:, :1], x.shape)
    raise AssertionError(how)


def _np_strided(x, how):
    return {"transposed": lambda: x, "reversed": lambda: x[::-1, ::-1],
            "every other": lambda: x[::2, 1::2],
            "broadcast": lambda: np.broadcast_to(x[:, :1], x.shape)}[how]()


@pytest.mark.parametrize("dtype", DTYPES + ["int64"])
@pytest.mark.parametrize("how", ["transposed", "reversed", "every other", "broadcast"])
@pytest.mark.parametrize("spec", ["ij,jk->ik", "ij,kj->ki", "ij,ij->j", "ii->i"])
def test_plans_run_on_operands_of_other_strides(spec, how, dtype):
    # Plans are built at trace time for C-order operands; in the executor an operand
    # may be a view (here: with no passes, so every view stays) with other strides.
    n = 6 if how == "every other" else 3
    a = _np((n, n), spec, how, 0, dtype=dtype)
    b = _np((n, n), spec, how, 1, dtype=dtype)
    if spec == "ii->i":
        fn = lambda a, b: tf.einsum(spec, _strided(a.T, how))          # noqa: E731
        want = np.einsum(spec, _np_strided(a.T, how))
    else:
        fn = lambda a, b: tf.einsum(spec, _strided(a.T, how), _strided(b, how))  # noqa
        want = np.einsum(spec, _np_strided(a.T, how), _np_strided(b, how))
    g = tf.make_graph(fn, a, b)
    got = tf.compile(g, passes=())(a, b)
    assert_close(got, want, rtol=1e-12, atol=1e-12)
    assert_close(tf.compile(g)(a, b), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("how", ["transposed", "reversed", "every other", "broadcast"])
def test_a_plan_runs_on_any_strides(how):
    # the plan object itself, on raw arrays: planned for C order, run on views (and
    # planned for F order, run on C-order arrays)
    from tenferro.devices import device
    driver = device("cpu").driver
    cases = [("ijk,kjl->il", [(4, 5, 6), (6, 5, 3)]), ("abc,cd,db->a", [(3, 4, 5), (5, 6),
                                                                          (6, 4)]),
             ("abcd,cdef->abef", [(6, 7, 8, 9), (8, 9, 5, 4)])]
    rng = stable_rng("plan strides", how)
    for spec, shapes in cases:
        for order in ("C", "F"):
            planned = [np.empty(s, order=order) for s in shapes]
            plan = build_plan(spec, tuple(shapes), tuple(x.strides for x in planned),
                              "auto", driver, np.dtype("float64"))
            xs = []
            for s in shapes:
                if how == "transposed":
                    x = rng.standard_normal(s[::-1]).T
                elif how == "reversed":
                    x = rng.standard_normal(s)[(slice(None, None, -1),) * len(s)]
                elif how == "every other":
                    x = rng.standard_normal(tuple(2 * d for d in s))[(slice(None, None, 2),)
                                                                       * len(s)]
                else:
                    x = np.broadcast_to(rng.standard_normal(s[:-1] + (1,)), s)
                xs.append(x)
            np.testing.assert_allclose(plan.run(list(xs)), np.einsum(spec, *xs),
                                       rtol=1e-12, atol=1e-12)


def _einsum_plans(prog):
    return [n.params["plan"] for n in prog.graph.nodes if n.prim.name == "einsum"]


def test_identical_einsums_share_one_plan():
    # same contraction written with other letters and another path option, on
    # different operands: one plan object after "plans"
    def f(a, b, c, d):
        return (tf.einsum("ij,jk->ik", a, b, optimize="greedy")
                + tf.einsum("xy,yz->xz", c, d, optimize="optimal"))
    xs = [_np((3, 4), "share", 0), _np((4, 5), "share", 1), _np((3, 4), "share", 2),
          _np((4, 5), "share", 3)]
    g = tf.make_graph(f, *xs)
    p0, p1 = _einsum_plans(tf.compile(g, passes=()))
    assert p0 is not p1
    prog = _check(g, xs, xs[0] @ xs[1] + xs[2] @ xs[3], ("plans",))
    q0, q1 = _einsum_plans(prog)
    assert q0 is q1
    # and with the same operands, cse then merges the two nodes
    g2 = tf.make_graph(lambda a, b: f(a, b, a, b), xs[0], xs[1])
    assert len(_einsum_plans(tf.compile(g2, passes=("cse",)))) == 2
    prog = _check(g2, xs[:2], 2 * (xs[0] @ xs[1]), ("plans", "cse", "dce"))
    assert len(_einsum_plans(prog)) == 1


def test_folded_einsums_share_one_plan():
    # two contractions that differ only in their transposed operand and output: after
    # folding, one signature
    def f(a, b, c, d):
        return tf.einsum("ij,jk->ik", a.T, b).T, tf.einsum("ij,jk->ki", c.T, d)
    xs = [_np((3, 4), "fshare", i) for i in range(2)] + \
        [_np((3, 4), "fshare", i) for i in range(2, 4)]
    xs[1] = _np((3, 5), "fshare", 1)
    xs[3] = _np((3, 5), "fshare", 3)
    g = tf.make_graph(f, *xs)
    prog = tf.compile(g, passes=("transpose", "dce"))
    p0, p1 = _einsum_plans(prog)
    assert p0 is p1
    r0, r1 = prog(*xs)
    assert_close(r0, (xs[0].T @ xs[1]).T, rtol=1e-12, atol=1e-12)
    assert_close(r1, (xs[2].T @ xs[3]).T, rtol=1e-12, atol=1e-12)


def test_running_a_program_computes_no_contraction_path(monkeypatch):
    import opt_einsum
    a, b, c = _np((3, 4), "nopath", 0), _np((4, 5), "nopath", 1), _np((5, 3), "nopath", 2)
    fn = lambda a, b, c: tf.einsum("ij,jk,kl->il", a.T.T, b, c).T  # noqa: E731
    g = tf.make_graph(fn, a, b, c)
    gg = tf.make_graph(lambda a, b, c: tf.sum(tf.abs(fn(a, b, c)) ** 2), a, b, c).grad(1)
    progs = [tf.compile(g), tf.compile(g, passes=()), tf.compile(gg)]
    calls = []
    real = opt_einsum.contract_path
    monkeypatch.setattr(opt_einsum, "contract_path",
                        lambda *a, **k: calls.append(a) or real(*a, **k))
    plans = []
    planned_at_run = lambda *a, **k: plans.append(a) or pytest.fail("planned at run")  # noqa
    # the plan builder where the einsum cache and the compiler's passes look it up
    monkeypatch.setattr(_einsum_cache, "build_plan", planned_at_run)
    monkeypatch.setattr(_einsum_mod, "build_plan", planned_at_run)
    before = tf.einsum_cache_info()
    for _ in range(2):
        r = progs[0](a, b, c)
        r_unopt = progs[1](a, b, c)
        r_grad = progs[2](a, b, c)
    assert calls == [] and plans == []
    after = tf.einsum_cache_info()
    assert (after.hits, after.misses) == (before.hits, before.misses)
    monkeypatch.undo()
    assert_close(r, (a @ b @ c).T, rtol=1e-12, atol=1e-12)
    assert_close(r_unopt, (a @ b @ c).T, rtol=1e-12, atol=1e-12)
    want = tf.grad(lambda a, b, c: tf.sum(tf.abs(fn(a, b, c)) ** 2), argnums=1)(
        tf.asarray(a), tf.asarray(b), tf.asarray(c))
    assert_close(r_grad, want.numpy(), rtol=1e-12, atol=1e-12)


# -- broadcast-then-reduce and constant sums ("simplify") ---------------------------------

# (x shape, broadcast shape, summed axes)
BCAST_SUMS = {
    "broadcast axes only": ((5, 1), (5, 3), (1,)),
    "own axes only": ((5, 1), (5, 3), (0,)),
    "both": ((5, 1), (2, 5, 3), (0, 2)),
    "own and broadcast": ((4, 5, 1), (2, 4, 5, 3), (0, 2, 3)),
    "leading axes kept": ((5, 3), (4, 2, 5, 3), (1, 3)),
    "everything": ((1, 3), (4, 2, 3), (0, 1, 2)),
    "size-1 axis summed": ((3,), (1, 3), (0,)),
}


@pytest.mark.parametrize("dtype", DTYPES + ["float32", "int32", "bool"])
@pytest.mark.parametrize("name", list(BCAST_SUMS))
def test_sum_of_broadcast(name, dtype):
    xshape, shape, axes = BCAST_SUMS[name]
    x = _np(xshape, name, dtype=dtype)
    g = tf.make_graph(lambda x: tf.sum(tf.broadcast_to(x, shape), axis=axes), x)
    want = np.sum(np.broadcast_to(x, shape), axis=axes)
    tol = 1e-5 if dtype == "float32" else 1e-12
    prog = _check(g, [x], want, ("simplify", "dce"), rtol=tol)
    for n in prog.graph.nodes:   # no reduction over the copies: a sum reads x itself
        if n.prim.name == "sum":
            assert n.inputs[0].shape == x.shape
    assert _prims(tf.compile(g, passes=("dce",))) == ["broadcast_to", "sum"]
    assert prog.graph.outputs[0].dtype == g.outputs[0].dtype


def test_sum_of_broadcast_of_empty_is_kept():
    x = np.full((3, 1), np.inf)
    g = tf.make_graph(lambda x: tf.sum(tf.broadcast_to(x, (3, 0)), axis=1), x)
    prog = _check(g, [x], np.zeros(3), ("simplify", "dce"))
    assert "sum" in _prims(prog)


def test_sum_of_broadcast_in_a_vjp():
    # AD's cotangent of a sum is a broadcast, summed again by the vjp of broadcast_to
    x = _np((5, 1), "vjp", 0)
    ct = _np((5,), "vjp", 1)
    g = tf.make_graph(lambda x: tf.sum(tf.broadcast_to(x, (5, 3)), axis=1), x).vjp()
    (want,) = tf.vjp(lambda x: tf.sum(tf.broadcast_to(x, (5, 3)), axis=1), tf.asarray(x))[1](
        tf.asarray(ct))
    prog = tf.compile(g)
    (got,) = prog(x, ct)
    assert_close(got, want.numpy(), rtol=1e-13, atol=1e-13)
    assert_close(got, 3 * ct[:, None], rtol=1e-13, atol=1e-13)
    assert "sum" not in _prims(prog) and "broadcast_to" not in _prims(prog)


@pytest.mark.parametrize("dtype", DTYPES + ["int64", "bool"])
def test_sum_of_an_all_equal_constant(dtype):
    # Tracing runs ops on constants eagerly, so such a sum only appears once a pass
    # has put a constant in its place; here it is built by hand.
    from tenferro._ops.reduction import sum_p
    from tenferro.graph import Graph, Node, Var
    out_dtype = "int64" if dtype == "bool" else dtype
    x = Var((4,), out_dtype)
    for c, want_nodes in ((np.full((3, 4), 2, dtype=dtype), ["multiply"]),
                          (np.broadcast_to(np.asarray(2, dtype=dtype), (3, 4)), ["multiply"]),
                          (np.arange(12).reshape(3, 4).astype(dtype), ["sum", "multiply"])):
        s = Var((4,), out_dtype)
        y = Var((4,), out_dtype)
        mul = tf.make_graph(lambda a, b: a * b, tf.TensorSpec((4,), out_dtype),
                       tf.TensorSpec((4,), out_dtype)).nodes[0]
        g = Graph([tf.TensorSpec((4,), out_dtype)], [x],
                  [Node(sum_p, {"axes": (0,), "out_dtype": np.dtype(out_dtype)},
                        [tf.asarray(c)], [s]),
                   Node(mul.prim, mul.params, [x, s], [y])], [y],
                  tf.autograd.tree_flatten(0)[1])
        xv = _np((4,), "const", dtype=out_dtype)
        prog = _check(g, [xv], xv * np.sum(c, axis=0), ("simplify", "dce"))
        assert _prims(prog) == want_nodes


def test_reshape_of_reshape():
    x = _np((2, 6), "reshape", 0)
    g = tf.make_graph(lambda x: (tf.reshape(tf.reshape(x, (3, 4)), (4, 3)),
                            tf.reshape(tf.reshape(x, (12,)), (2, 6)) + 1), x)
    prog = tf.compile(g, passes=("simplify", "dce"))
    r0, r1 = prog(x)
    assert_close(r0, x.reshape(4, 3))
    assert_close(r1, x + 1)
    assert _prims(prog) == ["reshape", "add"]


# -- the whole pipeline ------------------------------------------------------------------

def mps_chain(a, b, c, w):
    """A tensor-network-like chain: an MPS-like contraction with transposed cores and
    an MPO-like weight, then its squared norm."""
    t = tf.einsum("ijk,klm->ijlm", tf.permute_dims(a, (2, 1, 0)), b)
    t = tf.einsum("ijlm,mn->ijln", t, c.T)
    t = tf.einsum("ijln,jl->in", t, w)
    return tf.sum(tf.abs(t) ** 2)


def _np_mps(a, b, c, w):
    t = np.einsum("ijk,klm,nm,jl->in", np.transpose(a, (2, 1, 0)), b, c, w)
    return np.sum(np.abs(t) ** 2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pipeline_on_a_contraction_chain(dtype):
    shapes = [(5, 3, 4), (5, 2, 6), (3, 6), (3, 2)]
    xs = [_np(s, "mps", i, dtype=dtype) for i, s in enumerate(shapes)]
    g = tf.make_graph(mps_chain, *xs)
    prog = _check(g, xs, _np_mps(*xs), tf.graph.PASSES)
    assert "permute_dims" not in _prims(prog)
    ts = [tf.asarray(x) for x in xs]
    for i in range(len(xs)):
        gi = g.grad(i)
        full = tf.compile(gi)
        want = tf.grad(mps_chain, argnums=i)(*ts).numpy()
        assert_close(full(*xs), want, rtol=1e-11, atol=1e-11)
        assert_close(full(*xs), tf.compile(gi, passes=())(*xs).numpy(), rtol=1e-11,
                     atol=1e-11)
        assert len(full.graph.nodes) < len(tf.compile(gi, passes=()).graph.nodes)
        assert (_prims(full).count("permute_dims")
                < _prims(tf.compile(gi, passes=("fold", "simplify", "cse", "dce")))
                .count("permute_dims"))


def test_pipeline_gradient_against_finite_differences():
    xs = [_np(s, "fd", i) for i, s in enumerate([(5, 3, 4), (5, 2, 6), (3, 6), (3, 2)])]
    g = tf.make_graph(mps_chain, *xs)
    f = tf.compile(g)
    grad = tf.compile(g.grad(2))(*xs).numpy()
    d = _np(xs[2].shape, "fd", "dir")
    h = 1e-6
    plus = [x.copy() for x in xs]
    minus = [x.copy() for x in xs]
    plus[2] += h * d
    minus[2] -= h * d
    fd = (f(*plus).numpy() - f(*minus).numpy()) / (2 * h)
    np.testing.assert_allclose(np.sum(grad * d), fd, rtol=1e-7)


def test_unknown_pass_is_named():
    g = tf.make_graph(lambda a: a.T, tf.TensorSpec((2, 3)))
    with pytest.raises(ValueError, match=r"unknown passes \['transposes'\].*'transpose'"):
        tf.compile(g, passes=("transposes",))


def test_conj_of_a_real_value_is_dropped():
    x = tf.asarray(np.arange(6.0).reshape(2, 3))
    g = tf.make_graph(lambda x: tf.conj(x) * 2.0 + tf.conj(x * 1j).real, x)
    p = tf.compile(g, ("simplify", "dce"))
    names = [n.prim.name for n in p.graph.nodes]
    assert names.count("conj") == 1           # the complex one stays
    xn = x.numpy()
    assert_close(p(x), np.conj(xn) * 2.0 + np.conj(xn * 1j).real, rtol=0, atol=0)
