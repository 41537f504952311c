"""tenferro.dask.einsum: sliced contractions on Dask against the local tenferro.einsum,
their gradients (against the local ones and finite differences), and one run on a real
dask.distributed.LocalCluster with two worker processes."""
import os

import numpy as np
import pytest

pytest.importorskip("dask")

import tenferro as tf  # noqa: E402
import tenferro.dask as td  # noqa: E402
from tenferro.dask import _plan, _run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _rand(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return tf.asarray(x.astype(dtype))


def network(dtype="float64", bond=3, seed=0):
    """A random 3-regular network of 8 tensors (a ring with chords, bond dimension
    ``bond``), with open legs x, y on tensors 0 and 1: (subscripts, operands)."""
    edges = [(i, (i + 1) % 8) for i in range(8)] + [(i, i + 4) for i in range(4)]
    letters = iter("abcdefghijklmnopqrstuvw")
    legs = [[] for _ in range(8)]
    for i, j in edges:
        l = next(letters)
        legs[i].append(l)
        legs[j].append(l)
    legs[0].append("x")
    legs[1].append("y")
    rng = np.random.default_rng(seed)
    ops = [_rand(rng, tuple(2 if l in "xy" else bond for l in t), dtype) for t in legs]
    return ",".join("".join(t) for t in legs) + "->xy", ops


def _close(got, want, rtol=1e-10):
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=1e-12)


SMALL = "ij,jk,ki->ik"


def _small(dtype="float64"):
    rng = np.random.default_rng(1)
    return [_rand(rng, s, dtype) for s in ((3, 4), (4, 5), (5, 3))]


@pytest.mark.parametrize("slices", [None, "j", ["i"], "ik", "jk", "ijk"])
def test_small_slices_summed_and_placed(slices):
    ops = _small()
    _close(td.einsum(SMALL, *ops, slices=slices), tf.einsum(SMALL, *ops))


def test_scalar_output_and_single_operand():
    ops = _small()
    _close(td.einsum("ij,jk,ki->", *ops, slices="jk"), tf.einsum("ij,jk,ki->", *ops))
    _close(td.einsum("ij->j", ops[0], slices="ij"), tf.einsum("ij->j", ops[0]))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eight_tensor_network(dtype):
    spec, ops = network(dtype)
    want = tf.einsum(spec, *ops)
    _close(td.einsum(spec, *ops, slices="abx"), want)
    _close(td.einsum(spec, *ops, target_size=20), want)
    _close(td.einsum(spec, *ops, optimize="dp"), want)


