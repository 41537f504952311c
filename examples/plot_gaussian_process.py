"""
Gaussian-process regression: hyperparameters by gradient through Cholesky
==========================================================================

A Gaussian process (GP) with kernel :math:`k_\\theta` models noisy observations
:math:`y` at inputs :math:`X` as :math:`y \\sim \\mathcal{N}(0, K_\\theta)`,
:math:`K_\\theta = k_\\theta(X, X)`. Its hyperparameters :math:`\\theta` (here the
signal variance :math:`c`, the length scale :math:`\\ell` of a squared-exponential
kernel and the noise variance :math:`s`) are chosen by maximising the log marginal
likelihood (Rasmussen & Williams 2006, *Gaussian Processes for Machine Learning*,
eq. 2.30 and algorithm 2.1)

.. math::

    \\log p(y \\mid X, \\theta) = -\\tfrac12 y^\\top K_\\theta^{-1} y
    - \\sum_i \\log L_{ii} - \\tfrac n2 \\log 2\\pi,
    \\qquad K_\\theta = L L^\\top .

The likelihood is written once with :func:`tenferro.linalg.cholesky` and
:func:`tenferro.linalg.cho_solve`; :func:`tenferro.value_and_grad` differentiates it
through the factorisation, and :func:`scipy.optimize.minimize` (L-BFGS-B, ``jac=True``)
uses that gradient. The same likelihood, evaluated on a whole grid of hyperparameters
as one *batch* of Cholesky factorisations, draws the likelihood surface.

The reference is scikit-learn's
:class:`~sklearn.gaussian_process.GaussianProcessRegressor` with the same kernel,
``ConstantKernel * RBF + WhiteKernel``, whose ``theta`` is the same vector of
log-parameters (with ``alpha=0``: no jitter beyond the white noise, so that both
compute the same likelihood): the gradient, the optimum, the optimised likelihood and
the posterior are asserted to agree.
"""

# %%
# Data
# ----
# Forty noisy samples of a smooth function, with a gap in the middle where the
# posterior should become uncertain.

import matplotlib.pyplot as plt
from matplotlib.colors import BoundaryNorm
import numpy as np

import tenferro as tf
import tenferro.linalg as tl
import scipy.optimize   # SciPy and scikit-learn after tenferro.linalg: see the Ising example
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

rng = np.random.default_rng(0)


def truth(x):
    return np.sin(3 * x) + 0.3 * x


x_np = np.sort(np.concatenate([rng.uniform(0, 2, 24), rng.uniform(3.2, 5, 16)]))
y_np = truth(x_np) + 0.2 * rng.standard_normal(x_np.size)
n = x_np.size
x, y = tf.asarray(x_np), tf.asarray(y_np)

# %%
# The log marginal likelihood, written with tenferro
# --------------------------------------------------
# ``theta = log([c, ell, s])`` is scikit-learn's ``kernel.theta`` for
# ``ConstantKernel(c) * RBF(ell) + WhiteKernel(s)``. Optimising log-parameters keeps
# them positive and the problem well scaled. ``rbf_gram`` broadcasts over leading
# dimensions of ``theta``, so the same code evaluates one likelihood or a grid of
# them: :func:`~tenferro.linalg.cholesky` and :func:`~tenferro.linalg.cho_solve`
# factor and solve a stack of matrices ``[..., n, n]`` at once.


def rbf_gram(theta, xa, xb):
    """``c * exp(-|xa - xb|^2 / (2 ell^2))`` for ``theta[..., :2] = log(c, ell)``."""
    c = tf.exp(theta[..., 0])[..., None, None]
    ell = tf.exp(theta[..., 1])[..., None, None]
    sq = (xa[:, None] - xb[None, :]) ** 2
    return c * tf.exp(-0.5 * sq / ell**2)


def log_marginal_likelihood(theta):
    """Rasmussen & Williams's algorithm 2.1, batched over ``theta[..., 3]``."""
    K = rbf_gram(theta, x, x) + tf.exp(theta[..., 2])[..., None, None] * tf.eye(n)
    L = tl.cholesky(K, lower=True)
    alpha = tl.cho_solve((L, True), tf.broadcast_to(y[:, None], K.shape[:-1] + (1,)))
    fit = 0.5 * (y * alpha[..., 0]).sum(axis=-1)
    logdet = tf.log(tf.diagonal(L, axis1=-2, axis2=-1)).sum(axis=-1)
    return -fit - logdet - 0.5 * n * np.log(2 * np.pi)


