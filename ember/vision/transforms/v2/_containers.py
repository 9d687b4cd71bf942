"""Compose, RandomApply, RandomChoice and RandomOrder as v2 has them: each transform gets the whole
sample, so the masks and boxes of a sample meet the same transforms, with the same draws, as its image
(v1's versions hand them one image at a time)."""

import random

import ember

__all__ = ["Compose", "RandomApply", "RandomChoice", "RandomOrder"]


def _run(transform, sample, several):
    return transform(*sample) if several else transform(sample)


class _Container:
    def __call__(self, *inputs):
        several = len(inputs) > 1
        sample = inputs if several else inputs[0]
        for transform in self._chosen():
            sample = _run(transform, sample, several)
            several = several and isinstance(sample, tuple)
        return sample

    def _listing(self):
        return "".join(f"\n    {transform}" for transform in self.transforms)


class Compose(_Container):
    """Apply the transforms in order."""

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence of callables")
        if not transforms:
            raise ValueError("Pass at least one transform")
        self.transforms = transforms

    def _chosen(self):
        return self.transforms

    def __repr__(self):
        return f"{self.__class__.__name__}({self._listing()}\n)"


class RandomApply(_Container):
    """Apply the transforms (in order) with probability p, else none of them."""

    def __init__(self, transforms, p=0.5):
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.transforms, self.p = transforms, p

    def _chosen(self):
        return [] if self.p < float(ember.rand(1).item()) else self.transforms

    def __repr__(self):
        return f"{self.__class__.__name__}(\n    p={self.p}{self._listing()}\n)"


class RandomChoice(_Container):
    """Apply one transform picked at random (weights `p`), with Python's `random` as torchvision."""

    def __init__(self, transforms, p=None):
        if p is not None and len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}")
        self.transforms, self.p = transforms, p

    def _chosen(self):
        return random.choices(self.transforms, weights=self.p)

    def __repr__(self):
        return f"{self.__class__.__name__}(transforms={self.transforms}, p={self.p})"


class RandomOrder(_Container):
    """Apply all transforms in a random order (Python's `random`, as torchvision)."""

    def __init__(self, transforms):
        self.transforms = transforms

    def _chosen(self):
        order = list(range(len(self.transforms)))
        random.shuffle(order)
        return [self.transforms[index] for index in order]

    def __repr__(self):
        return f"{self.__class__.__name__}({self._listing()}\n)"
