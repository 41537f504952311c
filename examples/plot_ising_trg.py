"""
2D Ising model by tensor renormalization, differentiated through the SVD
========================================================================

The partition function of the classical Ising model on the square lattice,
:math:`Z = \\sum_{\\{\\sigma\\}} e^{\\beta \\sum_{\\langle ij \\rangle} \\sigma_i \\sigma_j}`,
is the contraction of a network of four-leg tensors, one per site. The tensor
renormalization group (TRG; Levin & Nave, *Phys. Rev. Lett.* **99**, 120601 (2007))
contracts it approximately: each step splits every tensor into two three-leg halves
with a truncated SVD (bond dimension :math:`\\chi`) and joins four halves into a new
tensor, halving the number of sites. Thirty steps give the free energy per site of a
:math:`2^{15} \\times 2^{15}` torus.

Because every step is a tenferro operation (:func:`tenferro.einsum` and
:func:`tenferro.linalg.svd`), the whole renormalization can be differentiated
(*differentiable tensor networks*: Liao, Liu, Wang & Xiang, *Phys. Rev. X* **9**,
031041 (2019)). The internal energy per site is the derivative
:math:`u = \\partial (\\beta f) / \\partial \\beta`, obtained here by
:func:`tenferro.value_and_grad` through thirty rounds of SVDs. Both :math:`f` and
:math:`u` are checked against Onsager's exact solution (Onsager, *Phys. Rev.* **65**,
117 (1944)), evaluated with :func:`scipy.integrate.quad`, and :math:`u` against finite
differences of :math:`f`.

The SVD's textbook reverse rule divides by the gaps :math:`s_j^2 - s_i^2`. The
renormalized tensors have *exactly* repeated singular values, so that rule gives NaN
gradients. tenferro's rule broadens the gaps (see :doc:`/linalg`, "Degenerate
spectra") and stays finite and correct; the last section shows both.
"""

# %%
# The renormalization, written once
# ---------------------------------
# The initial tensor puts a spin on each site and splits each bond's Boltzmann
# weight :math:`e^{\beta \sigma \sigma'} = \sum_k W_{\sigma k} W_{\sigma' k}` in two,
# :math:`T_{lurd} = \sum_\sigma W_{\sigma l} W_{\sigma u} W_{\sigma r} W_{\sigma d}`
# (legs left, up, right, down). Each step normalizes the tensor (the logarithm of
# the norm, weighted by the fraction of sites left, accumulates :math:`\ln Z / N`),
# splits it along both diagonals and contracts the four halves around a plaquette.
# ``svd`` is a parameter so that the last section can swap in another rule.
#
# tenferro is imported before SciPy on purpose: ``import tenferro.linalg`` loads
# SciPy's OpenBLAS, tenferro's BLAS, with a short spin-wait. Loaded first by
# ``scipy.linalg`` (which ``scipy.integrate`` imports), its idle threads spin for
# ~0.1 s after each call and compete with tenferro's own threads: the many small SVDs
# here then run several times slower on two cores (see the performance chapter,
# "two OpenBLAS copies", and ``tenferro.show_config()``).

import time

import matplotlib.pyplot as plt
import numpy as np

import tenferro as tf
import tenferro.linalg as tl
from scipy.integrate import quad   # after tenferro.linalg: see above

CHI, STEPS = 8, 30


def initial_tensor(beta):
    c, s = tf.sqrt(tf.cosh(beta)), tf.sqrt(tf.sinh(beta))
    W = tf.stack([tf.stack([c, s]), tf.stack([c, -s])])   # W @ W.T = exp(beta s s')
    return tf.einsum("al,au,ar,ad->lurd", W, W, W, W)


def tenferro_svd(M):
    return tl.svd(M, full_matrices=False)


def split(M, svd, chi):
    """M ~ A @ B, keeping the chi largest singular values, sqrt(s) on each side."""
    U, s, Vh = svd(M)
    k = min(chi, s.shape[0])
    r = tf.sqrt(s[:k])
    return U[:, :k] * r, r[:, None] * Vh[:k]


