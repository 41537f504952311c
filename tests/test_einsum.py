"""``tenferro.einsum`` against ``numpy.einsum(..., optimize=False)``: NumPy's whole grammar
(implicit and explicit outputs, ``...``, repeated labels, size-1 broadcasting, the
interleaved form), diagonal embedding (``i->ii``, which NumPy rejects), every ``optimize``
variant, ``einsum_path``, dtypes (promotion, exact integers, ``dtype=``, ``out=``), layouts,
errors, the plan cache, random expressions (hypothesis) and autodiff (gradcheck)."""
import re

import numpy as np
import opt_einsum as oe
import pytest

import tenferro as tf
from tenferro import autograd

from conftest import assert_close, random_array

F32, F64 = np.dtype("float32"), np.dtype("float64")
C64, C128 = np.dtype("complex64"), np.dtype("complex128")

# (rtol, atol-per-unit-of-scale); atol is scaled by the largest |term| sum (see _tol)
TOL = {F32: (2e-5, 2e-6), C64: (2e-5, 2e-6), F64: (1e-12, 1e-13), C128: (1e-12, 1e-13)}


def _tol(subs, arrays, dtype):
    """Tolerances for an einsum in ``dtype``: the absolute one grows with the sum of the
    magnitudes of the terms (cancellation), computed by einsum on |x|."""
    d = np.dtype(dtype)
    if d.kind not in "fc":
        return {}
    rt, at = TOL.get(d, TOL[F64])
    scale = 1.0
    try:
        mags = [np.abs(a).astype(np.float64) for a in arrays]
        s = np.einsum(subs, *mags, optimize=False) if isinstance(subs, str) else \
            np.einsum(*_interleave(mags, subs), optimize=False)
        if np.size(s):
            scale = max(1.0, float(np.max(s)))
    except Exception:  # (embedding: NumPy cannot say; the caller passes expected)
        pass
    return {"rtol": rt, "atol": at * scale}


def _interleave(arrays, spec):
    subs, out = spec
    args = [x for pair in zip(arrays, subs) for x in pair]
    return args + ([out] if out is not None else [])


def arrays_for(shapes, dtype, seed=0):
    return [random_array(s, dtype, seed=seed + 17 * i) for i, s in enumerate(shapes)]


def check(subs, arrays, tensors=None, expected=None, tol_subs=None, **kw):
    """tf.einsum(subs, *tensors, **kw) equals numpy.einsum(subs, *arrays) (or expected)."""
    ts = tensors if tensors is not None else [tf.asarray(a) for a in arrays]
    got = tf.einsum(subs, *ts, **kw)
    if expected is None:
        expected = np.einsum(subs, *arrays, optimize=False)
    expected = np.asarray(expected)
    assert_close(got, expected, **_tol(tol_subs or subs, arrays, expected.dtype))
    return got


# -- the table -------------------------------------------------------------------------

