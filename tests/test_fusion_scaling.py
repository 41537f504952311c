"""The fuse pass costs time linear in the graph's size.

A traced ODE integrator unrolls into thousands of nodes, most of them elementwise and
cut into many fused groups.  Finding a group's outputs used to scan the whole graph
once per group (and per split of a group), so compiling the gradient of a 40-step
Runge-Kutta loop (8475 nodes) took 43 s on the 2-core development machine; with the
readers of each value indexed once it takes about 2 s.
"""
import time

import numpy as np

import tenferro as tf
from tenferro.graph.fusion import elementwise_fusion


def _rk4_loss(steps):
    dt = 0.1

    def rhs(x, y, p):
        return p[0] * x - p[1] * x * y, p[2] * x * y - p[3] * y

    def loss(p):
        x, y = tf.asarray(10.0), tf.asarray(5.0)
        total = 0.0
        for _ in range(steps):
            k1 = rhs(x, y, p)
            k2 = rhs(x + 0.5 * dt * k1[0], y + 0.5 * dt * k1[1], p)
            k3 = rhs(x + 0.5 * dt * k2[0], y + 0.5 * dt * k2[1], p)
            k4 = rhs(x + dt * k3[0], y + dt * k3[1], p)
            x = x + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            y = y + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
            total = total + x * x + y
        return total
    return loss


def test_fusing_a_long_unrolled_gradient_is_fast_and_exact():
    p = tf.asarray([1.1, 0.4, 0.1, 0.4])
    loss = _rk4_loss(40)
    graph = tf.make_graph(tf.value_and_grad(loss), p)
    assert len(graph.nodes) > 5000
    t0 = time.perf_counter()
    fused = elementwise_fusion(graph)
    took = time.perf_counter() - t0
    assert took < 10.0, "fusing %d nodes took %.1f s" % (len(graph.nodes), took)
    assert sum(n.prim.name == "fused_elementwise" for n in fused.nodes) > 100
    value, grad = tf.jit(tf.value_and_grad(loss))(p)
    ref_value, ref_grad = tf.value_and_grad(loss)(p)
    np.testing.assert_allclose(value.numpy(), ref_value.numpy(), rtol=1e-12)
    np.testing.assert_allclose(grad.numpy(), ref_grad.numpy(), rtol=1e-10)