def log_z_per_site(beta, chi=CHI, svd=tenferro_svd, steps=STEPS):
    T = initial_tensor(beta)
    log_z, weight = 0.0, 1.0
    for _ in range(steps):
        norm = tf.sqrt(tf.sum(T * T))
        T = T / norm
        log_z = log_z + weight * tf.log(norm)
        D = T.shape[0]
        A, B = split(T.reshape(D * D, D * D), svd, chi)            # (l u)(r d)
        k = A.shape[1]
        S1, S3 = A.reshape(D, D, k), B.reshape(k, D, D)            # S1[l,u,x], S3[x,r,d]
        A, B = split(tf.transpose(T, (1, 2, 3, 0)).reshape(D * D, D * D), svd, chi)  # (u r)(d l)
        S2, S4 = A.reshape(D, D, k), B.reshape(k, D, D)            # S2[u,r,x], S4[x,d,l]
        T = tf.einsum("ail,bji,kjc,lkd->abcd", S3, S4, S1, S2)    # around a plaquette
        weight = weight / 2                                        # half the sites left
    return log_z + weight * tf.log(tf.einsum("abab->", T))         # the last 1-site torus


# %%
# Onsager's exact solution
# ------------------------
# With :math:`k = 2 \sinh 2\beta / \cosh^2 2\beta`,
#
# .. math::
#
#     -\beta f = \ln(2\cosh 2\beta) + \frac{1}{2\pi}\int_0^\pi
#     \ln\frac{1 + \sqrt{1 - k^2 \sin^2\theta}}{2}\, d\theta, \qquad
#     u = -\coth 2\beta \left[1 + \frac{2}{\pi}\,(2\tanh^2 2\beta - 1)
#     \int_0^{\pi/2} \frac{d\theta}{\sqrt{1 - k^2 \sin^2\theta}}\right].

T_C = 2 / np.log(1 + np.sqrt(2))


def onsager(beta):
    """(f, u) per site at inverse temperature beta, J = 1."""
    k = 2 * np.sinh(2 * beta) / np.cosh(2 * beta) ** 2
    i_f = quad(lambda t: np.log(0.5 * (1 + np.sqrt(1 - (k * np.sin(t)) ** 2))), 0, np.pi,
               epsabs=1e-13, epsrel=1e-13)[0]
    i_u = quad(lambda t: 1 / np.sqrt(1 - (k * np.sin(t)) ** 2), 0, np.pi / 2,
               epsabs=1e-13, epsrel=1e-13, limit=200)[0]
    f = -(np.log(2 * np.cosh(2 * beta)) + i_f / (2 * np.pi)) / beta
    u = -1 / np.tanh(2 * beta) * (1 + 2 / np.pi * (2 * np.tanh(2 * beta) ** 2 - 1) * i_u)
    return f, u


# %%
# Free energy and internal energy over temperature
# ------------------------------------------------
# :func:`tenferro.value_and_grad` gives :math:`\ln Z / N` and its derivative in
# :math:`\beta` in one pass: :math:`f = -\ln Z / (N\beta)` and
# :math:`u = -\partial(\ln Z / N) / \partial\beta`. A central difference of the
# TRG's own :math:`\ln Z / N` checks the derivative at every temperature.

temps = np.linspace(1.2, 3.6, 21)
value_and_grad = tf.value_and_grad(log_z_per_site)
f_trg, u_ad, u_fd, f_exact, u_exact = (np.empty(temps.size) for _ in range(5))
h = 1e-5
start = time.perf_counter()
for i, temp in enumerate(temps):
    beta = 1 / temp
    log_z, dlog_z = value_and_grad(tf.asarray(beta))
    f_trg[i], u_ad[i] = -float(log_z) / beta, -float(dlog_z)
    u_fd[i] = -(float(log_z_per_site(tf.asarray(beta + h)))
                - float(log_z_per_site(tf.asarray(beta - h)))) / (2 * h)
    f_exact[i], u_exact[i] = onsager(beta)
