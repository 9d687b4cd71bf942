"""`SyncBatchNorm`: batch normalisation whose batch statistics are those of the whole distributed batch.

Under DistributedDataParallel each process sees a slice of the batch; SyncBatchNorm sums each
channel's count, sum and squared deviations over the processes of its group (`all_reduce`), so
every process normalises with the statistics one process would compute on the whole batch. The
sums are taken by an autograd Function whose backward sums the gradients over the processes too,
which makes the gradients those of the whole batch as well. Outside a process group of more than
one process (and in eval mode) it is BatchNorm.
"""

from ... import autograd
from ...autograd import Function
from ...ops import creation
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


class _SumOverProcesses(Function):
    """Sum a tensor over the processes of `group`; its gradient is summed over them as well."""

    @staticmethod
    def forward(ctx, tensor, group):
        from ... import distributed

        ctx.group = group
        total = tensor.clone()
        distributed.all_reduce(total, group=group)
        return total

    @staticmethod
    def backward(ctx, grad):
        from ... import distributed

        total = grad.clone()
        distributed.all_reduce(total, group=ctx.group)
        return total, None


def _processes(group):
    """How many processes share the batch: 1 unless a process group of several is initialized."""
    from ... import distributed

    if not (distributed.is_available() and distributed.is_initialized()):
        return 1
    return distributed.get_world_size(group)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over an (N, C, ...) input whose training statistics span every process of
    `process_group` (all processes by default). Convert a model's BatchNorm layers with
    `SyncBatchNorm.convert_sync_batchnorm(model)` before wrapping it in DistributedDataParallel."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        process_group=None,
        device=None,
        dtype=None,
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if not self.training or _processes(self.process_group) == 1:
            return super().forward(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        channels = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        shape = [1, channels] + [1] * (input.dim() - 2)
        count = _SumOverProcesses.apply(creation.tensor(float(input.numel() // channels)), self.process_group)
        mean = _SumOverProcesses.apply(input.sum(dims), self.process_group) / count
        centered = input - mean.reshape(shape)
        var = _SumOverProcesses.apply((centered * centered).sum(dims), self.process_group) / count
        if self.track_running_stats and self.running_mean is not None:
            with autograd.no_grad():
                self.running_mean.mul_(1 - factor).add_(mean.to(self.running_mean.dtype), alpha=factor)
                unbiased = var * count / (count - 1)
                self.running_var.mul_(1 - factor).add_(unbiased.to(self.running_var.dtype), alpha=factor)
        output = centered / (var.reshape(shape) + self.eps).sqrt()
        if self.weight is not None:
            output = output * self.weight.reshape(shape) + self.bias.reshape(shape)
        return output

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm*d inside replaced by a SyncBatchNorm sharing its parameters
        and running statistics (the module itself if it is one)."""
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
            )
            if module.affine:
                with autograd.no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
