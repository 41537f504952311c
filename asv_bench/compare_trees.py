#!/usr/bin/env python
"""Per-call costs of two tenferro checkouts, measured in one run (for refactors).

Each round runs every case in a fresh interpreter for each checkout in turn (the order
alternates between rounds), best of 7 repeats per run; the table gives each checkout's
best over all rounds and the ratio (other / base; < 1 means this checkout is faster).
The cases are the everyday per-call costs: tiny elementwise ops, the tiny op recorded
for autodiff, the chain-gradient cases of ``benchmarks/bench_autograd.py`` (eager
backward and ``grad``), a cached einsum and a tiny compiled program.  Each checkout must
be built in place (``python setup.py build_ext --inplace``).

    git worktree add ../base <commit> && (cd ../base && python setup.py build_ext --inplace)
    python asv_bench/compare_trees.py ../base [.] [--rounds 8]
"""
import argparse
import json
import os
import subprocess
import sys

CASES = r'''
import json, os, sys, timeit
sys.path.insert(0, os.path.join(os.environ["TREE"], "asv_bench"))
import numpy as np
import tenferro as tf
from benchmarks import bench_autograd as B
assert os.path.realpath(tf.__file__).startswith(os.environ["TREE"]), tf.__file__
tf.set_num_threads(2)
a, b = tf.asarray(np.ones(3)), tf.asarray(np.ones(3))
m = tf.asarray(np.random.default_rng(0).random((3, 3)))
sin, j = tf.sin, tf.jit(lambda x: (x * 2.0 + 1.0).sum())
cases = {
    "tiny x + y (3 f64)": lambda: a + b,
    "tiny x * 2.0": lambda: a * 2.0,
    "tiny sin(x)": lambda: sin(a),
    "tiny x + y, x requires grad": B.make_tiny_record("tenferro", "requires_grad"),
    "chain 10x(z*c + y): fwd + backward": B.make_chain_backward("tenferro"),
    "chain 10x(z*c + y): grad(f)(x)": B.make_chain_functional("tenferro"),
    "cached einsum ij,jk->ik 3x3": lambda: tf.einsum("ij,jk->ik", m, m),
    "jit program (x*2+1).sum(), 3 f64": lambda: j(a),
}
out = {}
for k, f in cases.items():
    f(); f()
    n = 200 if "chain" in k else 2000
    out[k] = min(timeit.repeat(f, number=n, repeat=7)) / n * 1e9
print(json.dumps(out))
'''


def _run(tree):
    tree = os.path.realpath(tree)
    env = dict(os.environ, PYTHONPATH=tree, TREE=tree)
    r = subprocess.run([sys.executable, "-c", CASES], env=env, capture_output=True, text=True,
                       cwd="/")
    if r.returncode:
        sys.exit("%s failed:\n%s" % (tree, r.stderr))
    return json.loads(r.stdout)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base", help="the checkout to compare against")
    p.add_argument("other", nargs="?", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="default: this checkout")
    p.add_argument("--rounds", type=int, default=8)
    a = p.parse_args(argv)
    trees = [a.base, a.other]
    best = [{}, {}]
    for r in range(a.rounds):
        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
            for k, v in _run(trees[i]).items():
                best[i][k] = min(v, best[i].get(k, v))
    print("| case | base (ns) | this (ns) | this / base |")
    print("|---|---:|---:|---:|")
    for k in best[0]:
        print("| %s | %.0f | %.0f | %.3f |" % (k, best[0][k], best[1][k], best[1][k] / best[0][k]))


if __name__ == "__main__":
    main()