print("chi = %d, %d RG steps, %d temperatures: %.1f s" % (CHI, STEPS, temps.size,
                                                         time.perf_counter() - start))
print("   T      f (TRG)      f (Onsager)   |df|      u (AD)      u (Onsager)   |du|"
      "     |u_AD - u_FD|")
for row in zip(temps, f_trg, f_exact, u_ad, u_exact, u_fd):
    t, f, fe, u, ue, ufd = row
    print("%5.2f  %11.7f  %11.7f  %8.1e  %11.7f  %11.7f  %8.1e  %8.1e"
          % (t, f, fe, abs(f - fe), u, ue, abs(u - ue), abs(u - ufd)))

away = np.abs(temps - T_C) > 0.15
assert np.all(np.abs(f_trg - f_exact)[away] < 2e-4), "TRG free energy is off"
assert np.all(np.abs(f_trg - f_exact) < 1e-3), "TRG free energy is off near Tc"
assert np.all(np.abs(u_ad - u_exact)[away] < 2e-3), "AD internal energy is off"
assert np.allclose(u_ad, u_fd, rtol=1e-6, atol=1e-7), "AD disagrees with finite differences"

# %%
# The plot shows the two quantities and their errors. The error is largest at the
# critical temperature :math:`T_c = 2/\ln(1+\sqrt 2)`, where the correlation length
# diverges and a bond dimension of 8 truncates most; :math:`u`, a derivative, is
# more sensitive to the truncation than :math:`f`.

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
fine = np.linspace(temps[0], temps[-1], 200)
exact_fine = np.array([onsager(1 / t) for t in fine])
ax1.plot(fine, exact_fine[:, 0], "k-", lw=1, label="$f$, Onsager")
ax1.plot(temps, f_trg, "o", ms=5, label="$f$, TRG")
ax1.plot(fine, exact_fine[:, 1], "k--", lw=1, label="$u$, Onsager")
ax1.plot(temps, u_ad, "s", ms=5, label=r"$u = \partial(\beta f)/\partial\beta$, AD")
ax1.axvline(T_C, color="grey", lw=0.8, ls=":")
ax1.text(T_C, ax1.get_ylim()[0], " $T_c$", va="bottom", fontsize=9)
ax1.set_xlabel("temperature $T$ ($J = k_B = 1$)")
ax1.set_ylabel("energy per site")
ax1.set_title("TRG ($\\chi = %d$) vs exact" % CHI)
ax1.legend(fontsize=8)
ax2.semilogy(temps, np.abs(f_trg - f_exact), "o-", ms=4, label="$|f_{TRG} - f_{exact}|$")
ax2.semilogy(temps, np.abs(u_ad - u_exact), "s-", ms=4, label="$|u_{AD} - u_{exact}|$")
ax2.semilogy(temps, np.abs(u_ad - u_fd), "^-", ms=4,
             label="$|u_{AD} - u_{finite\\ diff.}|$")
ax2.axvline(T_C, color="grey", lw=0.8, ls=":")
ax2.text(T_C, ax2.get_ylim()[0], " $T_c$", va="bottom", fontsize=9)
ax2.set_xlabel("temperature $T$")
ax2.set_ylabel("absolute error")
ax2.set_title("errors")
ax2.legend(fontsize=8)
fig.tight_layout()

