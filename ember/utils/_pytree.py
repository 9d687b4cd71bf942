"""Nested containers as trees (`torch.utils._pytree`'s core): flatten to leaves and rebuild.

Tuples, lists, dicts (including OrderedDict) and namedtuples are containers; anything else is a
leaf. `ember.func` uses this to accept and return arbitrary nests of tensors.
"""

from collections import OrderedDict, namedtuple

__all__ = [
    "TreeSpec",
    "LeafSpec",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "broadcast_prefix",
]


class TreeSpec:
    """The shape of a tree without its leaves: a container type, its keys, and one spec per child."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self.context = context  # dict keys, or the namedtuple class, or None
        self.children_specs = children_specs
        self.num_leaves = sum(child.num_leaves for child in children_specs)

    def is_leaf(self):
        return False

    def __eq__(self, other):
        return isinstance(other, TreeSpec) and (self.type, self.context, self.children_specs) == (
            other.type,
            other.context,
            other.children_specs,
        )

    def __repr__(self):
        return f"TreeSpec({self.type.__name__}, {self.context}, {self.children_specs})"


class LeafSpec(TreeSpec):
    def __init__(self):
        self.type, self.context, self.children_specs, self.num_leaves = None, None, [], 1

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __repr__(self):
        return "*"


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _children(tree):
    """(container type, context, children) of a container; None for a leaf."""
    if _is_namedtuple(tree):
        return namedtuple, type(tree), list(tree)
    if isinstance(tree, (tuple, list)):
        return type(tree), None, list(tree)
    if isinstance(tree, dict):
        keys = list(tree)
        return type(tree), keys, [tree[key] for key in keys]
    return None


def tree_flatten(tree):
    """`(leaves, spec)`: the leaves in order and the structure `tree_unflatten` rebuilds from them."""
    leaves = []
    return leaves, _flatten_into(tree, leaves)


def _flatten_into(tree, leaves):
    parts = _children(tree)
    if parts is None:
        leaves.append(tree)
        return LeafSpec()
    kind, context, children = parts
    return TreeSpec(kind, context, [_flatten_into(child, leaves) for child in children])


def tree_unflatten(leaves, spec):
    """Rebuild the tree of `spec` with `leaves` (in the order `tree_flatten` gave them)."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"tree_unflatten: expected {spec.num_leaves} leaves for {spec}, got {len(leaves)}")
    return _build(iter(leaves), spec)


def _build(leaves, spec):
    if spec.is_leaf():
        return next(leaves)
    children = [_build(leaves, child) for child in spec.children_specs]
    if spec.type is namedtuple:
        return spec.context(*children)
    if spec.type in (dict, OrderedDict) or issubclass(spec.type, dict):
        return spec.type(zip(spec.context, children))
    return spec.type(children)


def tree_leaves(tree):
    return tree_flatten(tree)[0]


def tree_structure(tree):
    return tree_flatten(tree)[1]


def tree_map(function, tree):
    """The same tree with `function` applied to every leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([function(leaf) for leaf in leaves], spec)


def broadcast_prefix(prefix, tree):
    """One value per leaf of `tree` from `prefix`, a tree that matches `tree` down to some depth
    (a leaf of the prefix covers a whole subtree). None if the structures do not match."""
    result = []
    return result if _broadcast_into(prefix, tree, result) else None


def _broadcast_into(prefix, tree, result):
    prefix_parts = _children(prefix)
    if prefix_parts is None:
        result.extend([prefix] * tree_structure(tree).num_leaves)
        return True
    tree_parts = _children(tree)
    if tree_parts is None:
        return False
    prefix_children = prefix_parts[2]
    _, context, children = tree_parts
    if len(prefix_children) != len(children):
        return False
    if isinstance(prefix, dict) or isinstance(tree, dict):
        if not (isinstance(prefix, dict) and isinstance(tree, dict)) or set(prefix) != set(tree):
            return False
        prefix_children = [prefix[key] for key in context]
    elif isinstance(prefix, list) != isinstance(tree, list):
        return False
    return all(_broadcast_into(child_prefix, child, result) for child_prefix, child in zip(prefix_children, children))
