"""Nested containers of tensors ("pytrees"): tuples, lists, dicts (keys sorted, as JAX),
namedtuples and None; everything else is a leaf."""

__all__ = ["tree_flatten", "tree_unflatten", "tree_map"]


class TreeDef:
    __slots__ = ("kind", "meta", "children")

    def __init__(self, kind, meta, children):
        self.kind = kind          # "leaf", "none", tuple/list/dict/namedtuple type
        self.meta = meta          # dict keys
        self.children = children  # tuple of TreeDef

    def __eq__(self, other):
        return (isinstance(other, TreeDef) and self.kind == other.kind
                and self.meta == other.meta and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, self.meta, self.children))

    def __repr__(self):
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        if self.kind is dict:
            return "{%s}" % ", ".join("%r: %r" % kv for kv in zip(self.meta, self.children))
        inner = ", ".join(map(repr, self.children))
        if self.kind is list:
            return "[%s]" % inner
        if self.kind is tuple:
            return "(%s%s)" % (inner, "," if len(self.children) == 1 else "")
        return "%s(%s)" % (self.kind.__name__, inner)


_LEAF = TreeDef("leaf", None, ())
_NONE = TreeDef("none", None, ())


def tree_flatten(x):
    """The leaves of a pytree and its structure (``jax.tree_util.tree_flatten``).

    A pytree is nested tuples, lists, dicts (keys visited in sorted order, as JAX),
    namedtuples and None; anything else (a tensor, a number, a string) is a leaf.  The
    functional transforms accept and return pytrees of tensors.

    Parameters
    ----------
    x : object
        The pytree.

    Returns
    -------
    leaves : list
        The leaves, depth first (None is structure, not a leaf).
    treedef : TreeDef
        The structure; equal structures compare equal, and :func:`tree_unflatten`
        rebuilds a tree of the same structure from new leaves.

    See Also
    --------
    tree_unflatten, tree_map

    Examples
    --------
    >>> leaves, treedef = tf.autograd.tree_flatten({"b": (1, 2), "a": [3, None]})
    >>> leaves, treedef
    ([3, 1, 2], {'a': [*, None], 'b': (*, *)})
    """
    leaves = []
    return leaves, _flatten(x, leaves)


def _flatten(x, leaves):
    t = type(x)
    if t is tuple or t is list:
        return TreeDef(t, None, tuple(_flatten(v, leaves) for v in x))
    if t is dict:
        keys = tuple(sorted(x))
        return TreeDef(dict, keys, tuple(_flatten(x[k], leaves) for k in keys))
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # namedtuple
        return TreeDef(t, None, tuple(_flatten(v, leaves) for v in x))
    if x is None:
        return _NONE
    leaves.append(x)
    return _LEAF


def tree_unflatten(treedef, leaves):
    """The pytree of structure ``treedef`` with the given leaves (``jax.tree_util``'s).

    Parameters
    ----------
    treedef : TreeDef
        A structure from :func:`tree_flatten`.
    leaves : iterable
        New leaves, as many as the structure has, in :func:`tree_flatten`'s order.

    Returns
    -------
    object
        The rebuilt tuples, lists, dicts and namedtuples.

    Raises
    ------
    ValueError
        If the number of leaves differs from the structure's.

    See Also
    --------
    tree_flatten, tree_map

    Examples
    --------
    >>> _, treedef = tf.autograd.tree_flatten({"b": (1, 2), "a": [3, None]})
    >>> tf.autograd.tree_unflatten(treedef, [10, 20, 30])
    {'a': [10, None], 'b': (20, 30)}
    """
    if not isinstance(leaves, (list, tuple)):
        leaves = list(leaves)
    it = iter(leaves)
    try:
        out = _build(treedef, it)
    except StopIteration:
        out = None
    else:
        if next(it, _NONE) is _NONE:
            return out
    raise ValueError("tenferro.tree_unflatten: the structure %r has %d leaves, got %d"
                     % (treedef, _count(treedef), len(leaves)))


def _count(td):
    """The number of leaves of a structure."""
    return 1 if td.kind == "leaf" else sum(_count(c) for c in td.children)


def _build(td, it):
    k = td.kind
    if k == "leaf":
        return next(it)
    if k == "none":
        return None
    children = [_build(c, it) for c in td.children]
    if k is dict:
        return dict(zip(td.meta, children))
    if k is tuple or k is list:
        return k(children)
    return k(*children)


def tree_map(fn, x):
    """Apply ``fn`` to every leaf of a pytree (``jax.tree_util.tree_map``).

    Parameters
    ----------
    fn : callable
        Called on each leaf.
    x : object
        The pytree (see :func:`tree_flatten`).

    Returns
    -------
    object
        A pytree of the same structure with ``fn(leaf)`` for each leaf.

    See Also
    --------
    tree_flatten

    Examples
    --------
    >>> tf.autograd.tree_map(lambda v: 10 * v, {"w": 1, "b": (2, None)})
    {'b': (20, None), 'w': 10}
    """
    leaves, td = tree_flatten(x)
    return tree_unflatten(td, [fn(v) for v in leaves])