# %%
# A stock SVD rule gives NaN
# --------------------------
# The reverse rule found in textbooks (e.g. Townsend, *Differentiating the singular
# value decomposition* (2016)), for the thin SVD :math:`A = U S V^\top`, is
#
# .. math::
#
#     \bar A = U\big[(F \circ (U^\top \bar U - \bar U^\top U)) S + \mathrm{diag}\,\bar s
#     + S (F \circ (V^\top \bar V - \bar V^\top V))\big] V^\top
#     + (I - UU^\top)\bar U S^{-1} V^\top + U S^{-1} \bar V^\top (I - VV^\top),
#
# with :math:`F_{ij} = 1/(s_j^2 - s_i^2)` off the diagonal. It is registered below as
# a new primitive through :mod:`tenferro.autograd.extend`, the API tenferro's own
# rules use: a shape rule, a CPU implementation and a VJP rule written
# with tenferro ops.

from tenferro.autograd.extend import Primitive, def_impl, def_vjp_rule


def _stock_svd_shapes(a):
    (m, n), dtype = a
    k = min(m, n)
    return ((m, k), dtype), ((k,), dtype), ((k, n), dtype)


stock_svd_p = Primitive("gallery.stock_svd", _stock_svd_shapes, multiple_results=True)
def_impl(stock_svd_p, "cpu",   # the same LAPACK call as tenferro.linalg.svd's
         lambda a: tuple(x.numpy().copy() for x in tl.svd(a, full_matrices=False)))


def _stock_svd_vjp(ct, primals, out, params, needs):
    (u, s, vh), v = out, out[2].T
    gu, gs, gvh = (tf.zeros_like(x) if g is None else g for g, x in zip(ct, out))
    gv = gvh.T
    eye = tf.eye(s.shape[0])
    F = 1 / (s[None, :] ** 2 - s[:, None] ** 2 + eye) - eye    # no care for s_i == s_j
    J, K = u.T @ gu, v.T @ gv
    inner = (F * (J - J.T)) * s[None, :] + s[:, None] * (F * (K - K.T)) + eye * gs
    g = u @ inner @ vh + ((gu - u @ J) / s) @ vh + u @ ((gv - v @ K) / s).T
    return (g,)


def_vjp_rule(stock_svd_p, _stock_svd_vjp)


def stock_svd(M):
    return stock_svd_p.bind(M)


# %%
# The two rules side by side, at bond dimensions 4 and 8, as the derivative
# :math:`\partial(\ln Z/N)/\partial\beta = -u`; both run the same forward pass
# (the stock primitive computes with :func:`tenferro.linalg.svd` too), only the
# backward rule differs. At :math:`\chi = 4` and low temperatures every kept singular
# value is distinct: there the stock rule is correct and agrees with tenferro's to
# rounding. On the high-temperature side the tensor flows to the disordered fixed
# point, whose lattice symmetry (the tensor is the same turned by 90 degrees) makes
# two kept singular values equal, and LAPACK returns some of them *exactly* equal:
# :math:`F` gets :math:`1/0 = \infty`, :math:`\infty \cdot 0` is NaN, and one NaN in
# one of the sixty SVDs poisons the whole gradient. At :math:`\chi = 8` it happens at
# every temperature: the first steps' tensors describe only a few spins, so their
# matrices are rank-deficient (the third step's :math:`64 \times 64` matrix has rank
# 4 at every temperature), LAPACK returns the zero singular values as one repeated
# tiny number, and some of them are kept. tenferro's rule (the default
# :func:`tenferro.linalg.svd`) is finite everywhere and equals the finite difference.

gaps = {}


def recording_svd(chi, temp):
    """tenferro's SVD, recording the smallest relative gap between the kept singular
    values in gaps[chi, temp]."""
    record = gaps.setdefault((chi, temp), [])

    def svd(M):
        U, s, Vh = tenferro_svd(M)
        kept = tf.stop_gradient(s).numpy()[:chi]
        record.append(np.min(-np.diff(kept)) / kept[0])
        return U, s, Vh
    return svd


