"""The one name of `torch._dynamo._trace_wrapped_higher_order_op` that libraries import.

`TransformGetItemToIndex` is a PyTorch function mode (`__torch_function__` override) that makes
`x[i]` with a 0-d tensor `i` index by tensor rather than by `i.item()`, so that vmap can batch it.
ember has no function modes, so the class can be imported but entering it raises.
"""

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex:
    """Context manager that would route tensor indexing through an index op; raises in ember."""

    def __enter__(self):
        raise NotImplementedError(
            "TransformGetItemToIndex is a torch function mode; ember does not implement "
            "__torch_function__ modes (index with an explicit index_select / gather instead)"
        )

    def __exit__(self, *exc_info):
        return False
