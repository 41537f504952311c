"""
Uncertainty from the Hessian: a Laplace approximation with ``hessian`` and ``hvp``
==================================================================================

A damped oscillation :math:`f(t) = A e^{-\\gamma t} \\cos(\\omega t + \\varphi)` is
measured by a sensor whose noise is correlated in time: an Ornstein-Uhlenbeck process,
:math:`\\Sigma_{ij} = \\sigma^2 e^{-|t_i - t_j| / \\tau}`, with a known correlation time
:math:`\\tau` and an unknown amplitude :math:`\\sigma`. The negative log-likelihood of
the five parameters :math:`\\theta = (A, \\gamma, \\omega, \\varphi, \\log\\sigma)`,

.. math::

    \\ell(\\theta) = \\tfrac12 \\lVert L^{-1} r \\rVert^2 + \\sum_i \\log L_{ii}
    + \\tfrac n2 \\log 2\\pi, \\qquad r = y - f(\\theta), \\quad \\Sigma = L L^\\top,

is written with :func:`tenferro.linalg.cholesky` and
:func:`tenferro.linalg.solve_triangular`. It is minimised by Newton-CG, whose
Hessian-vector products are :func:`tenferro.hvp` (forward over reverse, never forming
the Hessian). The Laplace approximation then takes the parameters' covariance to be
the inverse Hessian :math:`H^{-1}` of :math:`\\ell` at the maximum-likelihood estimate
(e.g. Bishop 2006, *Pattern Recognition and Machine Learning*, sec. 4.4; Pawitan 2001,
*In All Likelihood*, ch. 9), computed by :func:`tenferro.hessian`, which differentiates
twice through the Cholesky factorisation.

Checks: the Hessian against central differences of tenferro's gradient, the
Hessian-vector product and a matrix-free (conjugate-gradient) standard error against
the full Hessian, the Hessian of a linear special case against the exact generalised
least-squares result :math:`X^\\top \\Sigma^{-1} X`, and the Laplace standard errors
against a parametric bootstrap whose refits use SciPy alone (Efron & Tibshirani 1993,
*An Introduction to the Bootstrap*, ch. 6).
"""

# %%
# Data
# ----
# Eighty samples over nearly four periods (:math:`\omega t` up to 24); the noise is
# drawn as :math:`L_R z` with :math:`L_R` the Cholesky factor of the correlation
# matrix.

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Ellipse

import tenferro as tf
import tenferro.linalg as tl
import scipy.linalg   # SciPy after tenferro.linalg: see the Ising example (2x faster here)
import scipy.optimize
import scipy.sparse.linalg

rng = np.random.default_rng(0)
n, tau = 80, 0.3
t_np = np.linspace(0.0, 12.0, n)
corr_np = np.exp(-np.abs(t_np[:, None] - t_np[None, :]) / tau)    # R, Sigma = sigma^2 R
chol_corr_np = np.linalg.cholesky(corr_np)
names = ["A", "gamma", "omega", "phi", "log sigma"]
theta_true = np.array([2.0, 0.25, 2.0, 0.5, np.log(0.2)])


def oscillation_np(theta, t):
    A, gamma, omega, phi = theta[:4]
    return A * np.exp(-gamma * t) * np.cos(omega * t + phi)


noise_np = np.exp(theta_true[4]) * chol_corr_np @ rng.standard_normal(n)
y_np = oscillation_np(theta_true, t_np) + noise_np
t, y, corr = tf.asarray(t_np), tf.asarray(y_np), tf.asarray(corr_np)

# %%
# The negative log-likelihood, written with tenferro
# --------------------------------------------------


def oscillation(theta, t):
    return theta[0] * tf.exp(-theta[1] * t) * tf.cos(theta[2] * t + theta[3])


def nll(theta):
    """-log N(y | f(theta), sigma^2 R), by a Cholesky factor and a triangular solve."""
    L = tl.cholesky(tf.exp(2 * theta[4]) * corr, lower=True)
    white = tl.solve_triangular(L, y - oscillation(theta, t), lower=True)
    log_det = 2 * tf.log(tf.diagonal(L)).sum()
    return 0.5 * ((white**2).sum() + log_det + n * np.log(2 * np.pi))