demo_temps = [1.5, 2.0, 2.5, 3.0, 3.5]
rows = []
for chi in (4, 8):
    for temp in demo_temps:
        beta = tf.asarray(1 / temp)
        ours = float(tf.grad(log_z_per_site)(beta, chi, recording_svd(chi, temp)))
        stock = float(tf.grad(log_z_per_site)(beta, chi, stock_svd))
        fd = (float(log_z_per_site(beta + h, chi))
              - float(log_z_per_site(beta - h, chi))) / (2 * h)
        ties = sum(g == 0 for g in gaps[chi, temp])
        rows.append((chi, temp, ours, stock, fd, ties))
print("chi    T    tenferro's rule   stock rule      finite diff.   SVDs with an exact tie")
for chi, temp, ours, stock, fd, ties in rows:
    print("%3d  %4.1f  %14.10f  %14.10f  %14.10f   %d of %d"
          % (chi, temp, ours, stock, fd, ties, len(gaps[chi, temp])))

for chi, temp, ours, stock, fd, ties in rows:
    assert abs(ours - fd) < 1e-7, "tenferro's SVD gradient disagrees with finite differences"
    if ties:      # an exactly repeated kept singular value: the stock rule breaks...
        assert not np.isfinite(stock)
    else:         # ...and is right otherwise
        assert abs(stock - ours) < 1e-10
for chi in (4, 8):   # and it does break, at both bond dimensions
    assert any(not np.isfinite(r[3]) for r in rows if r[0] == chi and r[1] > T_C)

# %%
# Left: each rule's distance from the finite difference; where the stock rule gives
# NaN it is drawn as a cross on the top line. Right: why. The smallest gap between
# kept singular values, relative to the largest, in each of the sixty SVDs of a run
# at :math:`\chi = 4`; gaps that are exactly zero are drawn as crosses at the bottom.

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
nan_line = 1e-4
for chi, marker, shift in ((4, "o", -0.03), (8, "s", 0.03)):
    sel = [r for r in rows if r[0] == chi]
    t = np.array([r[1] for r in sel]) + shift
    ours, stock, fd = (np.array([r[i] for r in sel]) for i in (2, 3, 4))
    ax1.semilogy(t, np.abs(ours - fd), marker, color="C0", mfc="none" if chi == 8 else None,
                 label="tenferro's rule, $\\chi = %d$" % chi)
    ok = np.isfinite(stock)
    if ok.any():
        ax1.semilogy(t[ok], np.abs(stock - fd)[ok], marker, color="C1", ms=4,
                     label="stock rule, $\\chi = %d$" % chi)
    ax1.semilogy(t[~ok], np.full((~ok).sum(), nan_line), "x", color="red", ms=8, mew=2,
                 label="stock rule: NaN" if chi == 4 else None)
ax1.axhline(nan_line, color="red", lw=0.5)
ax1.text(1.45, nan_line * 2, "NaN", color="red", fontsize=9)
ax1.axvline(T_C, color="grey", lw=0.8, ls=":")
ax1.set_ylim(1e-12, 1e-2)
ax1.set_xlabel("temperature $T$")
ax1.set_ylabel(r"$|\partial(\ln Z/N)/\partial\beta$ - finite difference$|$")
ax1.set_title("gradient through 60 SVDs: rule vs finite difference")
ax1.legend(fontsize=8, loc="center right")
floor = 1e-18
for temp, color in ((1.5, "C0"), (3.0, "C3")):
    g = np.array(gaps[4, temp])
    idx = np.arange(g.size)
    ax2.semilogy(idx[g > 0], g[g > 0], ".-", color=color, label="$T = %.1f$" % temp)
    ax2.semilogy(idx[g == 0], np.full((g == 0).sum(), floor), "x", color=color, ms=8,
                 mew=2, label="$T = %.1f$: exact tie" % temp if (g == 0).any() else None)
ax2.set_xlabel("SVD number (two per RG step)")
ax2.set_ylabel(r"$\min_i (s_i - s_{i+1}) / s_0$ among kept")
ax2.set_title("smallest singular-value gap, $\\chi = 4$")
ax2.legend(fontsize=8)
fig.tight_layout()
plt.show()
