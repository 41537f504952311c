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