CASES = [
    # classic matrix / vector products, implicit and explicit
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("ij,j", [(3, 4), (4,)]),
    ("j,ij->i", [(4,), (3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,i", [(5,), (5,)]),
    ("i,i->i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,j", [(3,), (4,)]),
    ("j,i", [(3,), (4,)]),
    ("i,j->ji", [(3,), (4,)]),
    ("ij->ji", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("i->", [(5,)]),
    ("i->i", [(5,)]),
    ("i", [(5,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("ij,ji->", [(3, 4), (4, 3)]),
    ("ij,ji->ij", [(3, 4), (4, 3)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ji,jk->ik", [(4, 3), (4, 5)]),
    ("ji,kj->ki", [(4, 3), (5, 4)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("ijk,jk->i", [(2, 3, 4), (3, 4)]),
    ("ijk,kl->ijl", [(2, 3, 4), (4, 5)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("ijk,lkj->il", [(2, 3, 4), (5, 4, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ijkl->ljki", [(2, 3, 4, 5)]),
    ("ijkl->jl", [(2, 3, 4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("i,ij,j->", [(3,), (3, 4), (4,)]),
    ("ij,i,j->ij", [(3, 4), (3,), (4,)]),
    ("ijk,ijk->k", [(2, 3, 4), (2, 3, 4)]),
    ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    ("ab,ab,ab->ab", [(3, 4), (3, 4), (3, 4)]),
    # batched, with a broadcast (size-1) batch label
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bjk->bik", [(1, 3, 4), (3, 4, 5)]),
    ("bij,bjk->bik", [(3, 3, 4), (1, 4, 5)]),
    ("bij,bjk->bki", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bjk->ik", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bjk->b", [(2, 3, 4), (2, 4, 5)]),
    ("bij,jk->bik", [(2, 3, 4), (4, 5)]),
    ("bij,bjk", [(2, 3, 4), (2, 4, 5)]),
    ("bhij,bhjk->bhik", [(2, 1, 3, 4), (1, 3, 4, 2)]),
    # size-1 broadcasting of a contracted / kept label
    ("ij,jk->ik", [(3, 1), (4, 5)]),
    ("ij,jk->ik", [(3, 4), (1, 5)]),
    ("i,i->i", [(1,), (5,)]),
    ("i,i->", [(5,), (1,)]),
    ("ij,ij->ij", [(3, 1), (1, 4)]),
    # traces and diagonals
    ("ii->", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iij->ij", [(3, 3, 4)]),
    ("iij->ji", [(3, 3, 4)]),
    ("iij", [(3, 3, 4)]),
    ("iji->j", [(3, 4, 3)]),
    ("jii->ij", [(4, 3, 3)]),
    ("ijij->ij", [(2, 3, 2, 3)]),
    ("ijji->", [(2, 3, 3, 2)]),
    ("iii->i", [(3, 3, 3)]),
    ("iii->", [(3, 3, 3)]),
    ("ii,jj->ij", [(3, 3), (4, 4)]),
    ("ii,ij->j", [(3, 3), (3, 4)]),
    ("iij,jk->ik", [(3, 3, 4), (4, 5)]),
    ("ij,jj->i", [(3, 4), (4, 4)]),
    ("ii,ii->i", [(3, 3), (3, 3)]),
    # outer products
    ("i,j,k->ijk", [(4,), (5,), (2,)]),
    ("ij,kl->ijkl", [(2, 3), (4, 5)]),
    ("ij,kl->kilj", [(2, 3), (4, 5)]),
    ("ij,kl", [(2, 3), (4, 5)]),
    ("a,b,c,d->dcba", [(2,), (3,), (2,), (3,)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    # ellipsis
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ij,...jk->...ik", [(3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(1, 3, 4), (2, 4, 5)]),
    ("...ij,jk->...ik", [(2, 3, 3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 3, 4), (2, 4, 5)]),
    ("...ij->...ji", [(2, 3, 4)]),
    ("...ij->...", [(2, 3, 4)]),
    ("i...->...", [(3, 4, 5)]),
    ("i...->...i", [(3, 4, 5)]),
    ("i...", [(3, 4, 5)]),
    ("...i->...", [(3, 4, 5)]),
    ("...->...", [(2, 3)]),
    ("...", [(2, 3)]),
    ("...->...", [()]),
    ("...,...->...", [(3, 4), (4,)]),
    ("...,...->...", [(), (3,)]),
    ("...,...", [(2, 1), (3,)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("...ii->...", [(2, 3, 3)]),
    ("i...i", [(3, 2, 3)]),
    ("i...i->...i", [(3, 2, 3)]),
    ("ij...,jk...->ik...", [(3, 4, 2), (4, 5, 2)]),
    ("a...,...b->...ab", [(2, 3), (3, 4)]),
    ("...j,j", [(2, 3, 4), (4,)]),
    ("...j,j->...", [(2, 3, 4), (4,)]),
    ("i...j,j...k->...ik", [(2, 3, 4), (4, 3, 5)]),
    ("...ij,...jk->...ik", [(3, 4), (4, 5)]),
    ("ij...,...->ij...", [(2, 3), ()]),
    # tensor networks, 3-8 operands
    ("ai,ibj,jck,kd->abcd", [(2, 3), (3, 2, 4), (4, 2, 3), (3, 2)]),
    ("ai,ibj,jck,kdl,lem,mf->abcdef",
     [(2, 3), (3, 2, 3), (3, 2, 4), (4, 2, 3), (3, 2, 2), (2, 2)]),
    ("ai,ibj,jc,ak,kbl,lc->",  # an MPS norm: bra and ket
     [(2, 3), (3, 2, 4), (4, 2), (2, 3), (3, 2, 4), (4, 2)]),
    ("aij,bjk,ckl,dli->abcd", [(2, 3, 4), (2, 4, 3), (2, 3, 2), (2, 2, 3)]),  # PEPS-like ring
    ("ij,jk,kl,lm,mn,no,op,pi->",  # a ring of 8: the trace of a product
     [(2, 3), (3, 2), (2, 4), (4, 2), (2, 3), (3, 3), (3, 2), (2, 2)]),
    ("aij,bjk,ckl,dlm,emn,fno,gop,hpi->abcdefgh",
     [(2, 2, 3), (2, 3, 2), (2, 2, 2), (2, 2, 3), (2, 3, 2), (2, 2, 2), (2, 2, 2), (2, 2, 2)]),
    ("ad,abe,bf,dc,ecg,fg->",  # a closed 2x3 grid
     [(2, 3), (2, 3, 2), (3, 4), (3, 2), (2, 2, 3), (4, 3)]),
    ("pad,qabe,rbf,sdc,tecg,ufg->pqrstu",  # the same grid with physical legs
     [(2, 2, 3), (2, 2, 3, 2), (2, 3, 2), (2, 3, 2), (2, 2, 2, 3), (2, 2, 3)]),
    ("ab,bc,cd,de,ef->af", [(2, 3), (3, 4), (4, 2), (2, 3), (3, 4)]),
    ("ab,bc,cd,de,ef,fg,gh->ah", [(2, 3), (3, 2), (2, 4), (4, 3), (3, 2), (2, 3), (3, 2)]),
    ("ai,bi,ci->abc", [(2, 4), (3, 4), (2, 4)]),  # a hyperedge
    ("ai,bi,ci,di->", [(2, 4), (3, 4), (2, 4), (3, 4)]),
    ("ab,bc,ca", [(2, 3), (3, 4), (4, 2)]),
    ("abc,bcd,cde,def->af", [(2, 3, 2), (3, 2, 3), (2, 3, 2), (3, 2, 4)]),
    ("ijk,jkl,klm,lmi->", [(2, 3, 2), (3, 2, 2), (2, 2, 3), (2, 3, 2)]),
    ("xai,yibj,jc,zck->xyzabk", [(2, 2, 3), (2, 3, 2, 4), (4, 2), (2, 2, 3)]),
    # empty dimensions
    ("ij,jk->ik", [(0, 3), (3, 4)]),
    ("ij,jk->ik", [(3, 0), (0, 4)]),
    ("ij,jk->", [(3, 0), (0, 4)]),
    ("ij->", [(0, 3)]),
    ("ij->j", [(0, 3)]),
    ("ii->i", [(0, 0)]),
    ("ii->", [(0, 0)]),
    ("i,j->ij", [(0,), (3,)]),
    ("bij,bjk->bik", [(0, 2, 3), (0, 3, 2)]),
    ("...ij,...jk->...ik", [(0, 2, 3), (1, 3, 2)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 0), (0, 2)]),
    # 0-d operands
    (",->", [(), ()]),
    (",", [(), ()]),
    (",ij->ij", [(), (3, 4)]),
    ("ij,->ij", [(3, 4), ()]),
    ("i,->i", [(3,), ()]),
    (",i->", [(), (3,)]),
    ("->", [()]),
    ("", [()]),
    (",,->", [(), (), ()]),
    # implicit output: labels seen once, alphabetically, uppercase before lowercase
    ("ba", [(3, 4)]),
    ("cb,ba", [(3, 4), (4, 5)]),
    ("Ba,aC", [(3, 4), (4, 5)]),
    ("bA,Cb", [(3, 4), (5, 3)]),
    ("zA,Ab", [(3, 4), (4, 5)]),
    ("zB,Bc,cA", [(2, 3), (3, 4), (4, 5)]),
    ("iI", [(3, 4)]),
    ("Ii", [(3, 4)]),
    ("aA,Ab,bB", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,kl", [(2, 3), (3, 4), (4, 5)]),
    ("kj,ji", [(2, 3), (3, 4)]),
    # whitespace is ignored, as NumPy does
    ("ij, jk -> ik", [(3, 4), (4, 5)]),
]

IDS = ["%s|%s" % (s, ",".join("x".join(map(str, sh)) or "()" for sh in shapes))
       for s, shapes in CASES]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("subs,shapes", CASES, ids=IDS)
def test_vs_numpy(subs, shapes, dtype):
    check(subs, arrays_for(shapes, dtype, seed=len(subs)))


# a subset for the other dtypes: float32 (loose tolerance), exact integers and bool
SUBSET = [c for c in CASES if c[0] in (
    "ij,jk->ik", "ij,j->i", "i,i->", "i,j->ij", "ij->ji", "ij->", "bij,bjk->bik", "ii->",
    "ii->i", "iij->ij", "ijij->ij", "...ij,...jk->...ik", "i...->...", "...,...->...",
    "ai,ibj,jck,kd->abcd", "aij,bjk,ckl,dli->abcd", "ab,bc,cd,de,ef->af", ",ij->ij", "ij->j",
    "Ba,aC", "ai,bi,ci->abc", "ij,jk,kl->il", "bij,bjk")]
SUBSET_IDS = ["%s|%s" % (s, ",".join("x".join(map(str, sh)) or "()" for sh in shapes))
              for s, shapes in SUBSET]


@pytest.mark.parametrize("dtype", ["float32", "complex64", "int32", "int64", "bool"])
@pytest.mark.parametrize("subs,shapes", SUBSET, ids=SUBSET_IDS)
def test_vs_numpy_other_dtypes(subs, shapes, dtype):
    arrays = arrays_for(shapes, dtype, seed=3)
    got = check(subs, arrays)
    assert got.dtype == np.einsum(subs, *arrays, optimize=False).dtype


def test_integer_results_are_exact():
    # values where a float64 accumulation would lose the low bits
    a = np.full((4, 3), 2 ** 40 + 1, np.int64)
    b = np.full((3, 2), 2 ** 12 + 3, np.int64)
    check("ij,jk->ik", [a, b])
    check("ij,jk->", [a, b])
    i = np.array([[2 ** 30, 3], [5, -(2 ** 30)]], np.int64)
    check("ij,jk,kl->il", [i, i, i])
    # bool: NumPy's einsum is an OR of ANDs and stays bool
    p = random_array((5, 6), "bool", seed=1)
    q = random_array((6, 7), "bool", seed=2)
    got = check("ij,jk->ik", [p, q])
    assert got.dtype == np.dtype(bool)
    check("ij->", [p])
    check("ii->i", [random_array((4, 4), "bool", seed=3)])


# -- dtypes: promotion, dtype=, out= -----------------------------------------------------

MIXED = [("bool", "int32"), ("bool", "float64"), ("int32", "int64"), ("int32", "float32"),
         ("int64", "float32"), ("float32", "float64"), ("float32", "complex64"),
         ("float64", "complex64"), ("int32", "complex64"), ("bool", "complex128"),
         ("int64", "float64")]


@pytest.mark.parametrize("da,db", MIXED)
def test_mixed_dtype_promotion(da, db):
    a = random_array((3, 4), da, seed=1)
    b = random_array((4, 5), db, seed=2)
    for subs in ("ij,jk->ik", "ij,jk->", "ij,jk->ijk"):
        want = np.einsum(subs, a, b, optimize=False)
        got = check(subs, [a, b])
        assert got.dtype == want.dtype == np.result_type(a, b)
    # three operands of three dtypes
    c = random_array((5,), "float32", seed=3)
    check("ij,jk,k->i", [a, b, c])


@pytest.mark.parametrize("dtype,src", [("float32", "float64"), ("float64", "int32"),
                                       ("complex128", "float64"), ("int64", "bool"),
                                       ("float64", "bool"), ("complex64", "int64"),
                                       ("complex128", "complex64")])
def test_dtype_argument_casts_operands_first(dtype, src):
    a = random_array((3, 4), src, seed=5)
    b = random_array((4, 5), src, seed=6)
    if np.dtype(src).kind == "c" and np.dtype(dtype).kind != "c":
        pytest.skip("complex -> real casts drop the imaginary part: not a same-kind cast")
    exp = np.einsum("ij,jk->ik", a.astype(dtype), b.astype(dtype), optimize=False)
    got = check("ij,jk->ik", [a, b], expected=exp, tol_subs="ij,jk->ik", dtype=dtype,
                casting="unsafe")
    assert got.dtype == np.dtype(dtype)
    # NumPy's einsum with dtype= (unsafe casting) agrees
    np_exp = np.einsum("ij,jk->ik", a, b, dtype=dtype, casting="unsafe", optimize=False)
    assert_close(got, np_exp, **_tol("ij,jk->ik", [a, b], np.dtype(dtype)))


def test_dtype_argument_spellings():
    a = random_array((3, 4), "float64", seed=1)
    for d in ("float32", np.float32, np.dtype("float32"), tf.float32):
        got = tf.einsum("ij->i", tf.asarray(a), dtype=d, casting="same_kind")
        assert got.dtype == np.dtype("float32")
        assert_close(got, a.astype(np.float32).sum(1), rtol=1e-5, atol=1e-5)


def test_out_argument():
    a = random_array((3, 4), "float64", seed=1)
    b = random_array((4, 5), "float64", seed=2)
    out = tf.zeros((3, 5))
    r = tf.einsum("ij,jk->ik", tf.asarray(a), tf.asarray(b), out=out)
    assert r is out
    assert_close(out, a @ b)
    # into a wider (same-kind) dtype
    outc = tf.zeros((3, 5), dtype=tf.complex128)
    tf.einsum("ij,jk->ik", tf.asarray(a), tf.asarray(b), out=outc)
    assert_close(outc, (a @ b).astype(np.complex128))
    # a 0-d result
    out0 = tf.zeros(())
    tf.einsum("ij,ij->", tf.asarray(a), tf.asarray(a), out=out0)
    assert_close(out0, np.sum(a * a))
    # with dtype= as well
    out32 = tf.zeros((3, 5), dtype=tf.float32)
    tf.einsum("ij,jk->ik", tf.asarray(a), tf.asarray(b), out=out32, dtype="float32",
              casting="same_kind")
    assert_close(out32, (a.astype(np.float32) @ b.astype(np.float32)), rtol=1e-5, atol=1e-5)
    # an embedding written into out
    v = random_array((3,), "float64", seed=3)
    outd = tf.ones((3, 3))
    tf.einsum("i->ii", tf.asarray(v), out=outd)
    assert_close(outd, np.diag(v))


def test_out_argument_errors():
    a = tf.asarray(random_array((3, 4), "float64", seed=1))
    b = tf.asarray(random_array((4, 5), "float64", seed=2))
    with pytest.raises(ValueError, match="shape"):
        tf.einsum("ij,jk->ik", a, b, out=tf.zeros((5, 3)))
    with pytest.raises(TypeError, match="cannot cast the result from float64 to out's dtype int64"):
        tf.einsum("ij,jk->ik", a, b, out=tf.zeros((3, 5), dtype=tf.int64))


# -- layouts -------------------------------------------------------------------------------

def test_noncontiguous_and_negative_strides():
    x = random_array((6, 8), "complex128", seed=1)
    y = random_array((8, 6), "complex128", seed=2)
    tx, ty = tf.asarray(x), tf.asarray(y)
    # tensor views: transposes, steps, negative steps
    check("ij,jk->ik", [x.T, y.T], tensors=[tx.T, ty.T])
    check("ij,jk->ik", [x[::-1, ::2], y[::2, ::-1]], tensors=[tx[::-1, ::2], ty[::2, ::-1]])
    check("ij,jk->ik", [x[::-1, ::-1], y], tensors=[tx[::-1, ::-1], ty])
    check("ii->i", [x[:, ::-1][:6, 2:]], tensors=[tx[:, ::-1][:6, 2:]])
    check("ii->", [x[::-1, 1:7]], tensors=[tx[::-1, 1:7]])
    check("ij->ji", [x[1::2, ::-3]], tensors=[tx[1::2, ::-3]])
    check("bij,bjk->bik", [x.reshape(2, 3, 8)[:, ::-1], y.reshape(2, 8, 3)[::-1, :, ::2]],
          tensors=[tx.reshape((2, 3, 8))[:, ::-1], ty.reshape((2, 8, 3))[::-1, :, ::2]])
    check("...ij,...jk->...ik", [x[None], y[::-1]], tensors=[tx[None], ty[::-1]])
    # NumPy views handed to tf.asarray
    check("ij,jk->ik", [x[::-1, ::2], y[::2, ::-1]])
    check("ij,jk->ik", [np.asfortranarray(x), y.T.copy().T])
    # zero strides (broadcast views)
    row = random_array((1, 8), "float64", seed=3)
    check("ij,jk->ik", [np.broadcast_to(row, (5, 8)), y.real],
          tensors=[tf.broadcast_to(tf.asarray(row), (5, 8)), tf.asarray(y.real)])
    # the same tensor twice
    check("ij,jk->ik", [x, x.T], tensors=[tx, tx.T])
    check("ij,ij->", [x, x], tensors=[tx, tx])


def test_operands_are_not_modified_and_result_is_fresh():
    a = random_array((3, 3), "float64", seed=1)
    ta = tf.asarray(a)
    r = tf.einsum("ij->ij", ta)
    assert_close(r, a)
    d = tf.einsum("ii->i", ta)
    assert_close(d, np.diag(a))
    assert_close(ta, a)


def test_accepts_numpy_arrays_and_scalars():
    a = random_array((3, 4), "float64", seed=1)
    b = random_array((4,), "float64", seed=2)
    got = tf.einsum("ij,j->i", a, b)
    assert isinstance(got, tf.Tensor)
    assert_close(got, a @ b)
    assert_close(tf.einsum(",i->i", 2.0, tf.asarray(b)), 2.0 * b)


# -- interleaved form ---------------------------------------------------------------------

def test_interleaved_form():
    a = random_array((3, 4), "float64", seed=1)
    b = random_array((4, 5), "float64", seed=2)
    c = random_array((2, 3, 4), "complex128", seed=3)
    ta, tb, tc = tf.asarray(a), tf.asarray(b), tf.asarray(c)
    assert_close(tf.einsum(ta, [0, 1], tb, [1, 2], [0, 2]), np.einsum(a, [0, 1], b, [1, 2], [0, 2]))
    assert_close(tf.einsum(ta, [0, 1], tb, [1, 2]), np.einsum(a, [0, 1], b, [1, 2]))
    assert_close(tf.einsum(ta, [0, 1], tb, [1, 2], [2, 0]), a.dot(b).T)
    assert_close(tf.einsum(ta, [0, 1], [1, 0]), a.T)
    assert_close(tf.einsum(ta, [1, 0]), np.einsum(a, [1, 0]))  # implicit: sorted -> transpose
    assert_close(tf.einsum(ta, [0, 1], []), np.array(a.sum()), rtol=1e-12, atol=1e-12)
    sq = random_array((4, 4), "float64", seed=4)
    assert_close(tf.einsum(tf.asarray(sq), [0, 0], [0]), np.diag(sq))
    assert_close(tf.einsum(tf.asarray(sq), [0, 0]), np.array(np.trace(sq)), rtol=1e-12)
    # Ellipsis in sublists, with broadcasting
    d = random_array((1, 4, 5), "float64", seed=5)
    exp = np.einsum(c, [Ellipsis, 0, 1], d, [Ellipsis, 1, 2], [Ellipsis, 0, 2])
    assert_close(tf.einsum(tc, [Ellipsis, 0, 1], tf.asarray(d), [Ellipsis, 1, 2],
                           [Ellipsis, 0, 2]), exp, rtol=1e-12, atol=1e-12)
    assert_close(tf.einsum(tc, [0, Ellipsis], [Ellipsis]), c.sum(0), rtol=1e-12, atol=1e-12)
    # tuples and NumPy integers as labels; labels above 52 (NumPy's limit)
    assert_close(tf.einsum(ta, (np.int64(0), np.int32(1)), tb, (1, 2), (0, 2)), a @ b,
                 rtol=1e-12, atol=1e-12)
    assert_close(tf.einsum(ta, [100, 2000], tb, [2000, 7], [100, 7]), a @ b,
                 rtol=1e-12, atol=1e-12)
    # three operands with optimize
    e = random_array((5, 2), "float64", seed=6)
    for opt in (False, "greedy", "optimal"):
        assert_close(tf.einsum(ta, [0, 1], tb, [1, 2], tf.asarray(e), [2, 3], [0, 3],
                               optimize=opt), a @ b @ e, rtol=1e-12, atol=1e-12)
    # embedding in the interleaved form
    v = random_array((3,), "float64", seed=7)
    assert_close(tf.einsum(tf.asarray(v), [0], [0, 0]), np.diag(v))


# -- diagonal embedding (NumPy rejects a label repeated in the output) ---------------------

def embed_reference(subs, *arrays):
    """The einsum with a repeated output label: zeros, with the values of the einsum to
    the unique labels written on the diagonal (through NumPy's writeable einsum views)."""
    lhs, out = subs.replace(" ", "").split("->")
    uniq = "".join(dict.fromkeys(out.replace("...", "")))
    ell = "..." in out
    short = ("..." if ell else "") + uniq
    reduced = np.einsum(lhs + "->" + short, *arrays, optimize=False)
    size = {}
    terms = lhs.split(",")
    for t, a in zip(terms, arrays):
        named = t.replace("...", "")
        if "..." in t:
            k = t.index("...")
            nb = a.ndim - len(named)
            dims = list(a.shape[:k]) + list(a.shape[k + nb:])
        else:
            dims = list(a.shape)
        for l, n in zip(named, dims):
            if size.get(l, 1) == 1:
                size[l] = n
    batch = reduced.shape[:reduced.ndim - len(uniq)] if ell else ()
    if ell:
        k = out.index("...")
        named_out = out.replace("...", "")
        shape = tuple(size[l] for l in named_out[:k]) + batch + \
            tuple(size[l] for l in named_out[k:])
    else:
        shape = tuple(size[l] for l in out)
    res = np.zeros(shape, reduced.dtype)
    view = np.einsum(out + "->" + short, res)
    view[...] = reduced
    return res


EMBED = [
    ("i->ii", [(4,)]),
    ("i->iii", [(3,)]),
    ("ij->iij", [(3, 4)]),
    ("ij->iji", [(3, 4)]),
    ("ij->ijij", [(2, 3)]),
    ("ij->jii", [(3, 4)]),
    ("ii->ii", [(4, 4)]),
    ("ij->ii", [(3, 4)]),
    ("ij,jk->iik", [(3, 4), (4, 5)]),
    ("ij,jk->ikik", [(2, 4), (4, 3)]),
    ("i,j->iijj", [(2,), (3,)]),
    ("...i->...ii", [(2, 3, 4)]),
    ("i...->i...i", [(3, 2)]),
    ("ij,ij->ii", [(3, 4), (3, 4)]),
    ("i,i->ii", [(3,), (1,)]),
]


@pytest.mark.parametrize("dtype", ["float64", "complex128", "int64", "bool"])
@pytest.mark.parametrize("subs,shapes", EMBED, ids=[e[0] for e in EMBED])
def test_diagonal_embedding(subs, shapes, dtype):
    arrays = arrays_for(shapes, dtype, seed=2)
    exp = embed_reference(subs, *arrays)
    lhs = subs.split("->")[0]
    uniq = "".join(dict.fromkeys(subs.split("->")[1].replace("...", "")))
    tol_subs = lhs + "->" + ("..." if "..." in subs.split("->")[1] else "") + uniq
    check(subs, arrays, expected=exp, tol_subs=tol_subs)


def test_diagonal_embedding_named_examples():
    v = np.array([1.0, -2.0, 3.5])
    assert_close(tf.einsum("i->ii", tf.asarray(v)), np.diag(v))
    x = np.arange(6.0).reshape(2, 3) + 1
    exp = np.zeros((2, 2, 3))
    for i in range(2):
        exp[i, i, :] = x[i]
    assert_close(tf.einsum("ij->iij", tf.asarray(x)), exp)
    # embedding a diagonal back: only the diagonal survives
    m = random_array((4, 4), "complex128", seed=1)
    assert_close(tf.einsum("ii->ii", tf.asarray(m)), np.diag(np.diag(m)))
    # empty
    assert_close(tf.einsum("i->ii", tf.asarray(np.zeros(0))), np.zeros((0, 0)))


# -- optimize ------------------------------------------------------------------------------

class _FirstPair(oe.paths.PathOptimizer):
    """Always contracts the first two operands: a PathOptimizer subclass."""

    def __call__(self, inputs, output, size_dict, memory_limit=None):
        return [(0, 1)] * (len(inputs) - 1)


OPTIMIZE = [False, True, "auto", "greedy", "optimal", "dp", "branch-2",
            ["einsum_path", (0, 1), (0, 1), (0, 1)], [(0, 1), (0, 1), (0, 1)],
            ["einsum_path", (2, 3), (0, 2), (0, 1)], [(1, 3), (1, 2), (0, 1)],
            # NumPy's paths may contract one operand alone, or three or four at once
            ["einsum_path", (0, 1, 2, 3)], [(1,), (0, 1, 2), (0, 1)],
            ["einsum_path", (0, 1, 2), (0, 1)],
            "path_object_dp", "path_object_first", "path_object_random"]


def _optimize_value(opt):
    if opt == "path_object_dp":
        return oe.DynamicProgramming()
    if opt == "path_object_first":
        return _FirstPair()
    if opt == "path_object_random":
        return oe.RandomGreedy(max_repeats=4)
    return opt


@pytest.mark.parametrize("opt", OPTIMIZE, ids=str)
@pytest.mark.parametrize("subs,shapes", [
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ai,ibj,jck,kd->abcd", [(2, 3), (3, 2, 4), (4, 2, 3), (3, 2)]),
    ("ab,bc,ca,ad->d", [(3, 4), (4, 2), (2, 3), (3, 5)]),
    ("...ij,...jk,kl,...lm->...im", [(2, 3, 4), (1, 4, 2), (2, 5), (2, 5, 3)]),
    ("iij,jk,kl,ll->il", [(3, 3, 4), (4, 2), (2, 3), (3, 3)]),
])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_every_optimize_variant(subs, shapes, opt, dtype):
    arrays = arrays_for(shapes, dtype, seed=11)
    check(subs, arrays, optimize=_optimize_value(opt))


def test_optimize_on_two_and_one_operands():
    a = random_array((3, 4), "float64", seed=1)
    b = random_array((4, 5), "float64", seed=2)
    for opt in (False, True, "greedy", "optimal", ["einsum_path", (0, 1)], [(0, 1)]):
        check("ij,jk->ik", [a, b], optimize=opt)
    for opt in (False, "greedy", ["einsum_path", (0,)]):
        check("ij->ji", [a], optimize=opt)


def test_optimizer_paths_with_single_operand_steps():
    # opt_einsum's "dp" answers [(1,), (0, 2), (0, 1)]-like paths here (found by hypothesis)
    arrays = [np.array(2.0), np.ones(1), random_array((2, 2), "float64", seed=1)]
    for opt in ("dp", "greedy", "optimal", False):
        check(",a,aa->", arrays, optimize=opt)
    arrays = arrays_for([(2,), (), ()], "float64", seed=2)
    check("a,,->", arrays, optimize="dp")


def test_numpy_paths_are_accepted():
    shapes = [(2, 3), (3, 4), (4, 5), (5, 2), (2, 3)]
    arrays = arrays_for(shapes, "float64", seed=4)
    subs = "ab,bc,cd,de,ef->af"
    for kind in ("greedy", "optimal"):
        path, _ = np.einsum_path(subs, *arrays, optimize=kind)
        check(subs, arrays, optimize=path)
        check(subs, arrays, optimize=path[1:])


# -- einsum_path ---------------------------------------------------------------------------

@pytest.mark.parametrize("opt", ["greedy", "optimal", "dp", "auto", False, True])
def test_einsum_path(opt):
    shapes = [(2, 3), (3, 4), (4, 5), (5, 6)]
    arrays = arrays_for(shapes, "float64", seed=5)
    ts = [tf.asarray(a) for a in arrays]
    subs = "ab,bc,cd,de->ae"
    path, report = tf.einsum_path(subs, *ts, optimize=opt)
    assert isinstance(path, list) and path[0] == "einsum_path"
    n = len(ts)
    for p in path[1:]:
        assert isinstance(p, tuple) and all(isinstance(i, int) for i in p)
        assert len(set(p)) == len(p) and all(0 <= i < n for i in p)
        n -= len(p) - 1
    assert n == 1
    assert isinstance(report, str) and report
    assert "Complete contraction" in report
    # the path works in tenferro and in NumPy
    check(subs, arrays, optimize=path)
    check(subs, arrays, expected=np.einsum(subs, *arrays, optimize=path))


def test_einsum_path_default_is_greedy_and_matches_numpy_shape():
    arrays = arrays_for([(2, 3), (3, 4)], "float64")
    path, report = tf.einsum_path("ij,jk->ik", *[tf.asarray(a) for a in arrays])
    assert path == ["einsum_path", (0, 1)]
    np_path, _ = np.einsum_path("ij,jk->ik", *arrays)
    assert path == np_path


def test_einsum_path_single_operand_like_numpy():
    a = random_array((2, 3), "float64")
    path, report = tf.einsum_path("ij->ji", tf.asarray(a))
    np_path, _ = np.einsum_path("ij->ji", a)
    assert path[0] == "einsum_path"
    assert path == np_path  # ['einsum_path', (0,)]
    assert isinstance(report, str)


def test_einsum_path_optimal_matches_numpy_cost():
    # an asymmetric chain where the order matters: the optimal cost is unique
    shapes = [(10, 2), (2, 10), (10, 2), (2, 10)]
    arrays = arrays_for(shapes, "float64")
    subs = "ab,bc,cd,de->ae"
    path, report = tf.einsum_path(subs, *[tf.asarray(a) for a in arrays], optimize="optimal")
    ref = oe.contract_path(subs, *shapes, shapes=True, optimize="optimal")[1]
    got = oe.contract_path(subs, *shapes, shapes=True, optimize=[p for p in path[1:]])[1]
    assert got.opt_cost == ref.opt_cost


def test_einsum_path_interleaved_and_ellipsis():
    a = random_array((2, 3, 4), "float64", seed=1)
    b = random_array((4, 5), "float64", seed=2)
    c = random_array((5,), "float64", seed=3)
    path, report = tf.einsum_path("...ij,jk,k->...i", tf.asarray(a), tf.asarray(b),
                                  tf.asarray(c))
    assert path[0] == "einsum_path" and len(path) == 3
    path2, _ = tf.einsum_path(tf.asarray(a), [Ellipsis, 0, 1], tf.asarray(b), [1, 2],
                              tf.asarray(c), [2], [Ellipsis, 0])
    assert path2[0] == "einsum_path" and len(path2) == 3


# -- errors --------------------------------------------------------------------------------

def _t(*shape):
    return tf.asarray(np.ones(shape))


ERRORS = [
    # (subscripts, operand shapes, regex the message must match)
    ("ij->k", [(2, 3)], r"\bk\b"),
    ("ij,jk->il", [(2, 3), (3, 4)], r"\bl\b"),
    ("->i", [()], r"\bi\b"),
    ("ij,jk", [(2, 3)], r"operand"),
    ("ij", [(2, 3), (3, 4)], r"operand"),
    ("ij,jk,kl->il", [(2, 3), (3, 4)], r"operand"),
    ("ij,jk", [(2, 3), (4, 5)], r"\bj\b"),
    ("ij,jk->ik", [(2, 3), (4, 5)], r"(?s)\bj\b.*\b[34]\b.*\b[34]\b"),
    ("ii", [(2, 3)], r"\bi\b"),
    ("ijk", [(2, 3)], r"ijk"),
    ("ij", [(2, 3, 4)], r"ij"),
    ("i..j", [(2, 3)], r"\.\.|[Ee]llipsis"),
    ("....", [(2, 3)], r"\.\.\.|[Ee]llipsis"),
    ("...i...", [(2, 3)], r"\.\.\.|[Ee]llipsis"),
    ("i.j", [(2, 3)], r"\.|[Ee]llipsis"),
    ("ij->i..", [(2, 3)], r"\.\.|[Ee]llipsis"),
    ("i$j", [(2, 3)], r"\$"),
    ("i1->i", [(2, 3)], r"1"),
    ("i->i->i", [(2,)], r"->"),
    ("i-j", [(2, 3)], r"-"),
    ("i>j", [(2, 3)], r">"),
    ("...ij->ij", [(2, 3, 4)], r"\.\.\.|[Ee]llipsis"),
    ("...->", [(2, 3)], r"\.\.\.|[Ee]llipsis"),
]


@pytest.mark.parametrize("subs,shapes,pattern", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(subs, shapes, pattern):
    with pytest.raises(ValueError, match=pattern):
        tf.einsum(subs, *[_t(*s) for s in shapes])


def test_error_names_both_sizes():
    with pytest.raises(ValueError) as info:
        tf.einsum("ij,jk->ik", _t(2, 3), _t(4, 5))
    msg = str(info.value)
    assert re.search(r"\bj\b", msg) and re.search(r"\b3\b", msg) and re.search(r"\b4\b", msg), msg
    assert "einsum" in msg


def test_error_numpy_agrees_on_invalid():
    # every string case of ERRORS is also invalid for NumPy
    for subs, shapes, _ in ERRORS:
        with pytest.raises(ValueError):
            np.einsum(subs, *[np.ones(s) for s in shapes])


def test_interleaved_errors():
    a = _t(2, 3)
    with pytest.raises(ValueError, match=r"tenferro\.einsum: invalid label -1 in input sublist"):
        tf.einsum(a, [0, -1])
    with pytest.raises(ValueError, match=r"tenferro\.einsum: invalid label 'x' in input sublist"):
        tf.einsum(a, [0, "x"])
    with pytest.raises(ValueError, match=r"has 3 label\(s\) but the operand has 2 dimension"):
        tf.einsum(a, [0, 1, 2])
    with pytest.raises(ValueError, match="output label 2 does not appear in any input term"):
        tf.einsum(a, [0, 1], [2])
    with pytest.raises(ValueError, match="has more than one Ellipsis"):
        tf.einsum(a, [Ellipsis, 0, Ellipsis])


def test_bad_optimize_name():
    """An unknown optimizer name: NumPy's KeyError, naming tenferro.einsum and the name."""
    a, b, c = _t(2, 3), _t(3, 4), _t(4, 5)
    with pytest.raises(KeyError, match=r"tenferro\.einsum: unknown optimize='no-such-optimizer'"):
        tf.einsum("ij,jk,kl->il", a, b, c, optimize="no-such-optimizer")


def test_bad_explicit_path():
    """An out-of-range operand in an explicit path: NumPy's IndexError, named."""
    a, b, c = _t(2, 3), _t(3, 4), _t(4, 5)
    with pytest.raises(IndexError, match=r"tenferro\.einsum: step 0 \(0, 5\) of the explicit "
                                         r"path names operand 5"):
        tf.einsum("ij,jk,kl->il", a, b, c, optimize=[(0, 5), (0, 1)])


def test_errors_do_not_poison_the_cache():
    for _ in range(2):
        with pytest.raises(ValueError, match=r"tenferro\.einsum"):
            tf.einsum("ij,jk->ik", _t(2, 3), _t(4, 5))
    assert_close(tf.einsum("ij,jk->ik", _t(2, 3), _t(3, 5)), np.full((2, 5), 3.0))


# -- plan cache ----------------------------------------------------------------------------

@pytest.fixture
def fresh_cache():
    before = tf.einsum_cache_info()
    tf.einsum_cache_clear()
    yield
    tf.einsum_cache_resize(before.maxsize)
    tf.einsum_cache_clear()


def test_cache_info_fields(fresh_cache):
    info = tf.einsum_cache_info()
    for f in ("hits", "misses", "size", "maxsize"):
        assert isinstance(getattr(info, f), int), f
    assert info.size == 0
    assert info.maxsize > 0


def test_cache_hits_and_misses(fresh_cache):
    a = random_array((3, 4), "float64", seed=1)
    b = random_array((4, 5), "float64", seed=2)
    i0 = tf.einsum_cache_info()
    check("ij,jk->ik", [a, b])
    i1 = tf.einsum_cache_info()
    assert i1.misses == i0.misses + 1 and i1.hits == i0.hits and i1.size == 1
    # same subscripts and shapes, other values: a hit, and the right answer
    a2 = random_array((3, 4), "float64", seed=3)
    b2 = random_array((4, 5), "float64", seed=4)
    check("ij,jk->ik", [a2, b2])
    i2 = tf.einsum_cache_info()
    assert i2.hits == i1.hits + 1 and i2.misses == i1.misses and i2.size == 1
    # other shapes: a miss
    check("ij,jk->ik", [random_array((2, 4), "float64"), b])
    i3 = tf.einsum_cache_info()
    assert i3.misses == i2.misses + 1 and i3.hits == i2.hits and i3.size == 2
    # other subscripts: a miss
    check("ij,jk->ki", [a, b])
    i4 = tf.einsum_cache_info()
    assert i4.misses == i3.misses + 1 and i4.size == 3
    # the earlier plans are still there
    check("ij,jk->ik", [a, b])
    assert tf.einsum_cache_info().hits == i4.hits + 1


def test_cache_clear(fresh_cache):
    a = random_array((3, 4), "float64", seed=1)
    for n in range(1, 4):
        check("ij->j", [a[:n]])
    assert tf.einsum_cache_info().size == 3
    tf.einsum_cache_clear()
    assert tf.einsum_cache_info().size == 0
    check("ij->j", [a[:1]])
    info = tf.einsum_cache_info()
    assert info.size == 1 and info.hits == 0


@pytest.mark.parametrize("bad,exc", [(-1, ValueError), ("many", TypeError), (None, TypeError)])
def test_cache_resize_errors_name_the_function(fresh_cache, bad, exc):
    with pytest.raises(exc, match="einsum_cache_resize: maxsize must be"):
        tf.einsum_cache_resize(bad)


def test_cache_resize_bounds_size(fresh_cache):
    tf.einsum_cache_resize(3)
    assert tf.einsum_cache_info().maxsize == 3
    a = random_array((8, 4), "float64", seed=1)
    for n in range(1, 8):
        check("ij->i", [a[:n]])
        assert tf.einsum_cache_info().size <= 3
    assert tf.einsum_cache_info().size == 3
    # shrinking evicts
    tf.einsum_cache_resize(1)
    assert tf.einsum_cache_info().size <= 1
    # results stay right with a tiny cache
    for n in range(1, 8):
        check("ij->i", [a[:n]])
    tf.einsum_cache_resize(50)
    assert tf.einsum_cache_info().maxsize == 50


def test_cache_distinguishes_optimize_and_dtype(fresh_cache):
    # the same subscripts and shapes with other dtypes or paths still give right answers
    shapes = [(2, 3), (3, 4), (4, 5)]
    for dtype in ("float64", "complex128", "int64", "float32"):
        arrays = arrays_for(shapes, dtype, seed=2)
        for opt in ([(0, 1), (0, 1)], [(1, 2), (0, 1)], "greedy"):
            got = check("ij,jk,kl->il", arrays, optimize=opt)
            assert got.dtype == np.dtype(dtype)
    for dt in ("float32", None, "complex128"):
        arrays = arrays_for(shapes, "float64", seed=2)
        got = tf.einsum("ij,jk,kl->il", *[tf.asarray(a) for a in arrays], dtype=dt,
                        casting="same_kind")
        assert got.dtype == np.dtype(dt or "float64")


# -- random expressions (hypothesis) ------------------------------------------------------

from hypothesis import given, strategies as st  # noqa: E402

from conftest import hyp_settings  # noqa: E402

HYP = hyp_settings(200)
LETTERS = "abcdefgAB"


@st.composite
def einsum_problems(draw):
    pool = draw(st.lists(st.sampled_from(LETTERS), min_size=1, max_size=6, unique=True))
    size = {l: draw(st.sampled_from([0, 1, 2, 2, 3, 3, 4])) for l in pool}
    nops = draw(st.integers(1, 4))
    use_ell = draw(st.booleans()) and draw(st.booleans())
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2))) if use_ell else ()
    terms, shapes = [], []
    for _ in range(nops):
        labels = draw(st.lists(st.sampled_from(pool), max_size=4))
        shape = []
        for l in labels:
            n = size[l]
            # a size-1 broadcast of a label that is not repeated in this operand
            if n > 1 and labels.count(l) == 1 and draw(st.integers(0, 5)) == 0:
                n = 1
            shape.append(n)
        term = "".join(labels)
        if use_ell and draw(st.booleans()):
            k = draw(st.integers(0, len(labels)))
            nb = draw(st.integers(0, len(batch)))
            bdims = [b if draw(st.integers(0, 3)) else 1 for b in batch[len(batch) - nb:]]
            term = term[:k] + "..." + term[k:]
            shape = shape[:k] + bdims + shape[k:]
        terms.append(term)
        shapes.append(tuple(shape))
    lhs = ",".join(terms)
    used = sorted({c for t in terms for c in t if c != "."})
    if draw(st.booleans()):
        subs = lhs  # implicit output
    else:
        out = draw(st.permutations(used))
        out = out[:draw(st.integers(0, len(out)))]
        out = "".join(out)
        if any("..." in t for t in terms):
            k = draw(st.integers(0, len(out)))
            out = out[:k] + "..." + out[k:]
        subs = lhs + "->" + out
    dtype = draw(st.sampled_from(["float64", "complex128", "int64", "float32"]))
    optimize = draw(st.sampled_from([False, "auto", "greedy", "optimal", "dp"]))
    seed = draw(st.integers(0, 2 ** 16))
    return subs, shapes, dtype, optimize, seed


def _numpy_reference(problem):
    """(subs, arrays, optimize, numpy.einsum's result or None where NumPy rejects it)."""
    subs, shapes, dtype, optimize, seed = problem
    arrays = arrays_for(shapes, dtype, seed=seed)
    try:
        return subs, arrays, optimize, np.einsum(subs, *arrays, optimize=False)
    except ValueError:
        return subs, arrays, optimize, None


@HYP
@given(einsum_problems())
def test_random_expressions_vs_numpy(problem):
    subs, arrays, optimize, exp = _numpy_reference(problem)
    if exp is None:
        # what NumPy rejects, tenferro rejects too (outputs never repeat a label here)
        with pytest.raises(ValueError):
            tf.einsum(subs, *[tf.asarray(a) for a in arrays], optimize=optimize)
        return
    check(subs, arrays, expected=exp, optimize=optimize)


@HYP
@given(einsum_problems())
def test_random_expressions_interleaved(problem):
    subs, arrays, optimize, exp = _numpy_reference(problem)
    if exp is None:
        return
    code = {c: 10 * i + 3 for i, c in enumerate(LETTERS)}  # integer labels, not 0..n

    def sub(term):
        if "..." in term:
            k = term.index("...")
            return [code[c] for c in term[:k]] + [Ellipsis] + [code[c] for c in term[k + 3:]]
        return [code[c] for c in term]

    lhs, arrow, rhs = subs.partition("->")
    args = []
    for a, t in zip(arrays, lhs.split(",")):
        args += [tf.asarray(a), sub(t)]
    if arrow:
        args.append(sub(rhs))
    if not arrow and any(c.isupper() for c in lhs):
        return  # the codes sort a..g before A, B, unlike letters: implicit order differs
    got = tf.einsum(*args, optimize=optimize)
    assert_close(got, exp, **_tol(subs, arrays, exp.dtype))


# -- autodiff ------------------------------------------------------------------------------

def _rand(shape, dtype, seed):
    r = np.random.default_rng(seed)
    v = r.uniform(-1.5, 1.5, shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * r.uniform(-1.5, 1.5, shape)
    return tf.asarray(v.astype(dtype))


GRAD = [
    ("ij,jk->ik", [(2, 3), (3, 2)]),
    ("ii->", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("i->ii", [(3,)]),
    ("ij->iij", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 3)]),
    ("ij,jk,kl->", [(2, 3), (3, 2), (2, 3)]),
    ("bij,bjk->bik", [(1, 2, 3), (2, 3, 2)]),
    ("ij,jk->ik", [(2, 1), (3, 2)]),
    ("iij->ij", [(2, 2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij->ji", [(2, 3)]),
    (",ij->ij", [(), (2, 3)]),
    ("ai,ibj,jc->abc", [(2, 2), (2, 2, 3), (3, 2)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    # the dedicated VJP's edge cases: a diagonal beside another operand, a repeated
    # label no other operand carries, labels summed inside one operand, size-1
    # broadcasting on either side, ellipsis with a diagonal
    ("ii,i->i", [(3, 3), (3,)]),
    ("iij,j->", [(2, 2, 3), (3,)]),
    ("iij,j->j", [(2, 2, 3), (3,)]),
    ("ij->i", [(2, 3)]),
    ("ijk,k->", [(2, 3, 2), (2,)]),
    ("ij,j->ij", [(2, 1), (3,)]),
    ("ij,kj->ik", [(2, 3), (1, 1)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("i,i,i->i", [(3,), (3,), (3,)]),
    ("ij,jk,kl,lm,mn->in", [(2, 3), (3, 2), (2, 2), (2, 3), (3, 2)]),
]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("subs,shapes", GRAD, ids=[g[0] for g in GRAD])
def test_gradcheck(subs, shapes, dtype):
    args = tuple(_rand(s, dtype, seed=i + 1) for i, s in enumerate(shapes))
    autograd.gradcheck(lambda *xs: tf.einsum(subs, *xs), args, modes=("jvp", "vjp", "eager"),
                       order=2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck_named(dtype):
    a = _rand((2, 3), dtype, 1)
    b = _rand((3, 2), dtype, 2)
    autograd.gradcheck(lambda a, b: tf.einsum("ij,jk->ik", a, b), (a, b),
                       modes=("jvp", "vjp", "eager"), order=2)
    # the same tensor in two places, and the interleaved form
    autograd.gradcheck(lambda a: tf.einsum("ij,kj->ik", a, a), (a,),
                       modes=("jvp", "vjp", "eager"), order=2)
    autograd.gradcheck(lambda a, b: tf.einsum(a, [0, 1], b, [1, 2], [2, 0]), (a, b),
                       modes=("jvp", "vjp", "eager"), order=2)
    # every optimize path gives the same derivatives
    c = _rand((2, 3), dtype, 3)
    for opt in (False, "optimal", [(1, 2), (0, 1)], [(0, 1, 2)]):  # the last: one 3-way step
        autograd.gradcheck(lambda a, b, c: tf.einsum("ij,jk,kl->il", a, b, c, optimize=opt),
                           (a, b, c), modes=("jvp", "vjp"), order=1)


def test_einsum_is_one_node_with_its_own_rule():
    # the tape records one einsum node (not its steps), and its VJP is itself an einsum
    a = tf.tensor(random_array((2, 3), "float64", seed=1), requires_grad=True)
    b = tf.tensor(random_array((3, 4), "float64", seed=2), requires_grad=True)
    r = tf.einsum("ij,jk->ik", a, b)
    assert r.grad_fn.name == "EinsumBackward"
    assert {n.name for n, _ in r.grad_fn.next_functions} == {"AccumulateGrad"}
    g = autograd.grad(r.sum(), [a], create_graph=True)[0]
    assert g.grad_fn.name == "EinsumBackward"


def test_differentiated_networks_run_step_by_step():
    # differentiated, a network is recorded one pairwise einsum per path step, so the
    # backward pass follows the forward path and reuses its intermediates
    xs = [tf.tensor(random_array(s, "float64", seed=i), requires_grad=True)
          for i, s in enumerate([(2, 3), (3, 4), (4, 5)])]
    r = tf.einsum("ij,jk,kl->il", *xs, optimize=[(0, 1), (0, 1)])
    assert r.grad_fn.name == "EinsumBackward"
    names = sorted(n.name for n, _ in r.grad_fn.next_functions)
    assert names == ["AccumulateGrad", "EinsumBackward"]
    # one 3-way step: a single node whose rule handles three operands
    r3 = tf.einsum("ij,jk,kl->il", *xs, optimize=[(0, 1, 2)])
    assert [n.name for n, _ in r3.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    g = autograd.grad(r.sum(), xs)
    g3 = autograd.grad(r3.sum(), xs)
    a, b, c = [x.detach().numpy() for x in xs]
    ones = np.ones((2, 5))
    for got, got3, want in zip(g, g3, [ones @ (b @ c).T, a.T @ ones @ c.T, (a @ b).T @ ones]):
        assert_close(got, want, rtol=1e-12, atol=1e-12)
        assert_close(got3, want, rtol=1e-12, atol=1e-12)


def test_gradient_values_of_matmul():
    a = random_array((2, 3), "float64", seed=1)
    b = random_array((3, 4), "float64", seed=2)
    ta, tb = tf.asarray(a), tf.asarray(b)
    g = np.ones((2, 4))
    _, vjp_fn = autograd.vjp(lambda x, y: tf.einsum("ij,jk->ik", x, y), ta, tb)
    ga, gb = vjp_fn(tf.asarray(g))
    assert_close(ga, g @ b.T, rtol=1e-12, atol=1e-12)
    assert_close(gb, a.T @ g, rtol=1e-12, atol=1e-12)


def test_zero_size_with_every_optimizer():
    # opt_einsum's "dp" finds no path when every order costs nothing (hypothesis found it)
    arrays = [np.ones((2, 2)), np.ones(2), np.ones(()), np.ones(0)]
    for opt in ("dp", "optimal", "greedy", "auto"):
        got = tf.einsum("dd,d,,a", *arrays, optimize=opt)
        assert got.shape == (0,)


LAYOUT_CASES = [
    ("ijkl,klmn->ijmn", [(3, 4, 2, 5), (2, 5, 3, 2)]),
    ("abc,cde,efa->bdf", [(3, 4, 2), (2, 3, 4), (4, 2, 3)]),
    ("bij,bjk->bik", [(4, 3, 5), (4, 5, 2)]),
    ("abcd,dcbe->ae", [(2, 3, 4, 5), (5, 4, 3, 2)]),
    ("aib,bjc,ckd->aijkd", [(2, 3, 2), (2, 2, 3), (3, 2, 2)]),
]


@pytest.mark.parametrize("dtype", ["float64", "complex64", "int32"])
@pytest.mark.parametrize("subs,shapes", LAYOUT_CASES, ids=[c[0] for c in LAYOUT_CASES])
def test_every_memory_layout(subs, shapes, dtype):
    # the same values stored in every axis order (and reversed): the plan folds groups
    # where the strides nest and copies otherwise; the values never depend on it
    import itertools

    arrays = arrays_for(shapes, dtype, seed=5)
    want = np.einsum(subs, *arrays)
    rng = np.random.default_rng(0)
    layouts = [list(itertools.permutations(range(len(s)))) for s in shapes]
    for trial in range(12):
        ts = []
        for a, perms in zip(arrays, layouts):
            p = perms[rng.integers(len(perms))]
            stored = np.ascontiguousarray(a.transpose(p))
            if trial % 3 == 2:
                stored = np.ascontiguousarray(stored[::-1])[::-1]  # negative strides
            ts.append(tf.permute_dims(tf.asarray(stored), tuple(np.argsort(p))))
        assert_close(tf.einsum(subs, *ts), want, **_tol(subs, arrays, want.dtype))
