"""Pytrees (tenferro.autograd.tree_flatten / tree_unflatten / tree_map)."""
import pytest

import tenferro as tf
from tenferro.autograd import tree_flatten, tree_map, tree_unflatten


def test_flatten_sorts_dict_keys_and_keeps_none_as_structure():
    leaves, tree = tree_flatten({"b": (1, 2), "a": [3, None]})
    assert leaves == [3, 1, 2]
    assert tree_unflatten(tree, [10, 20, 30]) == {"a": [10, None], "b": (20, 30)}
    assert tree_map(lambda v: -v, {"b": (1, 2), "a": [3, None]}) == \
        {"a": [-3, None], "b": (-1, -2)}


def test_unflatten_accepts_any_iterable():
    _, tree = tree_flatten((tf.ones(1), [tf.ones(1), tf.ones(1)]))
    assert tree_unflatten(tree, iter("xyz")) == ("x", ["y", "z"])


@pytest.mark.parametrize("leaves,got", [([1], 1), ([1, 2, 3, 4], 4), ([], 0)])
def test_unflatten_with_the_wrong_number_of_leaves_names_both(leaves, got):
    # regression: too few leaves raised StopIteration, too many were dropped silently
    _, tree = tree_flatten((1, [2, 3]))
    with pytest.raises(ValueError, match=r"tree_unflatten: the structure \(\*, \[\*, \*\]\) "
                                         r"has 3 leaves, got %d" % got):
        tree_unflatten(tree, leaves)
