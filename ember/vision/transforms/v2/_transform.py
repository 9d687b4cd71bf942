"""The v2 Transform base: what in a sample is transformed, and the same random draws for each part."""

import ember

from ...._tensor import Tensor
from ..._pil import is_pil_image
from ... import tv_tensors

__all__ = ["ANNOTATIONS", "Transform", "is_plain_tensor", "leaves", "rebuild"]


def leaves(sample, found):
    if isinstance(sample, (tuple, list)):
        for item in sample:
            leaves(item, found)
    elif isinstance(sample, dict):
        for item in sample.values():
            leaves(item, found)
    else:
        found.append(sample)
    return found


def rebuild(sample, replace):
    if isinstance(sample, (tuple, list)):
        return type(sample)(rebuild(item, replace) for item in sample)
    if isinstance(sample, dict):
        return {key: rebuild(value, replace) for key, value in sample.items()}
    return replace(sample)


class Transform:
    """Base of the v2 transforms: finds what a sample holds and transforms each part with `_transform_image`.

    The pixels of a sample are its PIL images and tv_tensors Images and Videos, or if it has none, its
    first plain tensor. Masks, BoundingBoxes and KeyPoints go through the geometric transforms (which
    move them with the pixels, see transforms/_tv_kernels.py) and past the others (`_annotations`:
    "move" or "pass"; "refuse" raises for transforms that cannot move them). Everything else passes
    through. Each part is transformed with the same random draws.
    """

    _annotations = "pass"
    _keeps_class = True  # a tv_tensor in, the same class out

    def _transform_image(self, image):
        raise NotImplementedError

    def __call__(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        chosen = self._parts_to_transform(leaves(sample, []))
        state = ember.get_rng_state()
        after = []

        def replace(leaf):
            if id(leaf) not in chosen:
                return leaf
            ember.set_rng_state(state)  # the same random parameters for every part of the sample
            result = self._transform_image(leaf)
            if self._keeps_class:
                result = _same_class(result, leaf)
            after.append(ember.get_rng_state())
            return result

        result = rebuild(sample, replace)
        if after:
            ember.set_rng_state(after[0])  # as one draw of the parameters left it
        return result

    def _parts_to_transform(self, leaves):
        pixels = [
            leaf for leaf in leaves if is_pil_image(leaf) or isinstance(leaf, (tv_tensors.Image, tv_tensors.Video))
        ]
        if not pixels:
            pixels = [next((leaf for leaf in leaves if is_plain_tensor(leaf)), None)]
        annotations = [leaf for leaf in leaves if isinstance(leaf, ANNOTATIONS)]
        if annotations and self._annotations == "refuse":
            raise NotImplementedError(
                f"{type(self).__name__} cannot transform {type(annotations[0]).__name__} in ember (it would change "
                "the pixels and leave them where they were); apply it to the image alone"
            )
        parts = pixels + (annotations if self._annotations == "move" else [])
        return {id(part) for part in parts if part is not None}


ANNOTATIONS = (tv_tensors.Mask, tv_tensors.BoundingBoxes, tv_tensors.KeyPoints)


def is_plain_tensor(value):
    return isinstance(value, Tensor) and not isinstance(value, tv_tensors.TVTensor)


def _same_class(result, leaf):
    """A transform gives back what it was given: a tv_tensor stays one (ops on it return plain tensors)."""
    if not isinstance(leaf, tv_tensors.TVTensor):
        return result
    if isinstance(result, tuple):  # FiveCrop, TenCrop
        return tuple(_same_class(part, leaf) for part in result)
    if isinstance(result, Tensor) and not isinstance(result, tv_tensors.TVTensor):
        return tv_tensors.wrap(result, like=leaf)
    return result