nll_and_grad = tf.value_and_grad(nll)
hessian = tf.hessian(nll)


def value_and_grad_np(theta):
    value, grad = nll_and_grad(tf.asarray(theta))
    return float(value), np.asarray(grad)


def hvp_np(theta, v):
    """H(theta) v by forward-over-reverse: one gradient's cost, no n x n Hessian."""
    (hv,) = tf.hvp(nll, (tf.asarray(theta),), (tf.asarray(v),))
    return np.asarray(hv)


# %%
# Maximum likelihood by Newton-CG
# -------------------------------
# SciPy's Newton-CG solves each Newton step by conjugate gradients, calling
# ``hessp`` for the Hessian-vector products.

theta_start = np.array([1.5, 0.2, 1.9, 0.0, np.log(0.5)])
fit = scipy.optimize.minimize(value_and_grad_np, theta_start, jac=True, hessp=hvp_np,
                              method="Newton-CG", options={"xtol": 1e-10})
theta_hat = fit.x
print(f"Newton-CG: {fit.nit} iterations, {fit.nhev} Hessian-vector products, "
      f"|grad| = {np.abs(fit.jac).max():.1e}")
assert fit.success and np.abs(fit.jac).max() < 1e-5

# %%
# The Hessian and its checks
# --------------------------
# :func:`tenferro.hessian` is ``jacfwd(jacrev(nll))``: second derivatives through
# ``cholesky`` and ``solve_triangular``. Each of its columns must equal the central
# difference of the gradient, and :func:`tenferro.hvp` must equal ``H @ v``.

H = np.asarray(hessian(tf.asarray(theta_hat)))
h = 1e-5
H_fd = np.stack([value_and_grad_np(theta_hat + h * e)[1]
                 - value_and_grad_np(theta_hat - h * e)[1] for e in np.eye(5)],
                axis=1) / (2 * h)
v = rng.standard_normal(5)
print(f"Hessian vs finite differences of the gradient: max rel. error "
      f"{np.abs(H - H_fd).max() / np.abs(H).max():.1e}")
print(f"hvp vs H @ v:                                  max abs. error "
      f"{np.abs(hvp_np(theta_hat, v) - H @ v).max():.1e}")
np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-10)
np.testing.assert_allclose(H_fd, H, rtol=1e-5, atol=1e-5 * np.abs(H).max())
np.testing.assert_allclose(hvp_np(theta_hat, v), H @ v, rtol=1e-10, atol=1e-10)

# %%
# Laplace covariance and standard errors
# --------------------------------------
# :math:`C = H^{-1}`, here by a Cholesky solve of the 5 x 5 Hessian (positive
# definite at a minimum). For a model with many parameters one would not form
# :math:`H`: a single variance :math:`e_k^\top H^{-1} e_k` is a conjugate-gradient
# solve with :func:`~tenferro.hvp` as the matrix, shown here for :math:`\omega`.

C = np.asarray(tl.cho_solve(tl.cho_factor(tf.asarray(H)), tf.eye(5)))
se_laplace = np.sqrt(np.diag(C))
H_op = scipy.sparse.linalg.LinearOperator((5, 5), matvec=lambda u: hvp_np(theta_hat, u),
                                             dtype=np.float64)
e_omega = np.eye(5)[2]
x_cg, info = scipy.sparse.linalg.cg(H_op, e_omega, rtol=1e-12, maxiter=50)
se_omega_cg = np.sqrt(e_omega @ x_cg)
print(f"SE(omega): full inverse Hessian {se_laplace[2]:.6e}, "
      f"CG with hvp {se_omega_cg:.6e}")
assert info == 0 and abs(se_omega_cg - se_laplace[2]) < 1e-8 * se_laplace[2]

