"""Issue 15, einsum: NumPy's value or NumPy's exception class, never a silent wrong result."""
import numpy as np
import pytest

import tenferro as tf

E = np.arange(4.0).reshape(2, 2) + 1
A13 = np.arange(3.0).reshape(1, 3) + 1


def _np_error(fn):
    try:
        fn()
    except Exception as e:   # the class NumPy raises is what the test compares with
        return type(e)
    return None


@pytest.mark.parametrize("subs,shapes", [
    ("cc", [(1, 3)]), ("cc", [(3, 1)]), ("ii->i", [(1, 3)]), ("iij->j", [(2, 3, 3)]),
    ("ij,jj->i", [(2, 3), (3, 1)]), ("ii,i->i", [(3, 1), (3,)]),
])
def test_repeated_label_with_different_sizes_in_one_operand_raises(subs, shapes):
    arrays = [np.ones(s) for s in shapes]
    assert _np_error(lambda: np.einsum(subs, *arrays)) is ValueError
    with pytest.raises(ValueError, match=r"tenferro.einsum: dimensions in operand \d for "
                                         r"collapsing label '\w' don't match"):
        tf.einsum(subs, *[tf.asarray(a) for a in arrays])


@pytest.mark.parametrize("subs,shapes", [
    ("i,i", [(3,), (1,)]), ("ij,ij->ij", [(1, 3), (2, 3)]), ("ij,jk", [(2, 1), (3, 4)]),
    ("ii,i->i", [(3, 3), (1,)]),
])
def test_size_one_broadcasts_across_operands_as_numpy(subs, shapes):
    arrays = [np.arange(float(np.prod(s))).reshape(s) + 1 for s in shapes]
    want = np.einsum(subs, *arrays)
    got = np.asarray(tf.einsum(subs, *[tf.asarray(a) for a in arrays]))
    assert got.shape == want.shape and np.allclose(got, want)


def test_label_sizes_2_and_3_across_operands_raise():
    with pytest.raises(ValueError, match="size mismatch for label 'j': 2 in operand 1 but 3"):
        tf.einsum("ij,j", tf.ones((2, 3)), tf.ones(2))


@pytest.mark.parametrize("path,exc,msg", [
    (["einsum_path", (1,), (0, 1)], RuntimeError, "1 more operands have to be contracted"),
    (["einsum_path", (1,)], RuntimeError, "2 more operands"),
    (["einsum_path", (0, 5), (0, 1)], IndexError, "names operand 5 but only 3"),
    (["einsum_path", (0, 1), (0, 2)], IndexError, "names operand 2 but only 2"),
    (["einsum_path", (0, 0), (0, 1)], ValueError, "distinct operand positions"),
    (["einsum_path", (), (0, 1, 2)], ValueError, "distinct operand positions"),
    (["einsum_path", (-2, -1), (0, 1)], IndexError, "names operand -2 but only 3"),
])
def test_invalid_explicit_path_raises(path, exc, msg):
    ops = [E, E, E]
    np_exc = _np_error(lambda: np.einsum("ij,jk,kl", *ops, optimize=path))
    if exc is not ValueError and min(min(p) for p in path[1:]) >= 0:
        # (NumPy accepts a repeated index by accident, and a negative one with a wrong
        # result: [[2520.]] for 'ij,jk,kl' of 2x2 operands)
        assert np_exc is exc
    with pytest.raises(exc, match=msg):
        tf.einsum("ij,jk,kl", *[tf.asarray(a) for a in ops], optimize=path)
    with pytest.raises(exc, match=msg):
        tf.einsum_path("ij,jk,kl", *[tf.asarray(a) for a in ops], optimize=path)


def test_valid_explicit_paths_still_work():
    ops = [E, E + 1, E + 2]
    want = np.einsum("ij,jk,kl", *ops)
    for path in (["einsum_path", (0, 1), (0, 1)], ["einsum_path", (1, 2), (0, 1)],
                 ["einsum_path", (0, 1, 2)], ["einsum_path", (2,), (0, 1, 2)]):
        got = tf.einsum("ij,jk,kl", *[tf.asarray(a) for a in ops], optimize=path)
        assert np.allclose(np.asarray(got), want)


@pytest.mark.parametrize("fn,args", [(tf.einsum, ()), (tf.einsum, ("ij",)),
                                     (tf.einsum_path, ("",)), (tf.einsum_path, ())])
def test_no_operands_is_a_value_error(fn, args):
    npfn = getattr(np, fn.__name__)
    assert _np_error(lambda: npfn(*args)) is ValueError
    with pytest.raises(ValueError, match=r"tenferro.%s: expected the subscripts and at least "
                                         r"one operand" % fn.__name__):
        fn(*args)


