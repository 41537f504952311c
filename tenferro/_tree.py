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
    """(list of leaves, TreeDef)."""
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
    it = iter(leaves)
    return _build(treedef, it)


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
    leaves, td = tree_flatten(x)
    return tree_unflatten(td, [fn(v) for v in leaves])