neg_lml_and_grad = tf.value_and_grad(lambda theta: -log_marginal_likelihood(theta))


def objective(theta_np):
    """What scipy wants: float value and float64 gradient of the negative LML."""
    value, grad = neg_lml_and_grad(tf.asarray(theta_np))
    return float(value), np.asarray(grad)


# %%
# Check the gradient
# ------------------
# At the starting point, tenferro's reverse-mode gradient is compared with
# scikit-learn's analytic ``eval_gradient`` (Rasmussen & Williams eq. 5.9) and with
# central finite differences of tenferro's own likelihood.

kernel = ConstantKernel(1.0, (1e-5, 1e5)) * RBF(1.0, (1e-5, 1e5)) \
    + WhiteKernel(0.1, (1e-5, 1e5))
theta0 = kernel.theta.copy()          # log([1, 1, 0.1])
bounds = kernel.bounds                # log-bounds, the same for both optimisers

value0, grad0 = objective(theta0)
sk_unfitted = GaussianProcessRegressor(kernel, alpha=0.0, optimizer=None)
sk_unfitted.fit(x_np[:, None], y_np)
sk_lml0, sk_grad0 = sk_unfitted.log_marginal_likelihood(theta0, eval_gradient=True)
h = 1e-6
fd_grad0 = np.array([objective(theta0 + h * e)[0] - objective(theta0 - h * e)[0]
                     for e in np.eye(3)]) / (2 * h)
print(f"-LML(theta0):   tenferro {value0:.12f}   scikit-learn {-sk_lml0:.12f}")
print("gradient (tenferro)       ", grad0)
print("gradient (scikit-learn)   ", -sk_grad0)
print("gradient (finite diff.)   ", fd_grad0)
assert abs(value0 + sk_lml0) < 1e-10 * abs(sk_lml0)
np.testing.assert_allclose(grad0, -sk_grad0, rtol=1e-10, atol=1e-12)
np.testing.assert_allclose(grad0, fd_grad0, rtol=1e-6, atol=1e-7)

# %%
# Fit the hyperparameters
# -----------------------
# L-BFGS-B from the kernel's initial ``theta``, exactly as scikit-learn's default
# optimiser does; the iterates are kept to draw the path on the surface below.

path = [theta0.copy()]
result = scipy.optimize.minimize(objective, theta0, jac=True, method="L-BFGS-B",
                                 bounds=bounds,
                                 callback=lambda t: path.append(t.copy()))
path = np.array(path)
theta_opt = result.x

sk = GaussianProcessRegressor(kernel, alpha=0.0, n_restarts_optimizer=0)
sk.fit(x_np[:, None], y_np)
theta_sk = sk.kernel_.theta
print(f"L-BFGS-B: {result.nit} iterations, "
      f"{result.nfev} likelihood+gradient evaluations")
print(f"{'':14s}{'c':>10s}{'ell':>10s}{'s':>10s}{'LML':>16s}")
print(f"{'tenferro':14s}" + "".join(f"{v:10.5f}" for v in np.exp(theta_opt))
      + f"{-result.fun:16.10f}")
print(f"{'scikit-learn':14s}" + "".join(f"{v:10.5f}" for v in np.exp(theta_sk))
      + f"{sk.log_marginal_likelihood_value_:16.10f}")
assert result.success
assert abs(-result.fun - sk.log_marginal_likelihood_value_) < 1e-7
np.testing.assert_allclose(theta_opt, theta_sk, atol=1e-4)

# %%
# Posterior
# ---------
# With :math:`K = L L^\top` at the optimum, the posterior mean at test inputs is
# :math:`K_*^\top K^{-1} y` and the latent variance
# :math:`k_{**} - v^\top v` with :math:`v = L^{-1} K_*`
# (:func:`~tenferro.linalg.solve_triangular`). Adding the noise variance gives the
# predictive variance of a new observation, which scikit-learn's
# ``predict(return_std=True)`` reports (its kernel includes the white noise).

theta = tf.asarray(theta_opt)
x_test_np = np.linspace(-0.3, 5.3, 300)
x_test = tf.asarray(x_test_np)
noise = np.exp(theta_opt[2])
K = rbf_gram(theta, x, x) + noise * tf.eye(n)
L = tl.cholesky(K, lower=True)
K_star = rbf_gram(theta, x, x_test)                      # [n, n_test]
mean = K_star.T @ tl.cho_solve((L, True), y)
v = tl.solve_triangular(L, K_star, lower=True)
latent_var = np.exp(theta_opt[0]) - (v**2).sum(axis=0)
mean_np, latent_sd = np.asarray(mean), np.sqrt(np.asarray(latent_var))
predictive_sd = np.sqrt(latent_sd**2 + noise)