def test_target_size_bounds_the_largest_intermediate():
    spec, ops = network(bond=4)
    shapes = [t.shape for t in ops]
    parsed, path, sliced = _plan.plan(spec, shapes, None, "greedy", None)
    assert sliced == ()
    full, flops = parsed.net.cost(path)
    parsed, path, sliced = _plan.plan(spec, shapes, None, "greedy", full // 8)
    net = parsed.net
    assert sliced and net.cost(path, sliced)[0] <= full // 8
    assert net.cost(path, sliced)[1] * net.n_slices(sliced) >= flops  # overhead >= 0
    # fits already: nothing sliced
    assert _plan.plan(spec, shapes, None, "greedy", full)[2] == ()


@pytest.mark.parametrize("tasks", [1, 2, 3, 7, 64, 1000])
@pytest.mark.parametrize("slices", ["ab", "abx", "xy", "axy", "c"])
def test_tasks_change_nothing_bit_for_bit(slices, tasks):
    """Runs of slices are aligned powers of two summed by the same pairwise tree: one
    task per slice (tasks=1000) and fewer tasks give the same bits."""
    spec, ops = network("complex128", bond=4)
    one_per_slice = td.einsum(spec, *ops, slices=slices, tasks=1000)
    got = td.einsum(spec, *ops, slices=slices, tasks=tasks)
    np.testing.assert_array_equal(got.numpy(), one_per_slice.numpy())
    _close(got, tf.einsum(spec, *ops))


def test_graph_of_tuples_where_dask_predates_task_specs(monkeypatch):
    """Before Dask 2024.12 (no dask._task_spec) the graph is made of Dask's tuples."""
    monkeypatch.setattr(_run, "_task_spec", _run._tuples)
    spec, ops = network("complex128", bond=3)
    _close(td.einsum(spec, *ops, slices="abx", tasks=5), tf.einsum(spec, *ops))
    loss = lambda c: lambda *o: tf.sum(tf.abs(c(spec, *o)) ** 2)  # noqa: E731
    got = tf.grad(loss(lambda s, *o: td.einsum(s, *o, slices="ax")), argnums=(0, 1))(*ops)
    for g, w in zip(got, tf.grad(loss(tf.einsum), argnums=(0, 1))(*ops)):
        _close(g, w)


def test_runs_of_slices():
    # fewer output values than tasks: aligned power-of-two runs of one value's slices
    assert _run.runs(2, 10, 8) == [[((0, 1), (0, 4)), ((0, 1), (4, 8)), ((0, 1), (8, 10))],
                                   [((1, 2), (0, 4)), ((1, 2), (4, 8)), ((1, 2), (8, 10))]]
    # as many output values as tasks or more: runs of whole values
    assert _run.runs(5, 3, 2) == [[((0, 3), (0, 3))], [((3, 5), (0, 3))]]
    assert _run.runs(1, 7, 1) == [[((0, 1), (0, 7))]]
    for n_keys, n_vals, tasks in [(1, 196, 8), (3, 50, 16), (7, 1, 3), (1, 1, 5)]:
        runs = [r for block in _run.runs(n_keys, n_vals, tasks) for r in block]
        assert len(runs) <= tasks
        covered = [(k, v) for (k0, k1), (v0, v1) in runs
                   for k in range(k0, k1) for v in range(v0, v1)]
        assert sorted(covered) == [(k, v) for k in range(n_keys) for v in range(n_vals)]


def test_tree_sum_is_the_level_by_level_tree():
    def levels(items):
        while len(items) > 1:
            items = ["(%s+%s)" % p for p in zip(items[::2], items[1::2])] + \
                ([items[-1]] if len(items) % 2 else [])
        return items[0]

    for n in range(1, 40):
        items = [str(i) for i in range(n)]
        assert _run.tree_sum(iter(items), lambda a, b: "(%s+%s)" % (a, b)) == levels(items)


# subscripts beyond a plain network: diagonals, labels summed inside one operand,
# ellipsis, size-1 broadcasting, repeated output labels, 0-d operands
SUBSCRIPTS = [
    ("ii->i", [(3, 3)], "i"),
    ("ii", [(3, 3)], None),
    ("iij,jk->ik", [(3, 3, 4), (4, 5)], "ij"),
    ("ijk,jl->il", [(2, 3, 4), (3, 5)], "jk"),      # k summed inside operand 0
    ("ij->", [(3, 4)], "ij"),
    ("ij,jk->ik", [(3, 1), (4, 5)], "jk"),           # j broadcast, then summed alone
    ("ij,jk->ik", [(3, 4), (1, 5)], "k"),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)], "ij"),
    ("i...,i...->...", [(3, 2, 4), (3, 1, 4)], "i"),
    ("i,j->iij", [(3,), (4,)], "j"),                 # output diagonal
    ("ab,bc,ca,ab->aab", [(2, 3), (3, 4), (4, 2), (2, 3)], "bc"),
    (",ij,jk->ik", [(), (3, 4), (4, 5)], "j"),
    ("i,i,i->", [(4,), (4,), (4,)], "i"),
]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("spec, shapes, slices", SUBSCRIPTS)
def test_subscripts_like_local_einsum(spec, shapes, slices, dtype):
    rng = np.random.default_rng(7)
    ops = [_rand(rng, s, dtype) for s in shapes]
    want = tf.einsum(spec, *ops)
    _close(td.einsum(spec, *ops, slices=slices, tasks=3), want)
    _close(td.einsum(spec, *ops), want)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("spec, shapes, slices", SUBSCRIPTS)