# %%
# An exact check: the linear-Gaussian special case
# ------------------------------------------------
# With :math:`\gamma, \omega, \sigma` held fixed,
# :math:`f = e^{-\gamma t}(a \cos\omega t + b \sin\omega t)` is linear in
# :math:`(a, b)`, and the Hessian of :math:`\ell` in :math:`(a, b)` is exactly the
# generalised least-squares information matrix :math:`X^\top\Sigma^{-1}X` (so the
# Laplace covariance is the exact posterior covariance under a flat prior). tenferro's
# Hessian, through the same ``nll`` (reached via :math:`A = \sqrt{a^2 + b^2}`,
# :math:`\varphi = \operatorname{atan2}(-b, a)`), must equal it to rounding.

gamma_hat, omega_hat, sigma_hat = theta_hat[1], theta_hat[2], np.exp(theta_hat[4])


def nll_linear(ab):
    """nll at the (A, phi) with A cos(wt + phi) = a cos(wt) + b sin(wt)."""
    A = tf.sqrt(ab[0] ** 2 + ab[1] ** 2)
    phi = tf.arctan2(-ab[1], ab[0])
    return nll(tf.stack([A, tf.asarray(gamma_hat), tf.asarray(omega_hat), phi,
                         tf.asarray(np.log(sigma_hat))]))


A_hat, phi_hat = theta_hat[0], theta_hat[3]
ab_hat = np.array([A_hat * np.cos(phi_hat), -A_hat * np.sin(phi_hat)])
H_linear = np.asarray(tf.hessian(nll_linear)(tf.asarray(ab_hat)))
X = np.exp(-gamma_hat * t_np)[:, None] * np.stack([np.cos(omega_hat * t_np),
                                                    np.sin(omega_hat * t_np)], axis=1)
H_gls = X.T @ scipy.linalg.cho_solve((chol_corr_np, True), X) / sigma_hat**2
print(f"linear case: Hessian vs X^T Sigma^-1 X: max rel. error "
      f"{np.abs(H_linear - H_gls).max() / np.abs(H_gls).max():.1e}")
np.testing.assert_allclose(H_linear, H_gls, rtol=1e-9)

# %%
# Parametric bootstrap
# --------------------
# Data sets are simulated from the fitted model with the fitted noise, and each is
# refitted by :func:`scipy.optimize.least_squares` on the whitened residuals
# :math:`L_R^{-1} r` (for fixed :math:`\tau` the shape parameters' MLE is this
# generalised least-squares fit, and :math:`\hat\sigma^2 = r^\top R^{-1} r / n`), with
# NumPy and SciPy only. Their spread is the reference for the Laplace standard errors.


def refit_np(y_sim):
    def whitened(p):
        residual = y_sim - oscillation_np(p, t_np)
        return scipy.linalg.solve_triangular(chol_corr_np, residual, lower=True)
    shape = scipy.optimize.least_squares(whitened, theta_hat[:4], method="lm").x
    return np.append(shape, 0.5 * np.log(np.mean(whitened(shape) ** 2)))


n_boot = 300
f_hat = oscillation_np(theta_hat, t_np)
boot = np.array([refit_np(f_hat + sigma_hat * chol_corr_np @ rng.standard_normal(n))
                 for _ in range(n_boot)])
se_boot = boot.std(axis=0, ddof=1)
print(f"{'':10s}{'estimate':>11s}{'truth':>10s}{'SE Laplace':>12s}"
      f"{'SE bootstrap':>14s}")
for name, est, true, s_l, s_b in zip(names, theta_hat, theta_true, se_laplace, se_boot):
    print(f"{name:10s}{est:11.4f}{true:10.4f}{s_l:12.4f}{s_b:14.4f}")
# the bootstrap SE itself is uncertain by about 1 / sqrt(2 n_boot) = 4 %
np.testing.assert_allclose(se_boot, se_laplace, rtol=0.15)

# %%
# The fit and its predictive band
# -------------------------------
# The delta method carries :math:`C` to the curve: with :math:`J = \partial f(t_*) /
# \partial\theta` from :func:`tenferro.jacfwd`, the mean curve's variance is
# :math:`\operatorname{diag}(J C J^\top)`; a new measurement adds :math:`\hat\sigma^2`.
# The bootstrap refits' pointwise 2.5-97.5 % range is drawn for comparison.