sk_mean, sk_sd = sk.predict(x_test_np[:, None], return_std=True)
err_mean = np.max(np.abs(mean_np - sk_mean))
err_sd = np.max(np.abs(predictive_sd - sk_sd))
print(f"posterior vs scikit-learn: max |mean diff| {err_mean:.2e}, "
      f"max |sd diff| {err_sd:.2e}")
assert err_mean < 1e-4 and err_sd < 1e-4

fig, ax = plt.subplots(figsize=(7, 4))
ax.fill_between(x_test_np, mean_np - 2 * predictive_sd, mean_np + 2 * predictive_sd,
                color="C0", alpha=0.15, lw=0, label=r"$\pm 2\sigma$ (new observation)")
ax.fill_between(x_test_np, mean_np - 2 * latent_sd, mean_np + 2 * latent_sd,
                color="C0", alpha=0.35, lw=0, label=r"$\pm 2\sigma$ (latent $f$)")
ax.plot(x_test_np, mean_np, color="C0", lw=2, label="posterior mean (tenferro)")
ax.plot(x_test_np, sk_mean, color="k", lw=1, ls=":",
        label="posterior mean (scikit-learn)")
ax.plot(x_test_np, truth(x_test_np), color="C2", lw=1, ls="--", label="true function")
ax.plot(x_np, y_np, "o", color="C3", ms=4, label="observations")
ax.set_xlabel("$x$")
ax.set_ylabel("$y$")
ax.set_title(rf"GP posterior: $c={np.exp(theta_opt[0]):.2f}$, "
             rf"$\ell={np.exp(theta_opt[1]):.2f}$, $s={noise:.3f}$")
ax.legend(fontsize=8, loc="upper left", ncol=2)
fig.tight_layout()

# %%
# The likelihood surface
# ----------------------
# The log marginal likelihood over log length scale and log noise variance, with the
# signal variance held at its optimum. The 60 x 60 grid is one call: ``theta`` of
# shape ``[60, 60, 3]`` makes a stack of 3600 Gram matrices, factored by one batched
# Cholesky. The maximum is sharp for these data; with fewer or noisier data a second
# basin can appear at long length scales, where the data are explained as noise
# (Rasmussen & Williams, fig. 5.5). L-BFGS-B's path from the initial guess is drawn in
# orange, projected on this slice (the iterates move the signal variance too, so the
# path need not follow the contours drawn here).

log_ell = np.linspace(np.log(0.05), np.log(20.0), 60)
log_s = np.linspace(np.log(1e-3), np.log(3.0), 60)
grid = np.stack(np.broadcast_arrays(theta_opt[0], log_ell[None, :], log_s[:, None]),
                axis=-1)                                # [n_s, n_ell, 3]
surface = np.asarray(log_marginal_likelihood(tf.asarray(grid)))

k = (7, 31)                                              # spot-check one grid point
assert abs(surface[k] - sk.log_marginal_likelihood(grid[k])) < 1e-8 * abs(surface[k])

fig, ax = plt.subplots(figsize=(7, 4.5))
top = surface.max()
levels = top - np.geomspace(0.1, 300.0, 22)[::-1]      # finer near the maximum
cs = ax.contourf(log_ell, log_s, surface, levels=levels, extend="min", cmap="viridis",
                 norm=BoundaryNorm(levels, 256, extend="min"))
ax.contour(log_ell, log_s, surface, levels=levels, colors="k", linewidths=0.3)
fig.colorbar(cs, ax=ax, label="log marginal likelihood", ticks=levels[::3],
             format="%.1f")
ax.plot(path[:, 1], path[:, 2], ".-", color="C1", lw=1.5, ms=5, label="L-BFGS-B path (projected)")
ax.plot(*theta_opt[1:], "r*", ms=14, label="optimum (tenferro)")
ax.plot(*theta_sk[1:], "kx", ms=9, mew=2, label="optimum (scikit-learn)")
ax.set_xlabel(r"$\log \ell$ (length scale)")
ax.set_ylabel(r"$\log s$ (noise variance)")
ax.set_title(rf"Log marginal likelihood at $c = {np.exp(theta_opt[0]):.2f}$")
ax.legend(fontsize=8, loc="lower left")
fig.tight_layout()
plt.show()