def test_subscripts_gradient_like_local(spec, shapes, slices, dtype):
    rng = np.random.default_rng(8)
    ops = [_rand(rng, s, dtype) for s in shapes]
    argnums = tuple(range(len(ops)))

    def loss(c):
        return lambda *o: tf.sum(tf.abs(c(spec, *o)) ** 2)

    got = tf.grad(loss(lambda s, *o: td.einsum(s, *o, slices=slices)),
                  argnums=argnums)(*ops)
    want = tf.grad(loss(tf.einsum), argnums=argnums)(*ops)
    for g, w in zip(got, want):
        _close(g, w)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("spec, shapes, slices", [SUBSCRIPTS[i] for i in (2, 3, 5, 7, 9)])
def test_subscripts_finite_differences(spec, shapes, slices, dtype):
    rng = np.random.default_rng(9)
    ops = [_rand(rng, s, dtype) for s in shapes]
    assert tf.autograd.gradcheck(lambda *a: td.einsum(spec, *a, slices=slices), ops,
                                 modes=("jvp", "vjp"))


def test_slicing_an_index_summed_inside_its_operand_is_a_no_op():
    a, b = _small()[:2]
    spec = "ij,jk->i"                                 # k: operand 1's alone
    _close(td.einsum(spec, a, b, slices="k"), tf.einsum(spec, a, b))
    assert _plan.plan(spec, [a.shape, b.shape], "jk", "greedy", None)[2] == (ord("j"),)


def test_size_zero_index():
    a, b = tf.ones((3, 0)), tf.ones((0, 4))
    _close(td.einsum("ij,jk->ik", a, b, slices="j"), tf.zeros((3, 4)))
    _close(td.einsum("ij,jk->ij", a, b, slices="ij"), tf.zeros((3, 0)))


def test_explicit_path_and_interleaved_labels_kept():
    ops = _small()
    _close(td.einsum(SMALL, *ops, slices="k", optimize=[(1, 2), (0, 1)]),
           tf.einsum(SMALL, *ops))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradient_matches_local(dtype):
    spec, ops = network(dtype, bond=2)

    def loss(c, *ops):
        return tf.sum(tf.abs(c(spec, *ops)) ** 2)

    argnums = tuple(range(8))
    got = tf.grad(lambda *o: loss(lambda s, *a: td.einsum(s, *a, slices="abx"), *o),
                  argnums=argnums)(*ops)
    want = tf.grad(lambda *o: loss(tf.einsum, *o), argnums=argnums)(*ops)
    for g, w in zip(got, want):
        _close(g, w)


def test_jvp_is_one_pass_and_independent_of_tasks(monkeypatch):
    """tf.jvp with a tangent for every operand: one distributed pass (dask.einsum_jvp)
    after the forward, its bits independent of tasks=, equal to the local jvp; and
    reverse mode through it (dask.einsum_jvp's VJP) equal to the local one."""
    spec, ops = network("complex128", bond=3)
    tans = network("complex128", bond=3, seed=1)[1]
    calls = []
    contract = _run.contract
    monkeypatch.setattr(_run, "contract",
                        lambda *a, **k: calls.append(k.get("has")) or contract(*a, **k))

    def jvp(tasks):
        return tf.jvp(lambda *o: td.einsum(spec, *o, slices="abx", tasks=tasks), ops,
                      tans)[1]
    one_per_slice = jvp(1000)
    assert calls == [None, (True,) * 8]
    for tasks in (1, 3):
        np.testing.assert_array_equal(jvp(tasks).numpy(), one_per_slice.numpy())
    _close(one_per_slice, tf.jvp(lambda *o: tf.einsum(spec, *o), ops, tans)[1])

    def through(c):
        return lambda *o: tf.sum(tf.abs(tf.jvp(lambda *x: c(spec, *x), o, tans)[1]) ** 2)
    dist = lambda s, *o: td.einsum(s, *o, slices="ax")  # noqa: E731
    for g, w in zip(tf.grad(through(dist), argnums=(0, 5))(*ops),
                    tf.grad(through(tf.einsum), argnums=(0, 5))(*ops)):
        _close(g, w, rtol=1e-9)


