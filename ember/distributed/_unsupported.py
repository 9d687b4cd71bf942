"""The one error for the parts of torch.distributed that need DTensor, which ember does not implement."""


def no_dtensor(what):
    return NotImplementedError(
        f"{what} needs DTensor, which ember does not implement; shard by hand with "
        "ember.distributed collectives (all_gather, scatter, ...) or run the model unsharded"
    )
