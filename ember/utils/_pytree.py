"""Nested containers as trees (`torch.utils._pytree`'s core): flatten to leaves and rebuild.

Tuples, lists, dicts (including OrderedDict) and namedtuples are containers, and so is any class
given to `register_pytree_node` (libraries register their output records); anything else is a leaf.
`ember.func` uses this to accept and return arbitrary nests of tensors.
"""

import dataclasses
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
    "register_pytree_node",
    "MappingKey",
]

# class -> (flatten_fn, unflatten_fn) for containers registered by users
_REGISTERED_NODES = {}


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """The path step to a dict entry, as `flatten_with_keys` functions report it."""

    key: object

    def __str__(self):
        return f"[{self.key!r}]"


def register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
):
    """Treat instances of `cls` as containers: `flatten_fn(obj)` gives `(children, context)` and
    `unflatten_fn(children, context)` rebuilds one. The serialization and key-path arguments are
    accepted for PyTorch's signature; ember neither serializes tree specs nor walks key paths."""
    if cls in _REGISTERED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _REGISTERED_NODES[cls] = (flatten_fn, unflatten_fn)


def _dict_flatten_with_keys(mapping):
    """A dict's `(key, value)` children with their path keys, and its keys as context."""
    keys = list(mapping)
    return [(MappingKey(key), mapping[key]) for key in keys], keys


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
    registered = _REGISTERED_NODES.get(type(tree))
    if registered is not None:
        children, context = registered[0](tree)
        return type(tree), context, list(children)
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
    if spec.type in _REGISTERED_NODES:
        return _REGISTERED_NODES[spec.type][1](children, spec.context)
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