def test_jvp_matches_local():
    ops = _small("complex128")
    tans = _small("complex128")[::-1]
    tans = [tf.reshape(t, o.shape) if t.size == o.size else tf.ones_like(o)
            for t, o in zip(tans, ops)]
    got = tf.jvp(lambda *a: td.einsum(SMALL, *a, slices="jk"), ops, tans)
    want = tf.jvp(lambda *a: tf.einsum(SMALL, *a), ops, tans)
    for g, w in zip(got, want):
        _close(g, w)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_finite_differences(dtype):
    ops = _small(dtype)
    assert tf.autograd.gradcheck(lambda *a: td.einsum("ij,jk,ki->i", *a, slices="ik"),
                                 ops, modes=("jvp", "vjp", "eager"), order=2)


def test_backward_on_the_tape():
    ops = [t.detach() for t in _small()]
    for t in ops:
        t.requires_grad = True
    tf.sum(td.einsum(SMALL, *ops, slices="j")).backward()
    want = tf.grad(lambda *a: tf.sum(tf.einsum(SMALL, *a)), argnums=(0, 1, 2))(*_small())
    for t, w in zip(ops, want):
        _close(t.grad, w)


def test_jit_and_vmap():
    ops = _small()
    _close(tf.jit(lambda *a: td.einsum(SMALL, *a, slices="j"))(*ops), tf.einsum(SMALL, *ops))
    batch = tf.stack([ops[0], 2 * ops[0]])
    got = tf.vmap(lambda a: td.einsum(SMALL, a, *ops[1:], slices="j"))(batch)
    _close(got, tf.stack([tf.einsum(SMALL, a, *ops[1:]) for a in (ops[0], 2 * ops[0])]))
    # the joint VJP (dask.einsum_vjp) under jit and vmap
    f = lambda *a: tf.sum(td.einsum(SMALL, *a, slices="j") ** 2)  # noqa: E731
    local = lambda *a: tf.sum(tf.einsum(SMALL, *a) ** 2)  # noqa: E731
    for g, w in zip(tf.jit(tf.grad(f, argnums=(0, 2)))(*ops),
                    tf.grad(local, argnums=(0, 2))(*ops)):
        _close(g, w)
    got = tf.vmap(lambda a: tf.grad(f, argnums=(0, 1))(a, *ops[1:]))(batch)
    for i, a in enumerate((ops[0], 2 * ops[0])):
        for g, w in zip(got, tf.grad(local, argnums=(0, 1))(a, *ops[1:])):
            _close(g[i], w)


def test_mixed_dtypes_promote_and_numpy_operands():
    ops = _small()
    a = ops[0].numpy().astype(np.float32)
    got = td.einsum(SMALL, a, ops[1], ops[2], slices="j")
    _close(got, tf.einsum(SMALL, tf.asarray(a), ops[1], ops[2]))


@pytest.mark.parametrize("args, kwargs, match", [
    (("ij,jk->", (3, 4), (5, 2)), {}, "tenferro.dask.einsum: size mismatch for label 'j'"),
    (("ij,jk", (3, 4), (4, 2), (2,)), {}, "tenferro.dask.einsum: subscripts"),
    (("ij,jk->ik", (3, 4), (4, 2)), {"slices": "q"}, "tenferro.dask.einsum: cannot slice "
                                                     "index 'q'"),
    (("ii->i", (3, 4)), {}, "tenferro.dask.einsum: dimensions in operand 0 for "
                            "collapsing label 'i' don't match"),
    (("...ij->ij", (2, 3, 4)), {}, "tenferro.dask.einsum: the operands have dimensions "
                                   "covered by '...'"),
    (("ij,jk->iq", (3, 4), (4, 2)), {}, "tenferro.dask.einsum: output label 'q'"),
    (("ij,jk->ik", (3, 4), (4, 2)), {"tasks": 0}, "tasks must be a positive int"),
    (("ij,jk->ik", (3, 4), (4, 2)), {"tasks": 2.0}, "tasks must be a positive int"),
    (("ij,jk->ik", (3, 4), (4, 2)), {"target_size": 0}, "target_size must be a positive"),
    (("i#,j->ij", (3, 4), (4,)), {}, "tenferro.dask.einsum: invalid subscript"),
])
def test_errors_name_the_function(args, kwargs, match):
    spec, *shapes = args
    with pytest.raises(ValueError, match=match):
        td.einsum(spec, *[tf.ones(s) for s in shapes], **kwargs)


