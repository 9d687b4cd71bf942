"""Attention in functional form: `scaled_dot_product_attention` and `multi_head_attention_forward`.

Both are composites of ember ops (matmul, softmax, masked_fill, dropout), so their gradients and
gradients of gradients come from those ops. Re-exported by `ember.nn.functional`.
"""

import math

import numpy as np

from .. import ops as _ops
from .._tensor import new_tensor
from .._dtype import bool_ as _bool
from ..ops import creation as _creation
from . import functional as _F
from .._warn import warn as _warn

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _attention_mask_as_bias(attn_mask, query, weights_shape):
    """A bool mask (True = may attend) or a float mask (added to the scores) as an additive bias."""
    if attn_mask.dtype != _bool and attn_mask.dtype != query.dtype:
        raise RuntimeError(
            f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {attn_mask.dtype} and query.dtype: {query.dtype} instead."
        )
    try:
        np.broadcast_shapes(tuple(attn_mask.shape), weights_shape)
    except ValueError:
        raise RuntimeError(
            f"scaled_dot_product_attention: attn_mask of shape {list(attn_mask.shape)} cannot be "
            f"broadcast to the attention weights' shape {list(weights_shape)} (batch..., L, S)"
        ) from None
    if attn_mask.dtype == _bool:
        return _creation.zeros(tuple(attn_mask.shape), dtype=query.dtype).masked_fill(~attn_mask, -math.inf)
    return attn_mask


def _check_sdpa_inputs(query, key, value):
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead."
        )
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            f"scaled_dot_product_attention: query, key and value must be at least 2-D (..., L, E), "
            f"got shapes {list(query.shape)}, {list(key.shape)} and {list(value.shape)}"
        )
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query's last dimension ({query.shape[-1]}) must equal "
            f"key's ({key.shape[-1]}); got query {list(query.shape)} and key {list(key.shape)}"
        )
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention: key and value must have the same sequence length S; "
            f"got key {list(key.shape)} and value {list(value.shape)}"
        )


def _repeat_kv_heads(query, key, value):
    """Grouped-query attention: repeat each key/value head so that every query head has one."""
    if query.dim() < 3:
        return key, value
    q_heads, kv_heads = query.shape[-3], key.shape[-3]
    if kv_heads == 0 or q_heads % kv_heads != 0 or q_heads % value.shape[-3] != 0:
        raise RuntimeError(
            f"Number of heads in key and value must divide the number of heads in query; got "
            f"query {list(query.shape)}, key {list(key.shape)}, value {list(value.shape)}"
        )
    key = key.repeat_interleave(q_heads // kv_heads, -3)
    value = value.repeat_interleave(q_heads // value.shape[-3], -3)
    return key, value


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    """softmax(query @ key^T * scale + mask) @ value, with optional dropout on the attention weights.

    Args:
        query: (..., L, E); key: (..., S, E); value: (..., S, Ev).
        attn_mask: bool (True = may attend) or float (added to the scores), broadcastable to (..., L, S).
        dropout_p: dropout probability on the weights; applied whenever it is > 0, as PyTorch.
        is_causal: attend only to positions at or before one's own (a lower-triangular mask);
            `attn_mask` must then be None.
        scale: score scale; 1 / sqrt(E) if None.
        enable_gqa: let key/value have fewer heads (dim -3) than query, each shared by a group.

    Returns:
        (..., L, Ev). A query row that may attend to nothing gives zeros (and zero gradient), as
        PyTorch's CPU kernel.

    Example::

        >>> q = k = v = ember.randn(2, 4, 5, 8)
        >>> F.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        torch.Size([2, 4, 5, 8])
    """
    _check_sdpa_inputs(query, key, value)
    if enable_gqa:
        key, value = _repeat_kv_heads(query, key, value)
    length, source_length = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    try:
        batch_shape = np.broadcast_shapes(tuple(query.shape[:-2]), tuple(key.shape[:-2]), tuple(value.shape[:-2]))
    except ValueError:
        raise RuntimeError(
            f"scaled_dot_product_attention: the batch dimensions of query {list(query.shape)}, "
            f"key {list(key.shape)} and value {list(value.shape)} do not broadcast"
        ) from None
    weights_shape = tuple(batch_shape) + (length, source_length)
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
            )
        allowed = new_tensor(np.tril(np.ones((length, source_length), dtype=bool)))
        scores = scores.masked_fill(~allowed, -math.inf)
    elif attn_mask is not None:
        scores = scores + _attention_mask_as_bias(attn_mask, query, weights_shape)
    nothing_to_attend = np.all(np.isneginf(scores._data), axis=-1, keepdims=True)
    if nothing_to_attend.any():
        blocked = new_tensor(nothing_to_attend)
        weights = _ops.softmax(scores.masked_fill(blocked, 0.0), -1).masked_fill(blocked, 0.0)
    else:
        weights = _ops.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = _F.dropout(weights, dropout_p, training=True)
    return weights.matmul(value)


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask as a float one (-inf where True); float masks pass; other dtypes are refused."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        _warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
            stacklevel=3,
        )
    if not is_float:
        mask = _creation.zeros(tuple(mask.shape), dtype=target_type).masked_fill(mask, -math.inf)
    return mask


