"""`torch.nn.attention.flex_attention` by name: ember does not implement flex attention.

PyTorch's flex attention compiles a user's `score_mod` / `mask_mod` into a block-sparse kernel.
Libraries import `BlockMask` at start-up to test `isinstance(mask, BlockMask)`; here no object is one,
and building a block mask or calling `flex_attention` raises NotImplementedError. Use
`F.scaled_dot_product_attention` with a dense boolean `attn_mask` instead. The mask combinators
(`and_masks`, `or_masks`, `noop_mask`) work, since they only compose Python functions.
"""

from typing import NamedTuple

from ..._dtype import bool_

__all__ = ["BlockMask", "flex_attention", "create_block_mask", "AuxRequest", "and_masks", "or_masks", "noop_mask"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128  # PyTorch's block size, which libraries read as a default


class AuxRequest(NamedTuple):
    """Which extra outputs flex_attention should return (log-sum-exp, row maxima)."""

    lse: bool = False
    max_scores: bool = False


def _no_flex(what):
    return NotImplementedError(
        f"{what}: ember does not implement flex attention; "
        "use F.scaled_dot_product_attention with a dense boolean attn_mask"
    )


class BlockMask:
    """A block-sparse attention mask for flex_attention; cannot be made in ember."""

    def __init__(self, *args, **kwargs):
        raise _no_flex("BlockMask")

    @classmethod
    def from_kv_blocks(cls, *args, **kwargs):
        raise _no_flex("BlockMask.from_kv_blocks")


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None, BLOCK_SIZE=128, _compile=False, **kwargs):
    raise _no_flex("create_block_mask")


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False, **kwargs):
    raise _no_flex("flex_attention")


def noop_mask(batch, head, token_q, token_kv):
    """The mask_mod that keeps every position: True (as a tensor shaped like the batch index)."""
    return batch.new_ones((), dtype=bool_)


def and_masks(*mask_mods):
    """A mask_mod that keeps a position only where every one of `mask_mods` keeps it."""

    def and_mask(batch, head, token_q, token_kv):
        result = batch.new_ones((), dtype=bool_)
        for mask_mod in mask_mods:
            result = result & mask_mod(batch, head, token_q, token_kv)
        return result

    return and_mask


def or_masks(*mask_mods):
    """A mask_mod that keeps a position where any one of `mask_mods` keeps it."""

    def or_mask(batch, head, token_q, token_kv):
        result = batch.new_zeros((), dtype=bool_)
        for mask_mod in mask_mods:
            result = result | mask_mod(batch, head, token_q, token_kv)
        return result

    return or_mask