t_dense_np = np.linspace(0.0, 12.0, 400)
t_dense = tf.asarray(t_dense_np)
jacobian = tf.jacfwd(lambda theta: oscillation(theta, t_dense))
J = np.asarray(jacobian(tf.asarray(theta_hat)))              # [400, 5]
curve = oscillation_np(theta_hat, t_dense_np)
curve_sd = np.sqrt(np.einsum("ij,jk,ik->i", J, C, J))
new_sd = np.sqrt(curve_sd**2 + sigma_hat**2)
boot_curves = np.array([oscillation_np(p, t_dense_np) for p in boot])
boot_lo, boot_hi = np.percentile(boot_curves, [2.5, 97.5], axis=0)

fig, ax = plt.subplots(figsize=(8, 4))
ax.fill_between(t_dense_np, curve - 2 * new_sd, curve + 2 * new_sd, color="C0",
                alpha=0.15, lw=0, label=r"$\pm 2\sigma$ new measurement")
ax.fill_between(t_dense_np, curve - 2 * curve_sd, curve + 2 * curve_sd, color="C0",
                alpha=0.45, lw=0, label=r"$\pm 2\sigma$ fitted curve (Laplace)")
ax.plot(t_dense_np, boot_lo, "k:", lw=0.8, label="95 % bootstrap range")
ax.plot(t_dense_np, boot_hi, "k:", lw=0.8)
ax.plot(t_dense_np, curve, color="C0", lw=1.5, label="maximum-likelihood fit")
ax.plot(t_dense_np, oscillation_np(theta_true, t_dense_np), "C2--", lw=1, label="truth")
ax.plot(t_np, y_np, "o", color="C3", ms=3, label="data (correlated noise)")
ax.set_xlabel("time $t$")
ax.set_ylabel("signal")
ax.set_title("Damped oscillation: maximum-likelihood fit and Laplace predictive band")
ax.set_ylim(-2.1, 2.9)
ax.legend(fontsize=8, ncol=2, loc="upper right")
fig.tight_layout()

# %%
# Confidence region of damping and frequency
# ------------------------------------------
# The Laplace approximation's 39 % and 95 % ellipses (:math:`\chi^2_2` quantiles 1
# and 5.99) for :math:`(\gamma, \omega)`, from the 2 x 2 block of :math:`C`, over
# the bootstrap estimates.


def ellipse(mean, cov, chi2, **kw):
    w, V = np.linalg.eigh(cov)
    angle = np.degrees(np.arctan2(V[1, 1], V[0, 1]))
    return Ellipse(mean, *(2 * np.sqrt(chi2 * w[::-1])), angle=angle, fill=False, **kw)


block = C[np.ix_([1, 2], [1, 2])]
inside = np.einsum("ij,jk,ik->i", boot[:, 1:3] - theta_hat[1:3], np.linalg.inv(block),
                   boot[:, 1:3] - theta_hat[1:3]) < 5.99
print(f"bootstrap estimates inside the 95 % Laplace ellipse: {inside.mean():.1%}")
assert 0.9 < inside.mean() < 0.99

fig, ax = plt.subplots(figsize=(7, 4.5))
ax.plot(boot[:, 1], boot[:, 2], ".", color="0.6", ms=3, label="bootstrap estimates")
ax.add_patch(ellipse(theta_hat[1:3], block, 1.0, color="C0", lw=1.5, ls="--",
                     label="Laplace 39 %"))
ax.add_patch(ellipse(theta_hat[1:3], block, 5.99, color="C0", lw=2,
                     label="Laplace 95 %"))
ax.plot(*theta_hat[1:3], "C0o", label="estimate")
ax.plot(*theta_true[1:3], "C3*", ms=12, label="truth")
ax.set_xlabel(r"damping rate $\gamma$")
ax.set_ylabel(r"angular frequency $\omega$")
ax.set_title(r"Joint uncertainty of $(\gamma, \omega)$")
ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
fig.tight_layout()
plt.show()
