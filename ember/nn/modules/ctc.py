"""`CTCLoss`: connectionist temporal classification, for unsegmented sequence labelling."""

from .. import functional as F
from .loss import _Loss

__all__ = ["CTCLoss"]


class CTCLoss(_Loss):
    """The CTC loss of (T, N, C) log-probabilities against unaligned targets; see `F.ctc_loss`.

    `forward(log_probs, targets, input_lengths, target_lengths)`.

    Example::

        >>> ctc = nn.CTCLoss()
        >>> log_probs = ember.randn(50, 4, 20).log_softmax(2).requires_grad_()
        >>> ctc(log_probs, ember.randint(1, 20, (4, 10)), [50] * 4, [10] * 4).backward()
    """

    __constants__ = ["blank", "reduction"]

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(
            log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction, self.zero_infinity
        )
