"""`AdaptiveLogSoftmaxWithLoss`: the adaptive softmax of Grave et al. (2016) for large vocabularies."""

import itertools
from collections import namedtuple

from ...ops import joining
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax (Grave et al., "Efficient softmax approximation for GPUs", 2016).

    The classes, sorted from most to least frequent, are split at `cutoffs`: classes below
    `cutoffs[0]` (the shortlist) are scored by the `head` together with one logit per cluster; each
    further cluster `[cutoffs[i], cutoffs[i + 1])` has its own `tail[i]` projection, of width
    `in_features // div_value ** (i + 1)`, whose log-softmax is added to its cluster's head
    log-probability. Only the clusters that hold a target are evaluated, so frequent classes are cheap.

    Args:
        in_features (int): size of each input sample.
        n_classes (int): number of classes.
        cutoffs (Sequence[int]): increasing, unique cluster boundaries in `[1, n_classes - 1]`.
        div_value (float): the factor by which each cluster's projection narrows. Default: 4.0.
        head_bias (bool): give the head's Linear a bias. Default: False.

    `forward(input, target)` takes input (N, in_features) with target (N) of class indices, or
    input (in_features) with a 0-d target, and returns the namedtuple `(output, loss)`: the target's
    log-probability for each sample (N) or () and their mean negative, a scalar. Parameters are
    `head.weight` (and `head.bias`), `tail.<i>.0.weight` and `tail.<i>.1.weight`, as in PyTorch.

    Example::

        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(16, 100, cutoffs=[10, 50])
        >>> output, loss = asm(ember.randn(4, 16), ember.tensor([1, 20, 70, 99]))
        >>> output.shape, loss.shape
        (torch.Size([4]), torch.Size([]))
        >>> asm.log_prob(ember.randn(4, 16)).exp().sum(1).allclose(ember.ones(4))
        True
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(cutoff) != cutoff for cutoff in cutoffs)
        ):
            raise ValueError(
                "AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of unique, positive integers sorted in "
                f"an increasing order, where each value is between 1 and n_classes-1 (n_classes={n_classes}), "
                f"but got cutoffs={cutoffs}"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for index, (low, high) in enumerate(itertools.pairwise(self.cutoffs)):
            hidden_size = int(in_features // (div_value ** (index + 1)))
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden_size, bias=False, device=device, dtype=dtype),
                    Linear(hidden_size, high - low, bias=False, device=device, dtype=dtype),
                )
            )

    def reset_parameters(self):
        """Redraw the head's and the tails' weights as their Linear layers do at construction."""
        self.head.reset_parameters()
        for input_to_hidden, hidden_to_output in self.tail:
            input_to_hidden.reset_parameters()
            hidden_to_output.reset_parameters()

    def forward(self, input, target):
        """The namedtuple `(output, loss)`: each target's log-probability and their mean negative."""
        is_batched = self._check_shapes(input, target)
        if not is_batched:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        self._check_target_range(target)
        head_logprob = F.log_softmax(self.head(input), dim=1)
        # Head column of each sample: its own class in the shortlist, else its cluster's logit.
        head_column = target.clone()
        cluster_logprob_of_rows = []
        for index, (low, high) in enumerate(itertools.pairwise(self.cutoffs)):
            in_cluster = (target >= low) & (target < high)
            rows = in_cluster.nonzero().squeeze(1)
            if rows.numel() == 0:
                continue  # clusters without a target cost nothing
            head_column = head_column.index_fill(0, rows, self.shortlist_size + index)
            cluster_logprob = F.log_softmax(self.tail[index](input.index_select(0, rows)), dim=1)
            relative_target = (target[in_cluster] - low).unsqueeze(1)
            cluster_logprob_of_rows.append((rows, cluster_logprob.gather(1, relative_target).squeeze(1)))
        output = head_logprob.gather(1, head_column.unsqueeze(1)).squeeze(1)
        for rows, logprob in cluster_logprob_of_rows:
            output = output.index_add(0, rows, logprob)
        loss = (-output).mean()
        return _ASMoutput(output if is_batched else output.squeeze(0), loss)

    def _check_shapes(self, input, target):
        """Whether the call is batched; RuntimeError (PyTorch's class) for shapes that do not pair up."""
        name = type(self).__name__
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError(
                    f"{name}: Input and target should have the same size in the batch dimension, but got input "
                    f"of size {input.size()} and target of size {target.size()}."
                )
            if input.dim() != 2:
                raise RuntimeError(
                    f"{name}: 1D target tensor expects 2D input tensors, but found inputs with size {input.size()}"
                )
            return True
        if target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError(
                    f"{name}: 0D target tensor expects 1D input tensors, but found inputs with size {input.size()}"
                )
            return False
        raise RuntimeError(
            f"{name}: 0D or 1D target tensor expected, multi-target not supported (got target of size {target.size()})"
        )

    def _check_target_range(self, target):
        if target.numel() and (target.min() < 0 or target.max() >= self.n_classes):
            raise RuntimeError(
                f"{type(self).__name__}: Target values should be in [0, {self.n_classes - 1}], but values in "
                f"range [{target.min().item()}, {target.max().item()}] were found."
            )

    def _get_full_log_prob(self, input, head_output):
        """(N, n_classes) log-probabilities: the shortlist's from the head, each cluster's as its tail's
        log-softmax plus the head's log-probability of the cluster."""
        head_logprob = F.log_softmax(head_output, dim=1)
        pieces = [head_logprob[:, : self.shortlist_size]]
        for index, projection in enumerate(self.tail):
            cluster_logprob = F.log_softmax(projection(input), dim=1)
            pieces.append(cluster_logprob + head_logprob[:, self.shortlist_size + index].unsqueeze(1))
        return joining.cat(pieces, 1)

    def log_prob(self, input):
        """Log-probabilities of all `n_classes` classes for a batch (N, in_features): (N, n_classes).

        Example::

            >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])
            >>> asm.log_prob(ember.randn(3, 8)).shape
            torch.Size([3, 10])
        """
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each sample of a batch (N, in_features): int64 (N).

        The same as `log_prob(input).argmax(dim=1)`, but the tails run only for the samples whose
        best head logit is a cluster's.

        Example::

            >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])
            >>> asm.predict(ember.randn(3, 8)).shape
            torch.Size([3])
        """
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not_in_shortlist.any():
            log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
            output[not_in_shortlist] = log_prob.argmax(dim=1)
        return output
