"""`torch.distributed.checkpoint.hf_storage` by name: DCP readers and writers for safetensors shards.

They plug into distributed checkpointing, which ember lacks (see `ember.distributed.checkpoint`);
constructing one raises NotImplementedError.
"""

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]


class _NeedsDistributedCheckpoint:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"{type(self).__name__}: ember does not implement torch.distributed.checkpoint; "
            "save and load whole state dicts (ember.save / safetensors) instead"
        )


class HuggingFaceStorageReader(_NeedsDistributedCheckpoint):
    """Reads a DCP checkpoint from safetensors files; cannot be made in ember."""


class HuggingFaceStorageWriter(_NeedsDistributedCheckpoint):
    """Writes a DCP checkpoint as safetensors files; cannot be made in ember."""