def _none_or_dtype(tensor):
    if tensor is None:
        return None
    return tensor.dtype


def _linear(input, weight, bias):
    return _F.linear(input, weight, bias)


def _in_projection_packed(q, k, v, w, b=None):
    """Project q, k, v with the three (E, E) blocks of a packed (3E, E) weight `w` (and (3E,) bias `b`)."""
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """Project q, k, v with separate weights (kdim/vdim may differ from the embedding size)."""
    embed_dim, kdim, vdim = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, weight, expected in (
        ("q", w_q, (embed_dim, embed_dim)),
        ("k", w_k, (embed_dim, kdim)),
        ("v", w_v, (embed_dim, vdim)),
    ):
        if tuple(weight.shape) != expected:
            raise AssertionError(f"expecting {name} weight shape of {expected}, but got {tuple(weight.shape)}")
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _project_inputs(
    query,
    key,
    value,
    in_proj_weight,
    in_proj_bias,
    use_separate_proj_weight,
    q_proj_weight,
    k_proj_weight,
    v_proj_weight,
):
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    for name, weight in (
        ("q_proj_weight", q_proj_weight),
        ("k_proj_weight", k_proj_weight),
        ("v_proj_weight", v_proj_weight),
    ):
        if weight is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
    biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    return _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, *biases)


def _pad_last(mask):
    return None if mask is None else _F.pad(mask, (0, 1))


def _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the input is batched (3-D) rather than unbatched (2-D); checks the masks' ranks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.dim()}-D tensor instead"
                )
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}"
                    )
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """Multi-head attention on sequence-first inputs, as `torch.nn.functional.multi_head_attention_forward`.

    query (L, N, E), key (S, N, E_k), value (S, N, E_v), or unbatched (L, E) ...; masks as
    `nn.MultiheadAttention.forward`. Returns `(output (L, N, E), weights)`: weights are
    (N, L, S) averaged over heads, (N, num_heads, L, S) with `average_attn_weights=False`, or None
    unless `need_weights`.
    """
    is_batched = _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_length, batch_size, embed_dim = query.shape
    source_length = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
            "method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's {tuple(value.shape[:2])}"
            )
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    q, k, v = _project_inputs(
        query,
        key,
        value,
        in_proj_weight,
        in_proj_bias,
        use_separate_proj_weight,
        q_proj_weight,
        k_proj_weight,
        v_proj_weight,
    )
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (target_length, source_length):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(target_length, source_length)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            expected = (batch_size * num_heads, target_length, source_length)
            if tuple(attn_mask.shape) != expected:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {expected}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key and value.")
        k = _ops.cat([k, bias_k.repeat(1, batch_size, 1)])
        v = _ops.cat([v, bias_v.repeat(1, batch_size, 1)])
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must be both given or both None")

    q = q.reshape(target_length, batch_size * num_heads, head_dim).transpose(0, 1)
    k = _heads_first(k, static_k, batch_size, num_heads, head_dim, "static_k")
    v = _heads_first(v, static_v, batch_size, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zeros = _creation.zeros((batch_size * num_heads, 1, head_dim), dtype=q.dtype)
        k = _ops.cat([k, zeros], 1)
        v = _ops.cat([v, zeros], 1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    source_length = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (batch_size, source_length):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(batch_size, source_length)}, but got "
                f"{tuple(key_padding_mask.shape)}"
            )
        key_padding_mask = (
            key_padding_mask.reshape(batch_size, 1, 1, source_length)
            .expand(-1, num_heads, -1, -1)
            .reshape(batch_size * num_heads, 1, source_length)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = _ops.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = _F.dropout(weights, p=dropout_p)
        output = weights.matmul(v)
        output = output.transpose(0, 1).reshape(target_length * batch_size, embed_dim)
        output = _linear(output, out_proj_weight, out_proj_bias).reshape(target_length, batch_size, embed_dim)
        weights = weights.reshape(batch_size, num_heads, target_length, source_length)
        if average_attn_weights:
            weights = weights.mean(1)
        if not is_batched:
            output, weights = output.squeeze(1), weights.squeeze(0)
        return output, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(batch_size, num_heads, -1, source_length)
    q = q.reshape(batch_size, num_heads, target_length, head_dim)
    k = k.reshape(batch_size, num_heads, source_length, head_dim)
    v = v.reshape(batch_size, num_heads, source_length, head_dim)
    output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = output.permute(2, 0, 1, 3).reshape(batch_size * target_length, embed_dim)
    output = _linear(output, out_proj_weight, out_proj_bias).reshape(target_length, batch_size, embed_dim)
    if not is_batched:
        output = output.squeeze(1)
    return output, None


def _heads_first(projected, static, batch_size, num_heads, head_dim, name):
    """(S, N, E) -> (N * num_heads, S, head_dim), or the caller's precomputed `static` tensor."""
    if static is None:
        return projected.reshape(projected.shape[0], batch_size * num_heads, head_dim).transpose(0, 1)
    if static.shape[0] != batch_size * num_heads or static.shape[2] != head_dim:
        raise AssertionError(
            f"expecting {name}.size(0) of {batch_size * num_heads} and {name}.size(2) of "
            f"{head_dim}, but got {tuple(static.shape)}"
        )
    return static
