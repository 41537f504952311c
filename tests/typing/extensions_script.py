"""A typed user script over tenferro's extensions (beside user_script.py and
everyday_script.py): ``tenferro.special``, ``tenferro.fft``, ``vmap`` with the
autodiff transforms, the structural functions (diff, roll, repeat, insert, ...) and
the index types ``Tensor.__getitem__``/``__setitem__`` take.  ``mypy --strict`` must
accept it (tests/test_packaging.py) and it must run, its asserts holding."""
import numpy as np

import tenferro as tf
import tenferro.fft as tfft
import tenferro.special as sp


def special(x: tf.Tensor) -> None:
    assert float(abs(sp.erf(x) + sp.erfc(x) - 1.0).max()) < 1e-12
    assert float(abs(sp.erfinv(sp.erf(x)) - x).max()) < 1e-10
    assert float(sp.gammaln(1.0)) == 0.0 == float(sp.betaln(1.0, 1.0))
    assert sp.digamma(x + 1.0).shape == (4,) and sp.psi(2.0).ndim == 0
    assert sp.polygamma(1, x + 1.0).shape == (4,) and sp.polygamma([0, 1], 2.0).shape == (2,)
    assert float(sp.gammainc(2.0, 1.0) + sp.gammaincc(2.0, 1.0)) == 1.0
    assert float(abs(sp.expit(sp.logit(x / 2.0 + 0.25)) - (x / 2.0 + 0.25)).max()) < 1e-12
    assert sp.log_expit(x).shape == (4,) and float(sp.xlogy(0.0, 0.0)) == 0.0
    assert sp.xlog1py(x, x).shape == (4,) and float(sp.entr(1.0)) == 0.0
    assert float(sp.rel_entr(1.0, 1.0)) == 0.0 and float(sp.kl_div(1.0, 1.0)) == 0.0
    assert float(sp.sinc(0.0)) == 1.0 and float(sp.i0(0.0)) == 1.0
    assert float(sp.i0e(0.0)) == 1.0 and float(sp.i1(0.0)) == 0.0 == float(sp.i1e(0.0))
    m = x.reshape(2, 2)
    lse: tf.Tensor = sp.logsumexp(m, axis=1)
    value, sign = sp.logsumexp(m, axis=(0, 1), b=[[1.0, -1.0], [1.0, 1.0]], return_sign=True)
    assert lse.shape == (2,) and value.ndim == 0 and float(sign) == 1.0
    assert float(abs(sp.softmax(m, axis=1).sum(axis=1) - 1.0).max()) < 1e-12
    assert float(abs(tf.exp(sp.log_softmax(x)) - sp.softmax(x)).max()) < 1e-12
    assert tf.grad(lambda v: sp.gammaln(v).sum())(x + 1.0).shape == (4,)


def fft(x: tf.Tensor) -> None:
    f = tfft.fft(x, norm="ortho")
    assert float(abs(tfft.ifft(f, norm="ortho") - x).max()) < 1e-12
    r = tfft.rfft(x, n=8, axis=-1, workers=1)
    assert r.shape == (5,) and tfft.irfft(r, n=8).shape == (8,)
    m = x.reshape(2, 2)
    assert tfft.fft2(m, axes=(0, 1)).shape == (2, 2) and tfft.ifftn(m, s=(4, 2)).shape == (4, 2)
    assert tfft.rfftn(m, axes=1).shape == (2, 2) and tfft.hfft(x).shape == (6,)
    assert float(abs(tfft.idct(tfft.dct(x, type=2), type=2) - x).max()) < 1e-12
    assert tfft.dstn(m, norm="forward").shape == (2, 2)
    assert tfft.fftfreq(4, d=0.5).shape == (4,) and tfft.rfftfreq(4, dtype=tf.float32).ndim == 1
    assert tfft.fftshift(x, axes=0).shape == (4,) and tfft.ifftshift(m).shape == (2, 2)
    n: int = tfft.next_fast_len(7, real=True)
    assert n >= 7 and tfft.prev_fast_len(7) <= 7
    power = tf.grad(lambda v: (abs(tfft.rfft(v)) ** 2).sum())(x)
    assert power.shape == (4,)


def batching(x: tf.Tensor) -> None:
    def f(v: tf.Tensor) -> tf.Tensor:
        return (tf.sin(v) * v).sum()

    xs = tf.stack([x, 2.0 * x])
    per_row: tf.Tensor = tf.vmap(f)(xs)
    grads: tf.Tensor = tf.vmap(tf.grad(f))(xs)
    assert per_row.shape == (2,) and grads.shape == (2, 4)
    assert float(abs(grads[1] - tf.grad(f)(2.0 * x)).max()) < 1e-12
    outer = tf.vmap(lambda a, b: a * b, in_axes=(0, None))(xs, x)
    assert outer.shape == (2, 4)
    assert tf.vmap(sp.expit)(xs).shape == (2, 4) and tf.vmap(tfft.fft)(xs).shape == (2, 4)


def structural(x: tf.Tensor) -> None:
    assert tf.diff(x).shape == (3,) and tf.diff(x, n=2, prepend=0.0).shape == (3,)
    assert tf.ediff1d(x, to_begin=[0.0]).shape == (4,)
    g: tf.Tensor = tf.gradient(x)
    assert g.shape == (4,) and len(tf.gradient(x.reshape(2, 2))) == 2
    assert tf.roll(x, 1).shape == (4,) and tf.roll(x.reshape(2, 2), (1, 1), axis=(0, 1)).ndim == 2
    assert tf.repeat(x, 2).shape == (8,) and tf.repeat(x, [1, 0, 2, 1]).shape == (4,)
    assert tf.tile(x, (2, 1)).shape == (2, 4)
    m = x.reshape(2, 2)
    assert tf.flipud(m).shape == tf.fliplr(m).shape == tf.rot90(m, k=3, axes=(1, 0)).shape
    assert tf.append(x, [5.0]).shape == (5,) and tf.insert(x, 1, 9.0).shape == (5,)
    assert tf.insert(m, [0, 2], 0.0, axis=1).shape == (2, 4)
    assert tf.delete(x, slice(0, 2)).shape == (2,) and tf.delete(x, np.array([0])).shape == (3,)


def indexing(x: tf.Tensor) -> None:
    m = tf.zeros((3, 4))
    rows = [0, 2]
    key: tuple[int | slice, ...] = (0, slice(1, None))
    picked = [m[0], m[-1, ::2], m[..., None], m[None, ..., 0], m[rows], m[:, rows],
              m[np.array([1, 2])], m[np.int64(1)], m[tf.asarray([0])], m[m > 0], m[key],
              m[[[0], [1]]], m[[True, False, True]]]
    assert [p.ndim for p in picked] == [1, 1, 3, 2, 2, 2, 2, 1, 2, 1, 1, 3, 2]
    m[key] = x[1:]
    m[rows, 0] = np.array([1.0, 2.0])
    m[m > 2.0] = 0.0
    m[..., -1] = x[:3]
    assert abs(float(m.sum()) - 4.9) < 1e-12


def main() -> None:
    x = tf.asarray([0.1, 0.4, 0.5, 0.9])
    special(x)
    fft(x)
    batching(x)
    structural(x)
    indexing(x)


if __name__ == "__main__":
    main()
