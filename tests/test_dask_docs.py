"""docs/distributed.md and its example: the Python blocks compile, and
docs/examples/distributed_tn_optimisation.py (a variational MPS on Dask) lowers the
energy on a LocalCluster of two worker processes with the gradient of the local
contraction."""
import importlib.util
import os
import re

import numpy as np
import pytest

pytest.importorskip("dask")

import tenferro as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "distributed.md")
EXAMPLE = os.path.join(ROOT, "docs", "examples", "distributed_tn_optimisation.py")


def _blocks():
    with open(DOC, encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def _example():
    spec = importlib.util.spec_from_file_location("distributed_tn_optimisation", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_doc_blocks_compile():
    blocks = _blocks()
    assert len(blocks) >= 8
    for k, src in enumerate(blocks):
        compile(src, "%s, python block %d" % (DOC, k), "exec")


def test_example_mpo_is_the_ising_hamiltonian():
    ex = _example()
    n = 4
    mps = ex.random_mps(n, 3, seed=1)
    psi = tf.einsum("ab,bcd,def,fg->aceg", *mps).numpy().ravel()
    H = ex.ising_hamiltonian(n)
    assert np.allclose(np.diag(H)[:2], [-(n - 1), -(n - 1) + 2]) and H[0, 1] == -1
    got = float(ex.energy_function(n, tf.einsum)(*mps))
    assert np.isclose(got, psi @ H @ psi / (psi @ psi), rtol=1e-12)
    assert ex.exact_energy(n) <= got


def test_example_runs_on_two_worker_processes(monkeypatch):
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("scipy")
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    ex = _example()
    n = 4
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        out = ex.main(n_sites=n, bond=2, steps=3, client=client, verbose=False)
    energies = out["energies"]
    assert len(energies) >= 3
    assert all(b <= a + 1e-12 for a, b in zip(energies, energies[1:])), energies
    assert energies[-1] < energies[0] - 0.1
    local = tf.grad(ex.energy_function(n, tf.einsum), argnums=tuple(range(n)))(*out["mps"])
    for g, w in zip(out["grad"], local):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-9, atol=1e-12)


def _scaling():
    path = os.path.join(ROOT, "asv_bench", "dask_scaling.py")
    spec = importlib.util.spec_from_file_location("dask_scaling", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_scaling_script_prints_its_tables(capsys):
    """asv_bench/dask_scaling.py (the docs' scaling table) on a small network."""
    _scaling().main(["--tensors", "10", "--bond", "2", "--open", "2", "--max-slices", "8",
                     "--optimize", "greedy", "--task-overhead", "1e-3", "--flop-rate",
                     "1e9", "--workers", "1,4", "--grad"])
    lines = capsys.readouterr().out.splitlines()
    rows = [l.split(" | ") for l in lines if re.match(r"\| \d", l)]
    assert [r[0] for r in rows] == ["| 1", "| 2", "| 4", "| 8"] * 2
    assert all(int(r[2]) >= 1 for r in rows[:4])   # tasks


def test_rerooted_vjp_paths_give_the_gradient():
    """_plan.vjp_path: the cotangent networks along the forward's tree give tf.grad's
    cotangents, with intermediates no larger than the forward's."""
    from tenferro.dask import _plan

    sc = _scaling()
    rng = np.random.default_rng(3)
    net = sc.build_network(sc.parse_args(["--tensors", "10", "--bond", "3", "--open", "2"]))
    ops = [tf.asarray(rng.standard_normal([net.size[l] for l in t])) for t in net.ins]
    path = _plan.find_path(net, "greedy")
    n = len(ops)
    want = tf.grad(lambda *o: tf.sum(tf.einsum(*[x for t, l in zip(o, net.ins)
                                                 for x in (t, list(l))], list(net.out))),
                   argnums=tuple(range(n)))(*ops)
    ct = tf.ones([net.size[l] for l in net.out])
    for k in range(n):
        vn, p = _plan.vjp_network(net, k), _plan.rerooted_path(n, path, k)
        assert vn.cost(p)[0] <= net.cost(path)[0]
        tensors = [ct] + [o for j, o in enumerate(ops) if j != k]
        got = tf.einsum(*[x for t, l in zip(tensors, vn.ins) for x in (t, list(l))],
                        list(vn.out), optimize=list(p))
        np.testing.assert_allclose(got.numpy(), want[k].numpy(), rtol=1e-10)


def test_vjp_paths_keep_the_slicing_memory_bound():
    """On the benchmark's network (24 tensors, bond 8) opt_einsum's greedy search anew on
    a cotangent's network plans intermediates far beyond the forward's; the re-rooted
    paths tenferro.dask.einsum's VJPs use never exceed the forward's largest, unsliced
    and per slice."""
    from tenferro.dask import _plan

    sc = _scaling()
    net = sc.build_network(sc.parse_args(["--tensors", "24", "--bond", "8"]))
    path = _plan.find_path(net, "greedy")
    full = net.cost(path)[0]
    sliced = _plan.choose_slices(net, path, full // 64)
    forward = net.cost(path, sliced)[0]
    greedy = max(_plan.vjp_network(net, k).cost(
        _plan.find_path(_plan.vjp_network(net, k), "greedy"), sliced)[0]
        for k in range(len(net.ins)))
    assert greedy > 100 * forward
    for k in range(len(net.ins)):
        vn, p = _plan.vjp_network(net, k), _plan.vjp_path(net, path, k)
        assert vn.cost(p)[0] <= full and vn.cost(p, sliced)[0] <= forward
