"""SparseAdam: Adam for sparse gradients (such as nn.Embedding(sparse=True) gives in PyTorch)."""

from .optimizer import Optimizer, check_betas, check_lr

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """`torch.optim.SparseAdam`: Adam that updates only the moments and parameters at the entries a
    sparse gradient holds.

    ember's embeddings give dense gradients and its sparse step is not written, so, like PyTorch on a
    dense gradient, `step()` raises a RuntimeError that points to `Adam`. The constructor, the checks of its options,
    `state_dict()` and `repr` match PyTorch's.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_lr(lr)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        complex_params = [
            [group_index, index]
            for group_index, group in enumerate(self.param_groups)
            for index, param in enumerate(group["params"])
            if param.is_complex()
        ]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters"
            )

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is not None:
                    raise RuntimeError(
                        "SparseAdam does not support dense gradients, please consider Adam instead "
                        "(ember's SparseAdam has no sparse step yet; "
                        "torch.optim.SparseAdam raises the same error on dense gradients)"
                    )
        return loss
