"""ember.utils._pytree: flatten/unflatten round trips and prefix broadcasting (vmap's in_dims)."""

import collections

import pytest

from ember.utils._pytree import broadcast_prefix, tree_flatten, tree_map, tree_unflatten

Point = collections.namedtuple("Point", "x y")


def test_round_trip_keeps_containers_and_order():
    tree = {"b": [1, (2, 3)], "a": Point(4, {"c": 5}), "d": collections.OrderedDict(e=6)}
    leaves, spec = tree_flatten(tree)
    assert leaves == [1, 2, 3, 4, 5, 6]
    rebuilt = tree_unflatten(leaves, spec)
    assert rebuilt == tree and isinstance(rebuilt["a"], Point) and isinstance(rebuilt["d"], collections.OrderedDict)
    assert tree_map(lambda leaf: leaf * 10, tree)["b"][1] == (20, 30)


def test_broadcast_prefix():
    args = ({"a": 1, "b": [2, 3]}, 4)
    assert broadcast_prefix(0, args) == [0, 0, 0, 0]
    assert broadcast_prefix(({"a": 0, "b": None}, 1), args) == [0, None, None, 1]
    assert broadcast_prefix((0,), args) is None  # too short
    assert broadcast_prefix(({"a": 0}, 1), args) is None  # keys differ
    assert broadcast_prefix(([0, 1], 1), args) is None  # list prefix against a dict


def test_specs_compare_by_structure():
    assert tree_flatten((1, [2]))[1] == tree_flatten((5, [6]))[1]
    assert tree_flatten((1, [2]))[1] != tree_flatten((1, (2,)))[1]


class _Pair:
    """A container that is not a tuple/list/dict: registered, it flattens into its two fields."""

    def __init__(self, first, second):
        self.first, self.second = first, second


def test_registered_class_flattens_and_rebuilds_as_itself():
    from ember.utils import _pytree

    _pytree.register_pytree_node(
        _Pair, lambda pair: ([pair.first, pair.second], "pair"), lambda children, context: _Pair(*children)
    )
    tree = {"a": _Pair(1, [2, 3])}
    leaves, spec = tree_flatten(tree)
    assert leaves == [1, 2, 3]
    rebuilt = tree_unflatten([10, 20, 30], spec)
    assert isinstance(rebuilt["a"], _Pair) and rebuilt["a"].first == 10 and rebuilt["a"].second == [20, 30]
    assert tree_map(lambda leaf: -leaf, tree)["a"].second == [-2, -3]
    with pytest.raises(ValueError, match="already registered"):
        _pytree.register_pytree_node(_Pair, None, None)


def test_dict_flatten_with_keys_names_each_entry():
    from ember.utils._pytree import MappingKey, _dict_flatten_with_keys

    assert _dict_flatten_with_keys({"x": 1, "y": 2}) == ([(MappingKey("x"), 1), (MappingKey("y"), 2)], ["x", "y"])