@pytest.mark.parametrize("dtype,casting", [
    ("int32", "safe"), ("float32", "safe"), ("float32", "no"), ("int64", "same_kind"),
    ("complex128", "no"), ("float64", "no"), ("float32", "same_kind"), ("int32", "unsafe"),
    ("complex64", "safe"), (None, "no"), (None, "equiv"),
])
def test_casting_as_numpy(dtype, casting):
    a, b = E, E.astype(np.float32) if dtype is None else E
    try:
        want = np.einsum("ij,jk->ik", a, b, dtype=dtype, casting=casting)
    except TypeError:
        with pytest.raises(TypeError, match="cannot be cast .* under the %r casting rule"
                                            % casting):
            tf.einsum("ij,jk->ik", tf.asarray(a), tf.asarray(b), dtype=dtype, casting=casting)
        return
    got = np.asarray(tf.einsum("ij,jk->ik", tf.asarray(a), tf.asarray(b), dtype=dtype,
                               casting=casting))
    assert got.dtype == want.dtype and np.allclose(got, want)


def test_casting_and_order_values_are_checked():
    x = tf.asarray(E)
    with pytest.raises(ValueError, match="casting must be one of 'no', 'equiv', 'safe'.*'bogus'"):
        tf.einsum("ij->", x, casting="bogus")
    with pytest.raises(ValueError, match="order must be one of 'C', 'F', 'A' or 'K', got 'X'"):
        tf.einsum("ij->", x, order="X")
    out = tf.zeros((2, 2), dtype="int64")
    with pytest.raises(TypeError, match="cannot cast the result from float64 to out's dtype "
                                        "int64 under the 'safe'"):
        tf.einsum("ij,jk->ik", x, x, out=out)
    tf.einsum("ij,jk->ik", x, x, out=out, casting="unsafe")
    assert np.array_equal(np.asarray(out), np.einsum("ij,jk->ik", E, E).astype(np.int64))


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("subs", ["ij,jk->ik", "ij,jk->ki", "ijk->kji", "i,j->ij"])
def test_order_gives_numpy_values_and_layout(order, subs):
    rng = np.random.default_rng(0)
    shapes = {"ij,jk->ik": [(2, 3), (3, 4)], "ij,jk->ki": [(2, 3), (3, 4)],
              "ijk->kji": [(2, 3, 4)], "i,j->ij": [(2,), (3,)]}[subs]
    arrays = [rng.standard_normal(s) for s in shapes]
    want = np.einsum(subs, *arrays, order=order)
    got = tf.einsum(subs, *[tf.asarray(a) for a in arrays], order=order)
    assert np.allclose(np.asarray(got), want)
    if order == "C":
        assert got._data.flags.c_contiguous
    if order == "F":
        assert got._data.flags.f_contiguous


@pytest.mark.parametrize("limit", [1, 4, 10 ** 9, 1e9])
@pytest.mark.parametrize("algorithm", ["greedy", "optimal"])
def test_optimize_algorithm_memory_limit_tuple(algorithm, limit):
    ops = [np.ones((2, 3)), np.ones((3, 4)) * 2, np.ones((4, 5)) * 3]
    want = np.einsum("ij,jk,kl->il", *ops, optimize=(algorithm, limit))
    got = tf.einsum("ij,jk,kl->il", *[tf.asarray(a) for a in ops], optimize=(algorithm, limit))
    assert np.allclose(np.asarray(got), want)
    npath = np.einsum_path("ij,jk,kl->il", *ops, optimize=(algorithm, limit))[0]
    tpath = tf.einsum_path("ij,jk,kl->il", *[tf.asarray(a) for a in ops],
                           optimize=(algorithm, limit))[0]
    assert tpath[0] == "einsum_path"
    if limit < 12:   # no intermediate fits: one step over all operands, as NumPy
        assert tpath == npath == ["einsum_path", (0, 1, 2)]


def test_memory_limit_must_be_a_number():
    x = tf.asarray(E)
    with pytest.raises(TypeError, match="memory_limit"):
        tf.einsum("ij,jk", x, x, optimize=("greedy", "big"))


@pytest.mark.parametrize("subs,nops", [
    ("ij,jk", 1), ("ij", 2), ("i2", 1), ("ij->i->j", 1), ("ij->k", 1), ("....", 1),
    ("...i...", 1), ("..i", 1), ("i...->", 1), ("ijk", 1), ("i", 1), ("ij-", 1),
    ("ij,,", 1),
])
def test_subscript_errors_are_numpys_class(subs, nops):
    ops = [E] * nops
    exc = _np_error(lambda: np.einsum(subs, *ops))
    assert exc is ValueError
    with pytest.raises(exc, match="tenferro.einsum: "):
        tf.einsum(subs, *[tf.asarray(a) for a in ops])


def test_einsum_path_format_as_numpy():
    ops = [E, E, E]
    npath, _ = np.einsum_path("ij,jk,kl", *ops, optimize="greedy")
    tpath, report = tf.einsum_path("ij,jk,kl", *[tf.asarray(a) for a in ops])
    assert tpath == npath and isinstance(report, str) and "Complete contraction" in report
    # an einsum_path result is accepted back as optimize=, as in NumPy
    got = tf.einsum("ij,jk,kl", *[tf.asarray(a) for a in ops], optimize=tpath)
    assert np.allclose(np.asarray(got), np.einsum("ij,jk,kl", *ops))
