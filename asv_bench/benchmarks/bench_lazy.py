"""Lazy mode (``with tenferro.lazy():``) on an eager-style script of 20 elementwise
ops on 10^6 float64 elements, beside the same script run eagerly and as
``tenferro.jit`` (issue 22: lazy within 1.5x of jit; ``asv_bench/compare_lazy.py``
prints the three and their ratios)."""
import numpy as np

from .common import N_THREADS, get_array

import tenferro as tf   # (common puts an in-place build on sys.path)

N = 10**6
OPS = 20
MODES = ["eager", "lazy", "jit"]


def script(x):
    """20 elementwise ops, written as an eager script would."""
    y = x * 1.5
    y = y + 0.25
    y = tf.sin(y)
    y = y * y
    y = y - 0.5
    y = tf.exp(y)
    y = y / 3.0
    y = tf.tanh(y)
    y = y + x
    y = tf.abs(y)
    y = y + 1.0
    y = tf.sqrt(y)
    y = y * 0.75
    y = tf.cos(y)
    y = y - x
    y = tf.maximum(y, 0.1)
    y = tf.log(y)
    y = y * 2.0
    y = -y
    return y + 1.0


def make_input(n):
    return tf.asarray(np.array(get_array(n, "float64", "uniform", 7)))


def runner(mode, x):
    """A function running the script once in ``mode``, its result computed."""
    if mode == "eager":
        return lambda: script(x)
    if mode == "lazy":
        def run():
            with tf.lazy():
                y = script(x)
            return y
        return run
    jitted = tf.jit(script)
    return lambda: jitted(x)


class Lazy:
    """Time of the script per mode (the lazy run includes recording, the cache lookup
    of its compiled program and the run)."""
    params = MODES
    param_names = ["mode"]

    def setup(self, mode):
        tf.set_num_threads(N_THREADS)
        self.run = runner(mode, make_input(N))
        self.run()

    def time_script(self, mode):
        self.run()


class LazyRecord:
    """Per-call cost of lazy mode on 4 elements: recording 20 ops, the cache lookup,
    running the program (the overhead the 10^6 case adds to jit)."""

    def setup(self):
        self.run = runner("lazy", make_input(4))
        self.run()

    def time_script(self):
        self.run()
