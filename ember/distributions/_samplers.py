"""The samplers behind `sample` / `rsample`: ember ops with PyTorch's CPU algorithms, so that after
`manual_seed(s)` a distribution draws PyTorch's numbers (see `ember/ops/random_draws.py`)."""

from ..ops.random_draws import _standard_gamma as standard_gamma, binomial, poisson

__all__ = ["standard_gamma", "poisson", "binomial"]
