"""The book's `MultiplyAdd` (z = w * x + b), defined once for the package demo, the tests and the
benchmarks (which build the same class on PyTorch's Function, to compare the two libraries)."""

from .autograd.function import Function

__all__ = ["MultiplyAdd", "define_multiply_add"]


def define_multiply_add(function_base):
    """The book's custom Function as a subclass of `function_base` (ember's or torch's
    `autograd.Function`); its graph node is named `MultiplyAddBackward`.

    Example::

        >>> MultiplyAdd = define_multiply_add(ember.autograd.Function)
        >>> w, x, b = ember.tensor([2.0], requires_grad=True), ember.tensor([3.0]), ember.tensor([1.0], requires_grad=True)
        >>> z = MultiplyAdd.apply(w, x, b)   # w * x + b
        >>> z.backward()
        >>> z, w.grad, b.grad                # w.grad = x, b.grad = 1
        (tensor([7.], grad_fn=<MultiplyAddBackward>), tensor([3.]), tensor([1.]))
    """

    class MultiplyAdd(function_base):
        @staticmethod
        def forward(ctx, w, x, b):
            ctx.save_for_backward(w, x)
            return w * x + b

        @staticmethod
        def backward(ctx, grad_output):
            w, x = ctx.saved_tensors
            return grad_output * x, grad_output * w, grad_output

    MultiplyAdd.__qualname__ = "MultiplyAdd"
    return MultiplyAdd


MultiplyAdd = define_multiply_add(Function)
MultiplyAdd.__module__ = __name__
