#!/usr/bin/env python
"""A variational MPS ground state whose energy is contracted on Dask workers.

The ground state of the transverse-field Ising chain ``H = -J sum Z_i Z_{i+1} - h sum
X_i`` (open ends) is approximated by a matrix product state of bond dimension ``bond``.
The energy ``<psi|H|psi> / <psi|psi>`` is two tensor networks (ket, MPO, bra: 3 x
``n_sites`` tensors, and ket, bra), each contracted by ``tenferro.dask.einsum`` sliced
on the middle bond of the ket; ``tf.value_and_grad`` gives the gradient with respect to
every MPS tensor, computed on the workers, and scipy's L-BFGS minimises the energy.

    python docs/examples/distributed_tn_optimisation.py     # a 2-worker LocalCluster

docs/distributed.md ("Example: a tensor network optimised on Dask") walks through it;
tests/test_dask_docs.py runs :func:`main` and checks its gradient against the local
``tf.grad``.
"""
import numpy as np
import scipy.optimize

import tenferro as tf
import tenferro.dask as td

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def networks(n):
    """Subscripts of <psi|H|psi> (operands: n kets, n MPO tensors, n bras) and of
    <psi|psi> (n kets, n bras), and the ket's middle bond (the index to slice)."""
    names = iter(LETTERS)
    ket_b, bra_b, mpo_b = ([next(names) for _ in range(n - 1)] for _ in range(3))
    ket_p, bra_p = ([next(names) for _ in range(n)] for _ in range(2))

    def chain(bonds, site_legs):   # open ends: no bond left of 0, none right of n-1
        return ["".join(([bonds[i - 1]] if i else []) + site_legs[i]
                        + ([bonds[i]] if i < n - 1 else [])) for i in range(n)]
    kets = chain(ket_b, [[p] for p in ket_p])
    bras = chain(bra_b, [[p] for p in bra_p])
    mpos = chain(mpo_b, [[q, p] for q, p in zip(bra_p, ket_p)])
    norm_bras = chain(bra_b, [[p] for p in ket_p])   # <psi|psi>: physical legs shared
    energy = ",".join(kets + mpos + bras) + "->"
    norm = ",".join(kets + norm_bras) + "->"
    return energy, norm, ket_b[(n - 1) // 2]


def ising_mpo(n, J=1.0, h=1.0):
    """The MPO of the transverse-field Ising chain (bond 3), as NumPy arrays
    indexed (left, bra, ket, right), the ends without their outer bond."""
    I, X, Z = np.eye(2), np.array([[0., 1.], [1., 0.]]), np.diag([1., -1.])
    W = np.zeros((3, 2, 2, 3))
    W[0, :, :, 0], W[1, :, :, 0], W[2, :, :, 0] = I, Z, -h * X
    W[2, :, :, 1], W[2, :, :, 2] = -J * Z, I
    return [W[2]] + [W] * (n - 2) + [W[:, :, :, 0]]


def ising_hamiltonian(n, J=1.0, h=1.0):
    """The Hamiltonian as a dense 2^n x 2^n matrix (small n only)."""
    I, X, Z = np.eye(2), np.array([[0., 1.], [1., 0.]]), np.diag([1., -1.])

    def op(single, i):
        out = np.ones((1, 1))
        for k in range(n):
            out = np.kron(out, single if k == i else I)
        return out
    return sum(-J * op(Z, i) @ op(Z, i + 1) for i in range(n - 1)) + \
        sum(-h * op(X, i) for i in range(n))


def exact_energy(n, J=1.0, h=1.0):
    """The ground-state energy by dense diagonalisation (small n only)."""
    return float(np.linalg.eigvalsh(ising_hamiltonian(n, J, h))[0])


def random_mps(n, bond, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(2, bond)] + [(bond, 2, bond)] * (n - 2) + [(bond, 2)]
    return [tf.asarray(rng.standard_normal(s) / np.sqrt(bond)) for s in shapes]


def energy_function(n, einsum):
    """energy(*mps) = <psi|H|psi> / <psi|psi>, contracted with ``einsum``."""
    energy_spec, norm_spec, _ = networks(n)
    mpo = [tf.asarray(w) for w in ising_mpo(n)]

    def energy(*mps):
        num = einsum(energy_spec, *mps, *mpo, *mps)   # real MPS: the bra is the ket
        return num / einsum(norm_spec, *mps, *mps)
    return energy


def distributed_einsum(client, n):
    """tenferro.dask.einsum on ``client``, sliced on the ket's middle bond."""
    middle = networks(n)[2]

    def einsum(spec, *ops):
        return td.einsum(spec, *ops, client=client, slices=middle)
    return einsum


def main(n_sites=6, bond=3, steps=12, client=None, seed=0, verbose=True):
    """Minimise the energy with L-BFGS (``steps`` iterations), contracting on
    ``client`` (None: Dask's threaded scheduler).  Returns the energies of the
    iterates, the final MPS and the gradient at it (computed on Dask)."""
    mps = random_mps(n_sites, bond, seed)
    shapes = [t.shape for t in mps]
    sizes = np.cumsum([0] + [int(np.prod(s)) for s in shapes])
    value_and_grad = tf.value_and_grad(
        energy_function(n_sites, distributed_einsum(client, n_sites)),
        argnums=tuple(range(n_sites)))

    def unpack(x):
        return [tf.asarray(x[a:b].reshape(s)) for a, b, s in zip(sizes, sizes[1:], shapes)]

    last = {}

    def fun(x):
        e, grads = value_and_grad(*unpack(x))
        last["x"], last["e"] = x.copy(), float(e)
        return float(e), np.concatenate([np.asarray(g).ravel() for g in grads])

    energies = []

    def record(x):   # L-BFGS's new iterate: usually the point it evaluated last
        energies.append(last["e"] if np.array_equal(x, last["x"]) else fun(x)[0])
        if verbose:
            print("step %2d  energy %.8f" % (len(energies) - 1, energies[-1]), flush=True)
    x0 = np.concatenate([np.asarray(t).ravel() for t in mps])
    energies.append(fun(x0)[0])
    res = scipy.optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", callback=record,
                                  options={"maxiter": steps})
    final = unpack(res.x)
    grad = value_and_grad(*final)[1]
    return {"energies": energies, "mps": final, "grad": grad}


if __name__ == "__main__":
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        print("dashboard:", client.dashboard_link)
        out = main(client=client)
    print("MPS energy %.6f, exact %.6f" % (out["energies"][-1], exact_energy(6)))
