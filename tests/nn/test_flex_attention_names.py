"""torch.nn.attention.flex_attention in ember: the mask combinators work, flex attention itself raises."""

import pytest

import ember
from ember.nn.attention import flex_attention as flex


def _grid(batch, length):
    """Index tensors that broadcast to (batch, 1, length, length), as mask_mods receive them."""
    return (
        ember.arange(batch).view(batch, 1, 1, 1),
        ember.zeros(1, dtype=ember.int64).view(1, 1, 1, 1),
        ember.arange(length).view(1, 1, length, 1),
        ember.arange(length).view(1, 1, 1, length),
    )


def causal(batch, head, token_q, token_kv):
    return token_q >= token_kv


def window_of_one(batch, head, token_q, token_kv):
    return token_q - token_kv <= 1


def test_and_or_noop_masks():
    grid = _grid(2, 4)
    both = flex.and_masks(causal, window_of_one)(*grid)
    either = flex.or_masks(causal, window_of_one)(*grid)
    assert both.dtype is ember.bool and both.shape == (1, 1, 4, 4)  # the masks ignore the batch index
    assert both[0, 0].int().tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]
    assert either[0, 0].all().item()
    assert flex.noop_mask(*grid).item() is True
    assert not flex.or_masks()(*grid).item()


def test_flex_attention_and_block_masks_raise():
    for call in (
        lambda: flex.BlockMask(),
        lambda: flex.create_block_mask(causal, 1, 1, 4, 4),
        lambda: flex.flex_attention(ember.ones(1, 1, 4, 8), ember.ones(1, 1, 4, 8), ember.ones(1, 1, 4, 8)),
    ):
        with pytest.raises(NotImplementedError, match="scaled_dot_product_attention"):
            call()
    assert not isinstance(ember.ones(2), flex.BlockMask)
    assert flex.AuxRequest() == (False, False) and flex.AuxRequest(lse=True).lse
