#!/usr/bin/env python
"""Mutation testing for tenferro: plant one plausible bug at a time and check that the
tests notice.

Each mutation below names a file, an exact source snippet (which must occur exactly
once), its replacement and the test files (pytest arguments) that should catch it.
The script copies the work tree (built extensions included) to a temporary folder,
then for each mutation: applies it to the copy, rebuilds the one kernel module it
touches (``*.pyx.tp`` mutations only: ``TENFERRO_EXT=<module> setup.py build_ext``),
runs the tests with a timeout, records *killed* (a test failed or errored, or it timed
out) or *survived* (every test passed), and restores the file (and the module's built
files).  It prints a table and the kill rate; the exit status is 1 if any mutation
survived, so a survivor is a missing test.

    python tests/mutate.py                   # everything (kernel mutations: ~1-2 min each)
    python tests/mutate.py --no-kernels      # rules and passes only (about a minute)
    python tests/mutate.py --only arccosh_complex_branch svd_inverse_unbroadened
    python tests/mutate.py --list

Add a mutation for each rule, pass or kernel branch you write: the bug you would most
plausibly make there (a wrong branch, a dropped conjugate, a swapped NaN mask), and the
tests it should fail.  The ids are stable names for the report.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = "tenferro/autograd/_rules/"
SPECS = ("tests/test_autograd_rules.py",)
TRACED = ("tests/test_traced_passes.py", "tests/test_traced_fusion.py", "tests/test_traced.py",
          "tests/test_traced_twins.py", "tests/test_traced_specs.py", "tests/test_trust_rules.py")


@dataclass
class Mutation:
    id: str
    file: str
    old: str
    new: str
    tests: Tuple[str, ...]

    @property
    def kernel(self):
        """The extension module to rebuild, for a kernel template or header (else None)."""
        name = os.path.basename(self.file)
        if name.endswith(".pyx.tp"):
            return name[:-len(".pyx.tp")]
        return _HEADERS.get(name)


_HEADERS = {"_elementwise_loops.h": "_elementwise"}   # header -> the module including it


def M(id, file, old, new, *tests):
    return Mutation(id, file, old, new, tuple(tests) or SPECS)


MUTATIONS = [
    # -- elementwise rules: branches, complex conventions, NaN masks -----------------
    M("arccosh_complex_branch", RULES + "elementwise.py",
      'if x.dtype.kind == "c" else _ops.rsqrt(x * x - 1.0)))',
      'if False else _ops.rsqrt(x * x - 1.0)))'),
    M("log_conjugated", RULES + "elementwise.py",
      '_holomorphic_div("log", lambda x, out: x)',
      '_holomorphic_div("log", lambda x, out: conj(x))'),
    M("rsqrt_sign", RULES + "elementwise.py",
      "out * out * out * -0.5", "out * out * out * 0.5"),
    M("arcsin_sign_inside", RULES + "elementwise.py",
      '_holomorphic("arcsin", lambda x, out: _ops.rsqrt(1.0 - x * x))',
      '_holomorphic("arcsin", lambda x, out: _ops.rsqrt(1.0 + x * x))'),
    M("arctan_denominator", RULES + "elementwise.py",
      '_holomorphic_div("arctan", lambda x, out: 1.0 + x * x)',
      '_holomorphic_div("arctan", lambda x, out: 1.0 - x * x)'),
    M("tan_from_input", RULES + "elementwise.py",
      '_holomorphic("tan", lambda x, out: 1.0 + out * out)',
      '_holomorphic("tan", lambda x, out: 1.0 + x * x)'),
    M("reciprocal_from_input", RULES + "elementwise.py",
      '_holomorphic("reciprocal", lambda x, out: -(out * out))',
      '_holomorphic("reciprocal", lambda x, out: -(x * x))'),
    M("expm1_missing_one", RULES + "elementwise.py",
      '_holomorphic("expm1", lambda x, out: out + 1.0)',
      '_holomorphic("expm1", lambda x, out: out)'),
    M("sigmoid_sign", RULES + "elementwise.py",
      "out * (1.0 - out)", "out * (1.0 + out)"),
    M("abs_vjp_conjugated", RULES + "elementwise.py",
      "    return ct * _sgn(x, out)", "    return ct * conj(_sgn(x, out))"),
    M("angle_vjp_sign", RULES + "elementwise.py",
      "ct * (x * 1j) / _safe(_abs2(x))", "ct * (x * -1j) / _safe(_abs2(x))"),
    M("multiply_vjp_no_conj", RULES + "elementwise.py",
      "lambda ct, x, y: unbroadcast_to(ct * conj(y), x)",
      "lambda ct, x, y: unbroadcast_to(ct * y, x)"),
    M("divide_jvp_sign", RULES + "elementwise.py",
      "lambda t, x, y, *, out: -t * (out / y))", "lambda t, x, y, *, out: t * (out / y))"),
    M("power_log_abs", RULES + "elementwise.py",
      "out * _ops.log(_ops.where(mask, 1.0, x))",
      "out * _ops.log(_ops.abs(_ops.where(mask, 1.0, x)))"),
    M("remainder_trunc", RULES + "elementwise.py",
      "lambda t, x, y: -t * _ops.floor_divide(x, y))",
      "lambda t, x, y: -t * _ops.trunc(x / y))"),
    M("fmax_nan_masks_swapped", RULES + "elementwise.py",
      "    if not nan_wins:\n        nx, ny = ny, nx", "    if nan_wins:\n        nx, ny = ny, nx",
      "tests/test_trust_rules.py", *SPECS),
    M("maximum_nan_to_both", RULES + "elementwise.py",
      "takes_y = _ops.logical_and(_ops.logical_not(nx), _ops.logical_or(ny, beats(y, x)))",
      "takes_y = _ops.logical_or(ny, beats(y, x))", "tests/test_trust_rules.py", *SPECS),
    M("maximum_ties_not_split", RULES + "elementwise.py",
      "_ops.where(tie, g * 0.5, 0.0)", "_ops.where(tie, g, 0.0)",
      "tests/test_trust_rules.py", *SPECS),
    M("logaddexp_swapped", RULES + "elementwise.py",
      "defjvp(PRIMS[\"logaddexp\"], lambda t, x, y: t / (1.0 + _ops.exp(y - x)),",
      "defjvp(PRIMS[\"logaddexp\"], lambda t, x, y: t / (1.0 + _ops.exp(x - y)),"),
    M("clip_lo_above_hi", RULES + "elementwise.py",
      "mlo = _ops.logical_and(x < lo, lo < hi)", "mlo = x < lo"),
    M("hypot_wrong_operand", RULES + "elementwise.py",
      "defjvp(PRIMS[\"hypot\"], lambda t, x, y, *, out: t * (x / out),",
      "defjvp(PRIMS[\"hypot\"], lambda t, x, y, *, out: t * (y / out),"),
    # (values at zeros, where finite differences do not reach: the specs sample around them)
    M("power_dx_at_zero_exponent", RULES + "elementwise.py",
      "return _ops.where(y == 0, 0.0, y * _ops.power(x, y - 1.0))",
      "return y * _ops.power(x, y - 1.0)", "tests/test_trust_rules.py", *SPECS),
    M("power_dy_zero_base_mask", RULES + "elementwise.py",
      "        mask = y >= 0\n", "        mask = y > 0\n", "tests/test_trust_rules.py", *SPECS),
    M("copysign_at_zero", RULES + "elementwise.py",
      "return _ops.where(nz, 0.0, out / _ops.where(nz, 1.0, x))", "return out / x",
      "tests/test_trust_rules.py", *SPECS),
    M("abs_complex_jvp_at_zero", RULES + "elementwise.py",
      "return _ops.real(_ops.conj(x) * t) / _safe(out)",
      "return _ops.real(_ops.conj(x) * t) / out",
      "tests/test_trust_rules.py", *SPECS),
    M("angle_vjp_at_zero", RULES + "elementwise.py",
      "return ct * (x * 1j) / _safe(_abs2(x))", "return ct * (x * 1j) / _abs2(x)",
      "tests/test_trust_rules.py", *SPECS),
    # -- structural rules -------------------------------------------------------------
    M("max_reduce_nan_dropped", RULES + "structural.py",
      "hit = _ops.logical_or(_ops.equal(x, o), _ops.logical_and(_ops.isnan(x), _ops.isnan(o)))",
      "hit = _ops.equal(x, o)", "tests/test_trust_rules.py", *SPECS),
    M("max_reduce_ties_not_split", RULES + "structural.py",
      "return _fit(expand_to(ct / count, x.shape, axes) * mask, x)",
      "return _fit(expand_to(ct, x.shape, axes) * mask, x)"),
    M("cumsum_vjp_not_reversed", RULES + "structural.py",
      "_fit(_ops.flip(_ops.cumsum(_ops.flip(ct, axis=axis), axis=axis), axis=axis), x))",
      "_fit(_ops.cumsum(ct, axis=axis), x))"),
    M("cumprod_vjp_shift_direction", RULES + "structural.py",
      "s = _linear_scan(_shift(xc, axis, 1, reverse=True), ct, axis, reverse=True)",
      "s = _linear_scan(_shift(xc, axis, 1), ct, axis, reverse=True)"),
    M("prod_right_products_unflipped", RULES + "structural.py",
      "right = _ops.flip(_exclusive_cumprod(_ops.flip(y, axis=-1), y.ndim - 1), axis=-1)",
      "right = _exclusive_cumprod(_ops.flip(y, axis=-1), y.ndim - 1)"),
    M("matmul_vjp_no_conj", RULES + "structural.py",
      "(_fit(ct, a), _matrix_transpose(conj(b)))", "(_fit(ct, a), _matrix_transpose(b))"),
    M("einsum_vjp_no_conj", RULES + "einsum.py",
      "pairs = [(ct, labels_out)] + [(conj(y), ins[j])",
      "pairs = [(ct, labels_out)] + [(y, ins[j])", *SPECS, "tests/test_einsum.py"),
    # -- tenferro.nn: convolution rules and max pooling's choice ---------------------------
    M("nn_conv_vjp_unconjugated", "tenferro/nn/_conv_prim.py",
      "wt = _ops.reshape(_conj(w), ", "wt = _ops.reshape(w, ", "tests/test_nn_conv.py"),
    M("nn_conv_vjp_unflipped", "tenferro/nn/_conv_prim.py",
      "    wt = _ops.flip(wt, tuple(range(2, 2 + nsd)))\n", "", "tests/test_nn_conv.py"),
    M("nn_max_pool_last_maximum", "tenferro/nn/_pool.py",
      "np.greater(hit, done, out=new)", "np.copyto(new, hit)", "tests/test_nn_conv.py"),
    # -- linalg rules ---------------------------------------------------------------------
    M("svd_inverse_unbroadened", "tenferro/linalg/_eigh.py",
      "    return x / (x * x + eps * eps)", "    return 1.0 / x",
      "tests/test_trust_rules.py", "tests/test_linalg_svd.py"),
    M("eigh_gaps_unbroadened", "tenferro/linalg/_eigh.py",
      "        return (1 - eye) * _broadened_inverse(x, eps)", "        return (1 - eye) / x",
      "tests/test_trust_rules.py", "tests/test_linalg_eigh.py"),
    M("eigh_vjp_symmetric_part", "tenferro/linalg/_eigh.py",
      "inner = (0.5 * (vhgv - mH(vhgv)))", "inner = (0.5 * (vhgv + mH(vhgv)))",
      "tests/test_linalg_eigh.py", *SPECS),
    M("eig_gaps_not_conjugated", "tenferro/linalg/_eig.py",
      "return _ops.conj(_gap_inverse(w, eps)) * (vhgv", "return _gap_inverse(w, eps) * (vhgv",
      "tests/test_linalg_eig.py", *SPECS),
    M("gauge_check_disabled", "tenferro/linalg/_eigh.py",
      "(xp.max(xp.abs(xp.imag(d))) <= 1e-6 * scale)",
      "(xp.max(xp.abs(xp.imag(d))) <= 1e6 * scale)",
      "tests/test_linalg_svd.py", "tests/test_linalg_eigh.py", "tests/test_linalg_eig.py"),
    M("cholesky_jvp_full_diagonal", "tenferro/linalg/_triangular.py",
      "dl = L @ (_ops.tril(x, -1) + 0.5 * real_diag(x))",
      "dl = L @ (_ops.tril(x, -1) + real_diag(x))",
      "tests/test_linalg.py", *SPECS),
    M("cholesky_vjp_transposed", "tenferro/linalg/_triangular.py",
      "p = half_triangle(mH(L) @ gl, True)", "p = half_triangle(mH(gl) @ L, True)",
      "tests/test_linalg.py", *SPECS),
    M("det_vjp_no_conj", "tenferro/linalg/_lu.py",
      "return (ct[..., None, None] * mH(_adjugate(primals[0], out)),)",
      "return (ct[..., None, None] * _ops.matrix_transpose(_adjugate(primals[0], out)),)",
      "tests/test_linalg_lu.py", *SPECS),
    M("det_adjugate_by_inverse", "tenferro/linalg/_lu.py",
      "    if not (np.asarray(_ops.to_numpy(det)) == 0).any():",
      "    if True:", "tests/test_linalg_lu.py", *SPECS),
    M("solve_vjp_no_conj", "tenferro/linalg/_lu.py",
      "            ga = -(gb @ mH(x))", "            ga = -(gb @ _ops.matrix_transpose(x))",
      "tests/test_linalg_lu.py", *SPECS),
    M("qr_jvp_real_diagonal_kept", "tenferro/linalg/_qr.py",
      "om = om + c * _ops.eye(c.shape[-1], dtype=c.dtype, device=c.device) - real_diag(c)",
      "om = om + c * _ops.eye(c.shape[-1], dtype=c.dtype, device=c.device)",
      "tests/test_linalg_qr.py", *SPECS),
    M("norm_vjp_unguarded_at_zero", "tenferro/linalg/_norm.py",
      "    safe = _ops.where(zero, _ops.ones_like(out), out)\n    if p == 2:",
      "    safe = out\n    if p == 2:", "tests/test_linalg_norm.py", *SPECS),
    M("pinv_vjp_sign", "tenferro/linalg/_lstsq.py",
      "return (-(ph @ g @ ph) + (gh", "return ((ph @ g @ ph) + (gh",
      "tests/test_linalg_lstsq.py", *SPECS),
    M("eig_vec_normalisation_dropped", "tenferro/linalg/_eig.py",
      "    return dx - v * cast(_ops.real(_ops.sum(_ops.conj(v) * dx, axis=-2, keepdims=True)),",
      "    return dx - 0 * v * cast(_ops.real(_ops.sum(_ops.conj(v) * dx, axis=-2,"
      " keepdims=True)),",
      "tests/test_linalg_eig.py", *SPECS),
    # -- compile passes -------------------------------------------------------------------
    M("cse_ignores_params", "tenferro/graph/passes.py",
      "key = (node.prim.name, tuple(sorted(node.params.items())),", "key = (node.prim.name, (),",
      *TRACED),
    M("simplify_add_one", "tenferro/graph/simplify.py",
      'if v is None or v != (1 if name in ("multiply", "divide") else 0):',
      'if v is None or v != (1 if name in ("multiply", "divide", "add") else 0):',
      "tests/test_trust_jit.py", *TRACED),
    M("simplify_zero_minus_x", "tenferro/graph/simplify.py",
      'if keep == 1 and name in ("subtract", "divide"):', 'if keep == 1 and name in ("divide",):',
      *TRACED),
    M("simplify_drops_broadcast", "tenferro/graph/simplify.py",
      "if _is_unit(_constant_value(inputs[other]), node) and _same(inputs[keep], node):",
      "if _is_unit(_constant_value(inputs[other]), node):", *TRACED),
    M("simplify_add_positive_zero", "tenferro/graph/simplify.py",
      'return bool(signs.all()) if name == "add" else not signs.any()',
      'return True', "tests/test_trust_jit.py", *TRACED),
    M("simplify_conj_of_complex", "tenferro/graph/simplify.py",
      'if inputs[0].dtype.kind != "c" and _same(inputs[0], node):',
      'if _same(inputs[0], node):', *TRACED),
    M("simplify_permutation_order", "tenferro/graph/simplify.py",
      'axes = tuple(src.params["axes"][a] for a in node.params["axes"])',
      'axes = tuple(node.params["axes"][a] for a in src.params["axes"])', *TRACED),
    M("simplify_broadcast_copies", "tenferro/graph/simplify.py",
      "r = r * copies if copies != 1 else r", "r = r", *TRACED),
    M("constant_value_not_uniform", "tenferro/graph/simplify.py",
      "return v if np.all(a == v) else None", "return v", *TRACED),
    M("transpose_fold_inverse", "tenferro/graph/passes.py",
      "                        relabelled[a] = l",
      "                        relabelled[labels.index(l)] = labels[a]", *TRACED),
    M("transpose_fold_out_unpermuted", "tenferro/graph/passes.py",
      'out = tuple(out[a] for a in p.params["axes"])',
      'out = tuple(out[a] for a in sorted(p.params["axes"]))', *TRACED),
    M("dce_forgets_inputs", "tenferro/graph/passes.py",
      "            live.update(id(i) for i in node.inputs if isinstance(i, Var))",
      "            pass", *TRACED),
    M("fusion_mixed_shapes", "tenferro/graph/fusion.py",
      "nodes[p].outputs[0].shape == shape and not any(g is c for c in cands):",
      "not any(g is c for c in cands):", *TRACED),
    M("fusion_cycles", "tenferro/graph/fusion.py",
      "        if bad is None:\n            return cands",
      "        if True:\n            return cands",
      *TRACED),
    M("fusion_reduction_shared_input", "tenferro/graph/fusion.py",
      "uses.get(id(i)) == 1 and", "uses.get(id(i)) >= 1 and", *TRACED),
    # -- reduction kernels (rebuild _reduce per mutation) -----------------------------------
    M("kernel_max_join_drops_nan", "tenferro/_kernels/_reduce.pyx.tp",
      "    (<{{A}}*>a)[0] = {{CB(op, dn, '(<%s*>a)[0]' % A, '(<const %s*>b)[0]' % A)}}",
      "    (<{{A}}*>a)[0] = {{CB(op, dn, '(<%s*>a)[0]' % A, '(<const %s*>b)[0]' % A) "
      "if op not in ('max', 'min') or KIND[od] != 'f' else '(<const %s*>b)[0] if (<const %s*>b)"
      "[0] %s (<%s*>a)[0] else (<%s*>a)[0]' % (A, A, '>' if op == 'max' else '<', A, A)}}",
      "tests/test_reduction.py", "tests/test_kernels_reduce.py"),
    M("kernel_rows_join_drops_nan", "tenferro/_kernels/_reduce.pyx.tp",
      "        d[j] = {{CB(op, dn, 'd[j]', 'b[j]')}}",
      "        d[j] = {{CB(op, dn, 'd[j]', 'b[j]') if op not in ('max', 'min') or KIND[od] != 'f'"
      " else 'b[j] if b[j] %s d[j] else d[j]' % ('>' if op == 'max' else '<')}}",
      "tests/test_reduction.py", "tests/test_kernels_reduce.py"),
    M("kernel_argmax_ignores_nan", "tenferro/_kernels/_reduce.pyx.tp",
      "        return '(%s %s %s or %s != %s)' % (v, c, b, v, v)",
      "        return '(%s %s %s)' % (v, c, b)",
      "tests/test_reduction.py", "tests/test_kernels_reduce.py"),
    M("kernel_complex_max_imag_nan", "tenferro/_kernels/_reduce.pyx.tp",
      "    # NumPy CGE: a kept when a has a NaN or a >= b lexicographically\n"
      "    if (a.re != a.re or a.im != a.im",
      "    # NumPy CGE: a kept when a has a NaN or a >= b lexicographically\n"
      "    if (a.re != a.re",
      "tests/test_reduction.py", "tests/test_kernels_reduce.py"),
    M("kernel_binary_contig_8_bytes", "tenferro/_kernels/_elementwise_loops.h",
      "    const npy_intp E = (npy_intp)sizeof(TI);" + " " * 44 + "\\\n    (void)err;",
      "    const npy_intp E = 8;" + " " * 63 + "\\\n    (void)err;",
      "tests/test_elementwise.py", "tests/test_kernels_elementwise.py"),
    M("kernel_tree_join_skips_half", "tenferro/_kernels/_reduce.pyx.tp",
      "    _tree_comb(L, part, stride, mid, hi, w)\n", "",
      "tests/test_reduction.py", "tests/test_kernels_reduce.py"),
    M("kernel_where_scalar_branch_swapped", "tenferro/_kernels/_elementwise_loops.h",
      "        if (sy == 0) {", "        if (sz == 0) {",
      "tests/test_nn_act.py", "tests/test_elementwise.py"),
    # -- tenferro.nn: PyTorch's conventions at the kinks ----------------------------
    M("nn_relu_grad_one_at_zero", "tenferro/nn/_activations.py",
      "lambda g, x: _ops.where(x <= 0, 0, g))", "lambda g, x: _ops.where(x < 0, 0, g))",
      "tests/test_nn_act.py"),
    M("nn_softplus_threshold_inclusive", "tenferro/nn/_activations.py",
      "    return _ops.where(xb > threshold, g, g * s)",
      "    return _ops.where(xb >= threshold, g, g * s)", "tests/test_nn_act.py"),
    M("nn_elu_second_derivative_at_zero", "tenferro/nn/_activations.py",
      "_ops.exp(_ops.where(x < 0, x, stop_gradient(x)))", "_ops.exp(x)",
      "tests/test_nn_act.py"),
]


def _ignore(src, names):
    return {n for n in names if n in (".git", "__pycache__", ".pytest_cache", ".hypothesis",
                                      "build", ".asv")}


def _run(cmd, cwd, timeout, env=None):
    """(returncode or 'timeout', seconds, output tail)."""
    t0 = time.time()
    try:
        r = subprocess.run(cmd, cwd=cwd, timeout=timeout, env=env, capture_output=True,
                           text=True)
        rc, out = r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(
            e.stdout, bytes) else (e.stdout or "")
    return rc, time.time() - t0, out[-2000:]


def _pytest(tree, tests, timeout):
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
           "-W", "ignore"] + [a for t in tests for a in shlex.split(t)]
    return _run(cmd, tree, timeout)


def _build(tree, module, timeout):
    env = dict(os.environ, TENFERRO_EXT=module)
    return _run([sys.executable, "setup.py", "build_ext", "--inplace", "-j", "2"], tree,
                timeout, env)


def _built_files(tree, module):
    """The files a rebuild of ``module`` rewrites (restored after a kernel mutation)."""
    kdir = os.path.join(tree, "tenferro", "_kernels")
    return [os.path.join(kdir, f) for f in os.listdir(kdir)
            if f.startswith(module + ".") and not f.endswith(".tp")]


def run_one(m, tree, timeout, log):
    path = os.path.join(tree, m.file)
    with open(path) as f:
        original = f.read()
    count = original.count(m.old)
    if count != 1:
        return "stale", 0.0, "the snippet occurs %d times in %s" % (count, m.file)
    saved = {}
    if m.kernel:
        for p in _built_files(tree, m.kernel):
            with open(p, "rb") as f:
                saved[p] = f.read()
    try:
        with open(path, "w") as f:
            f.write(original.replace(m.old, m.new))
        if m.kernel:
            rc, secs, out = _build(tree, m.kernel, 900)
            if rc != 0:
                return "build-failed", secs, out
        rc, secs, out = _pytest(tree, m.tests, timeout)
        if rc == 0:
            return "SURVIVED", secs, out
        if rc == "timeout":
            return "killed (timeout)", secs, out
        if rc == 1:
            return "killed", secs, out
        return "killed (rc %s)" % rc, secs, out
    finally:
        with open(path, "w") as f:
            f.write(original)
        for p, data in saved.items():
            with open(p, "wb") as f:
                f.write(data)
        if log:
            log.write("=== %s\n" % m.id)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", metavar="ID", help="run these mutations only")
    ap.add_argument("--no-kernels", action="store_true", help="skip *.pyx.tp mutations")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per test run")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip checking that the selected tests pass unmutated")
    args = ap.parse_args(argv)
    todo = MUTATIONS
    if args.only:
        unknown = set(args.only) - {m.id for m in MUTATIONS}
        if unknown:
            ap.error("unknown mutation id(s): %s" % ", ".join(sorted(unknown)))
        todo = [m for m in MUTATIONS if m.id in args.only]
    if args.no_kernels:
        todo = [m for m in todo if not m.kernel]
    if args.list:
        for m in todo:
            print("%-32s %-40s %s" % (m.id, m.file, " ".join(m.tests)))
        return 0
    tmp = tempfile.mkdtemp(prefix="tenferro-mutate-")
    tree = os.path.join(tmp, "tree")
    shutil.copytree(ROOT, tree, ignore=_ignore, symlinks=True)
    print("copy of the tree: %s" % tree, flush=True)
    try:
        if not args.no_baseline:
            for tests in sorted({m.tests for m in todo}):
                rc, secs, out = _pytest(tree, tests, args.timeout)
                if rc != 0:
                    print("baseline fails (fix it first): %s\n%s" % (" ".join(tests), out))
                    return 2
            print("baseline: the selected tests pass unmutated", flush=True)
        rows = []
        for m in todo:
            status, secs, out = run_one(m, tree, args.timeout, None)
            rows.append((m, status, secs))
            print("%-32s %-18s %6.1fs  %s" % (m.id, status, secs, m.file), flush=True)
            if status in ("SURVIVED", "stale", "build-failed"):
                print("    " + "\n    ".join(out.strip().splitlines()[-5:]), flush=True)
            else:   # the test that caught it
                first = [ln for ln in out.splitlines() if ln.startswith(("FAILED", "ERROR"))]
                print("    " + (first[0] if first else out.strip().splitlines()[-1]),
                      flush=True)
        killed = sum(s.startswith("killed") for _, s, _ in rows)
        valid = sum(s != "stale" and s != "build-failed" for _, s, _ in rows)
        print("\n%-32s %s" % ("mutation", "result"))
        for m, s, _ in rows:
            print("%-32s %s" % (m.id, s))
        print("\nkill rate: %d/%d (%.0f%%)" % (killed, valid, 100.0 * killed / max(valid, 1)))
        return 0 if killed == valid == len(rows) else 1
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