def test_subscripts_must_be_a_string():
    with pytest.raises(TypeError, match="tenferro.dask.einsum: subscripts must be a string"):
        td.einsum(tf.ones(3), [0])


def test_local_cluster_two_processes(monkeypatch):
    """The 8-tensor network and its gradient on two worker processes, against local."""
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    spec, ops = network("complex128", bond=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        got = td.einsum(spec, *ops, client=client, slices="abcx")
        _close(got, tf.einsum(spec, *ops))
        argnums = tuple(range(8))
        g = tf.grad(lambda *o: tf.sum(tf.abs(td.einsum(spec, *o, client=client,
                                                       slices="abcx")) ** 2),
                    argnums=argnums)(*ops)
        w = tf.grad(lambda *o: tf.sum(tf.abs(tf.einsum(spec, *o)) ** 2), argnums=argnums)(*ops)
        for a, b in zip(g, w):
            _close(a, b)
        ran = client.run(lambda dask_worker: len(dask_worker.data) >= 0)
        assert len(ran) == 2


def test_device_operand_is_refused_by_name(accel_device):
    """An operand on another device: UnsupportedOperation naming the function, the
    operand and its device (no silent transfer to the CPU)."""
    a = tf.ones((2, 3))
    b = tf.ones((3, 2), device=accel_device)
    with pytest.raises(tf.UnsupportedOperation,
                       match=r"tenferro\.dask\.einsum.*operand 1 is on %s" % accel_device):
        td.einsum("ij,jk->ik", a, b)


def test_gradient_is_one_pass_and_independent_of_tasks(monkeypatch):
    """tf.grad with respect to every operand runs two distributed passes (the forward,
    then dask.einsum_vjp for all cotangents), and its bits do not depend on tasks=."""
    spec, ops = network("complex128", bond=3)
    calls = []
    contract = _run.contract
    monkeypatch.setattr(_run, "contract",
                        lambda *a, **k: calls.append(k.get("needs")) or contract(*a, **k))

    def grad(tasks):
        f = lambda *o: tf.sum(tf.abs(td.einsum(spec, *o, slices="abx", tasks=tasks)) ** 2)
        return tf.grad(f, argnums=tuple(range(8)))(*ops)
    one_per_slice = grad(1000)
    assert calls == [None, (True,) * 8]
    for tasks in (1, 3, 8):
        for g, w in zip(grad(tasks), one_per_slice):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    want = tf.grad(lambda *o: tf.sum(tf.abs(tf.einsum(spec, *o)) ** 2),
                   argnums=tuple(range(8)))(*ops)
    for g, w in zip(one_per_slice, want):
        _close(g, w)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_second_derivatives_match_local(dtype):
    """grad of a function of the gradient (dask.einsum_vjp's own VJP) and a
    forward-over-reverse product (its JVP), against the local einsum's."""
    spec, ops = network(dtype, bond=2)
    argnums = tuple(range(8))

    def outer(c):
        inner = tf.grad(lambda *o: tf.sum(tf.abs(c(spec, *o)) ** 2), argnums=argnums)
        return lambda *o: sum(tf.sum(tf.abs(g) ** 2) for g in inner(*o))

    dist = lambda s, *o: td.einsum(s, *o, slices="ax")  # noqa: E731
    for g, w in zip(tf.grad(outer(dist), argnums=(0, 3))(*ops),
                    tf.grad(outer(tf.einsum), argnums=(0, 3))(*ops)):
        _close(g, w, rtol=1e-9)
    tans = [tf.ones_like(o) for o in ops]
    got = tf.jvp(tf.grad(lambda *o: tf.sum(tf.abs(dist(spec, *o)) ** 2), argnums=(1,)),
                 ops, tans)
    want = tf.jvp(tf.grad(lambda *o: tf.sum(tf.abs(tf.einsum(spec, *o)) ** 2),
                          argnums=(1,)), ops, tans)
    for g, w in zip(got, want):
        _close(g[0], w[0], rtol=1e-9)


def test_cotengra_optimizer_gives_the_tree_and_its_slicing():
    """``optimize=cotengra.HyperOptimizer(slicing_opts=...)``: the contraction follows
    cotengra's tree, sliced on the indices cotengra's SliceFinder chose; values and
    gradients equal the local ones."""
    ctg = pytest.importorskip("cotengra")
    spec, ops = network("complex128", bond=3, seed=5)
    opt = ctg.HyperOptimizer(max_repeats=4, methods=["greedy"], progbar=False,
                             slicing_opts={"target_size": 27})
    parsed, path, sliced = _plan.plan(spec, [t.shape for t in ops], None, opt, None)
    # cotengra's search is randomised: its tree slices something, and slicing makes
    # the largest intermediate smaller than the unsliced tree's
    assert sliced and parsed.net.cost(path, sliced)[0] < parsed.net.cost(path)[0]
    got = td.einsum(spec, *ops, optimize=opt)
    np.testing.assert_allclose(np.asarray(got), np.asarray(tf.einsum(spec, *ops)),
                               rtol=1e-12, atol=1e-12)
    f = lambda *xs: tf.sum(tf.abs(td.einsum(spec, *xs, optimize=opt)) ** 2)
    g = lambda *xs: tf.sum(tf.abs(tf.einsum(spec, *xs)) ** 2)
    for a, b in zip(tf.grad(f, argnums=(0, 3))(*ops), tf.grad(g, argnums=(0, 3))(*ops)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_second_order_through_one_operand(dtype):
    """Reverse over reverse (functional and tape) and forward over reverse when only one
    operand's cotangent is needed: the joint VJP has one result, which the tape hands
    to its rule bare (it raised an IndexError)."""
    import dask
    rng = np.random.default_rng(1)
    a, b = _rand(rng, (4, 6), dtype), _rand(rng, (6, 5), dtype)

    def h(E):
        inner = tf.grad(lambda z: tf.sum(tf.abs(E("ab,bc->ac", z, b)) ** 2))
        return lambda x: tf.sum(tf.abs(inner(x)) ** 2)
    dist = lambda s, *o: td.einsum(s, *o, slices="b")   # noqa: E731
    with dask.config.set(scheduler="synchronous"):
        want, got = tf.grad(h(tf.einsum))(a), tf.grad(h(dist))(a)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10)
        t = _rand(rng, (4, 6), dtype)
        _, jw = tf.jvp(tf.grad(lambda z: tf.sum(tf.abs(tf.einsum("ab,bc->ac", z, b)) ** 2)),
                       (a,), (t,))
        _, jg = tf.jvp(tf.grad(lambda z: tf.sum(tf.abs(dist("ab,bc->ac", z, b)) ** 2)),
                       (a,), (t,))
        np.testing.assert_allclose(np.asarray(jg), np.asarray(jw), rtol=1e-10)
        x = tf.asarray(np.asarray(a))
        x.requires_grad = True
        (g,) = tf.autograd.grad(tf.sum(tf.abs(dist("ab,bc->ac", x, b)) ** 2), [x],
                                create_graph=True)
        tf.sum(tf.abs(g) ** 2).backward()
        np.testing.assert_allclose(np.asarray(x.grad), np.asarray(want), rtol=1e-10)
