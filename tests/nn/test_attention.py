"""scaled_dot_product_attention, MultiheadAttention and the Transformer family against PyTorch:
outputs and gradients with copied weights, masks, padding masks, both layouts, both norm orders."""

import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck
from tests.conftest import assert_close
from tests.nn.differential import compare_with_torch, to_ember, to_torch

# The cases mix a bool padding mask with a float attention mask and use norm_first / batch_first=False,
# where PyTorch warns (and ember warns as PyTorch does); the warnings are expected here.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Support for mismatched .* is deprecated:UserWarning"),
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"),
]

rng = np.random.default_rng(0)


def normal(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _mask_for(framework, mask):
    if mask is None or isinstance(mask, bool):
        return mask
    return framework.from_numpy(np.array(mask))


def calling(framework, module_class, call_kwargs):
    """A module wrapping `inner` that forwards its tensor inputs plus the fixed keyword arguments
    (masks given as arrays, converted to `framework`'s tensors), dropping None outputs."""

    class Call(module_class):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *inputs):
            kwargs = {key: _mask_for(framework, value) for key, value in call_kwargs.items()}
            output = self.inner(*inputs, **kwargs)
            if isinstance(output, tuple):  # need_weights=False gives (output, None)
                output = tuple(item for item in output if item is not None)
            return output

    return Call


def compare_call(torch, torch_module, ember_module, inputs, call_kwargs=None, **tolerances):
    call_kwargs = call_kwargs or {}
    torch_wrapper = calling(torch, torch.nn.Module, call_kwargs)(torch_module)
    ember_wrapper = calling(ember, nn.Module, call_kwargs)(ember_module)
    return compare_with_torch(torch, torch_wrapper, ember_wrapper, inputs, **tolerances)


# ---------------------------------------------------------------------- scaled_dot_product_attention
BOOL_MASK = rng.random((4, 6)) > 0.3
FLOAT_MASK = normal(4, 6)
SDPA_CASES = [
    dict(),
    dict(is_causal=True),
    dict(attn_mask=BOOL_MASK),
    dict(attn_mask=FLOAT_MASK),
    dict(attn_mask=np.broadcast_to(BOOL_MASK, (2, 3, 4, 6)).copy()),
    dict(scale=0.3),
]


@pytest.mark.parametrize("options", SDPA_CASES, ids=["plain", "causal", "bool", "float", "full-bool", "scale"])
def test_sdpa_matches_torch(torch, options):
    q, k, v = normal(2, 3, 4, 8), normal(2, 3, 6, 8), normal(2, 3, 6, 5)
    torch_kwargs = {key: torch.from_numpy(val) if isinstance(val, np.ndarray) else val for key, val in options.items()}
    ember_kwargs = {key: ember.from_numpy(val) if isinstance(val, np.ndarray) else val for key, val in options.items()}
    torch_inputs = [to_torch(torch, x, True) for x in (q, k, v)]
    ember_inputs = [ember.from_numpy(x).requires_grad_() for x in (q, k, v)]
    expected = torch.nn.functional.scaled_dot_product_attention(*torch_inputs, **torch_kwargs)
    actual = F.scaled_dot_product_attention(*ember_inputs, **ember_kwargs)
    assert_close(actual, expected, 1e-5, 1e-5)
    upstream = normal(*expected.shape)
    expected.backward(torch.from_numpy(upstream))
    actual.backward(ember.from_numpy(upstream))
    for name, e, t in zip("qkv", ember_inputs, torch_inputs):
        assert_close(e.grad, t.grad, 1e-4, 1e-5, what=f"gradient of {name}")


def test_sdpa_row_with_nothing_to_attend_is_zero_as_torch(torch):
    q, k, v = normal(1, 3, 8), normal(1, 4, 8), normal(1, 4, 5)
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(x) for x in (q, k, v)), attn_mask=torch.from_numpy(mask)
    )
    query = ember.from_numpy(q).requires_grad_()
    actual = F.scaled_dot_product_attention(
        query, ember.from_numpy(k), ember.from_numpy(v), attn_mask=ember.from_numpy(mask)
    )
    assert_close(actual, expected)
    actual.sum().backward()
    assert np.isfinite(query.grad.numpy()).all() and not query.grad.numpy()[0, 1].any()


def test_sdpa_grouped_query_attention(torch):
    q, k, v = normal(2, 4, 3, 8), normal(2, 2, 5, 8), normal(2, 2, 5, 8)
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(x) for x in (q, k, v)), enable_gqa=True
    )
    actual = F.scaled_dot_product_attention(*(ember.from_numpy(x) for x in (q, k, v)), enable_gqa=True)
    assert_close(actual, expected, 1e-5, 1e-5)


def test_sdpa_dropout_zeroes_weights_in_both_directions():
    ember.manual_seed(3)
    q = ember.randn(2, 5, 4)
    v = ember.eye(5).expand(2, 5, 5)
    weights = F.scaled_dot_product_attention(q, q, v, dropout_p=0.5)  # value = identity: rows are the weights
    values = weights.numpy()
    assert (values == 0).any() and (values > 0).any()
    kept = values[values > 0]
    assert kept.max() <= 2.0 + 1e-6  # survivors are scaled by 1 / (1 - p)


def test_sdpa_gradcheck_float64():
    inputs = [ember.from_numpy(normal(2, 3, 4, dtype=np.float64)).requires_grad_() for _ in range(3)]
    mask = ember.from_numpy(rng.random((3, 3)) > 0.3)
    mask[:, 0] = True
    for kwargs in (dict(), dict(is_causal=True), dict(attn_mask=mask), dict(scale=0.7)):

        def function(q, k, v, kwargs=kwargs):
            return F.scaled_dot_product_attention(q, k, v, **kwargs)

        assert gradcheck(function, inputs)
        assert gradgradcheck(function, inputs)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=ember.zeros(3, 5)),
            r"\[3, 5\].*\[2, 4, 6\]",
        ),
        (
            lambda q, k, v: F.scaled_dot_product_attention(
                q, k, v, attn_mask=ember.zeros(4, 6, dtype=ember.bool), is_causal=True
            ),
            "should not be set when is_causal=True",
        ),
        (lambda q, k, v: F.scaled_dot_product_attention(q, k.double(), v), "same dtype"),
        (lambda q, k, v: F.scaled_dot_product_attention(q, k[..., :3], v), r"\[2, 4, 8\].*\[2, 6, 3\]"),
        (
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=ember.zeros(4, 6, dtype=ember.int64)),
            "bool or float",
        ),
    ],
)
def test_sdpa_errors(call, message):
    q, k, v = ember.randn(2, 4, 8), ember.randn(2, 6, 8), ember.randn(2, 6, 5)
    with pytest.raises(RuntimeError, match=message):
        call(q, k, v)


# ---------------------------------------------------------------------- MultiheadAttention
MHA_CASES = [
    (dict(), dict()),
    (dict(batch_first=True), dict()),
    (dict(bias=False), dict(need_weights=False)),
    (dict(add_bias_kv=True, add_zero_attn=True), dict()),
    (dict(kdim=5, vdim=3), dict()),
    (dict(batch_first=True), dict(key_padding_mask=np.array([[False] * 6, [False] * 4 + [True] * 2]))),
    (dict(), dict(attn_mask=np.triu(np.ones((4, 6), dtype=bool), 1), average_attn_weights=False)),
    (
        dict(),
        dict(
            attn_mask=normal(4, 6),
            key_padding_mask=np.array([[0.0] * 6, [0.0] * 5 + [-1.5]], dtype=np.float32),
            need_weights=False,
        ),
    ),
    (dict(add_bias_kv=True), dict(attn_mask=normal(6, 4, 6), need_weights=False)),
]


@pytest.mark.parametrize("options, call_kwargs", MHA_CASES)
@pytest.mark.parametrize("train", [True, False])
def test_multihead_attention_matches_torch(torch, options, call_kwargs, train):
    torch_module = torch.nn.MultiheadAttention(6, 3, **options)
    ember_module = nn.MultiheadAttention(6, 3, **options)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    torch_module.train(train)
    ember_module.train(train)
    batch_first = options.get("batch_first", False)
    shape = (
        (lambda length, features: (2, length, features))
        if batch_first
        else (lambda length, features: (length, 2, features))
    )
    inputs = [
        normal(*shape(4, 6)),
        normal(*shape(6, options.get("kdim", 6))),
        normal(*shape(6, options.get("vdim", 6))),
    ]
    compare_call(torch, torch_module, ember_module, inputs, call_kwargs, rtol=1e-4, atol=1e-5)


def test_multihead_self_attention_unbatched_and_causal(torch):
    torch_module = torch.nn.MultiheadAttention(8, 2)
    ember_module = nn.MultiheadAttention(8, 2)
    causal = np.triu(np.full((5, 5), -np.inf, dtype=np.float32), 1)
    compare_call(torch, torch_module, ember_module, [normal(5, 8)] * 3, dict(attn_mask=causal))
    compare_call(
        torch,
        torch_module,
        ember_module,
        [normal(5, 2, 8)] * 3,
        dict(attn_mask=causal, is_causal=True, need_weights=False),
    )


def test_multihead_attention_repr_and_errors(torch):
    assert repr(nn.MultiheadAttention(8, 2)) == repr(torch.nn.MultiheadAttention(8, 2))
    with pytest.raises(AssertionError, match="divisible"):
        nn.MultiheadAttention(7, 2)
    with pytest.raises(ValueError, match="greater than 0"):
        nn.MultiheadAttention(0, 2)
    mha = nn.MultiheadAttention(8, 2)
    x = ember.randn(5, 2, 8)
    with pytest.raises(RuntimeError, match=r"2D attn_mask is .*\[4, 5\].*\(5, 5\)"):
        mha(x, x, x, attn_mask=ember.zeros(4, 5))
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        mha(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="only bool and floating"):
        mha(x, x, x, key_padding_mask=ember.zeros(2, 5, dtype=ember.int64))


def test_multi_head_attention_forward_functional(torch):
    torch_module = torch.nn.MultiheadAttention(6, 2)
    query = normal(3, 2, 6)

    def arguments(m, tensor):
        return (
            tensor(query),
            tensor(query),
            tensor(query),
            6,
            2,
            m.in_proj_weight,
            m.in_proj_bias,
            None,
            None,
            False,
            0.0,
            m.out_proj.weight,
            m.out_proj.bias,
        )

    expected, expected_weights = torch.nn.functional.multi_head_attention_forward(
        *arguments(torch_module, torch.from_numpy)
    )
    ember_module = nn.MultiheadAttention(6, 2)
    ember_module.load_state_dict({k: to_ember(v) for k, v in torch_module.state_dict().items()})
    actual, weights = F.multi_head_attention_forward(*arguments(ember_module, ember.from_numpy))
    assert_close(actual, expected, 1e-5, 1e-6)
    assert_close(weights, expected_weights, 1e-5, 1e-6)


# ---------------------------------------------------------------------- Transformer layers
LAYER_OPTIONS = [
    dict(),
    dict(batch_first=True),
    dict(norm_first=True),
    dict(norm_first=True, batch_first=True, activation="gelu"),
    dict(activation="gelu", bias=False, layer_norm_eps=1e-3),
]


def _shape(options, length, batch=2, features=8):
    return (batch, length, features) if options.get("batch_first") else (length, batch, features)


@pytest.mark.parametrize("options", LAYER_OPTIONS)
@pytest.mark.parametrize("train", [True, False])
def test_encoder_layer_matches_torch(torch, options, train):
    torch_layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **options)
    ember_layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **options)
    assert list(ember_layer.state_dict()) == list(torch_layer.state_dict())
    torch_layer.train(train)
    ember_layer.train(train)
    padding = np.array([[False] * 5, [False] * 3 + [True] * 2])
    compare_call(torch, torch_layer, ember_layer, [normal(*_shape(options, 5))])
    compare_call(
        torch,
        torch_layer,
        ember_layer,
        [normal(*_shape(options, 5))],
        dict(src_mask=np.triu(np.full((5, 5), -np.inf, dtype=np.float32), 1), src_key_padding_mask=padding),
    )


@pytest.mark.parametrize("options", LAYER_OPTIONS)
@pytest.mark.parametrize("train", [True, False])
def test_decoder_layer_matches_torch(torch, options, train):
    torch_layer = torch.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **options)
    ember_layer = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **options)
    assert list(ember_layer.state_dict()) == list(torch_layer.state_dict())
    torch_layer.train(train)
    ember_layer.train(train)
    inputs = [normal(*_shape(options, 4)), normal(*_shape(options, 5))]
    compare_call(torch, torch_layer, ember_layer, inputs)
    masks = dict(
        tgt_mask=np.triu(np.ones((4, 4), dtype=bool), 1),
        memory_mask=normal(4, 5),
        tgt_key_padding_mask=np.array([[False] * 4, [False] * 3 + [True]]),
        memory_key_padding_mask=np.array([[False] * 5, [False] * 2 + [True] * 3]),
        tgt_is_causal=True,
    )
    compare_call(torch, torch_layer, ember_layer, inputs, masks)


def test_encoder_layer_with_callable_activation(torch):
    torch_layer = torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation=torch.nn.functional.silu)
    ember_layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, activation=F.silu)
    compare_call(torch, torch_layer, ember_layer, [normal(3, 2, 8)])
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


@pytest.mark.parametrize("options", [dict(), dict(batch_first=True, norm_first=True)])
@pytest.mark.parametrize("train", [True, False])
def test_transformer_matches_torch(torch, options, train):
    torch_model = torch.nn.Transformer(8, 2, 2, 2, 16, 0.0, **options)
    ember_model = nn.Transformer(8, 2, 2, 2, 16, 0.0, **options)
    assert list(ember_model.state_dict()) == list(torch_model.state_dict())
    assert repr(ember_model) == repr(torch_model)
    torch_model.train(train)
    ember_model.train(train)
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(4).numpy()
    masks = dict(
        tgt_mask=tgt_mask,
        src_key_padding_mask=np.array([[False] * 5, [False] * 4 + [True]]),
        memory_key_padding_mask=np.array([[False] * 5, [False] * 4 + [True]]),
    )
    compare_call(torch, torch_model, ember_model, [normal(*_shape(options, 5)), normal(*_shape(options, 4))], masks)


def test_generate_square_subsequent_mask_is_torchs(torch):
    assert_close(
        nn.Transformer.generate_square_subsequent_mask(5), torch.nn.Transformer.generate_square_subsequent_mask(5)
    )
    assert nn.Transformer.generate_square_subsequent_mask(3, dtype=ember.float64).dtype == ember.float64


def test_encoder_stack_with_norm_and_detected_causal_mask(torch):
    with pytest.warns(UserWarning, match="enable_nested_tensor is True, but self.use_nested_tensor is False"):
        ember_encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0), 3, norm=nn.LayerNorm(8))
    torch_encoder = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0), 3, norm=torch.nn.LayerNorm(8), enable_nested_tensor=False
    )
    with np.errstate(divide="ignore"):
        mask = np.log(np.tril(np.ones((6, 6), dtype=np.float32)))  # the word language model's causal mask
    compare_call(torch, torch_encoder, ember_encoder, [normal(6, 2, 8)], dict(mask=mask))


def test_encoder_eval_without_grad_zeroes_padding_as_torchs_nested_tensors(torch):
    torch_encoder = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
    ember_encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2)
    ember_encoder.load_state_dict({k: to_ember(v) for k, v in torch_encoder.state_dict().items()})
    torch_encoder.eval()
    ember_encoder.eval()
    src, padding = normal(2, 5, 8), np.array([[False] * 5, [False] * 3 + [True] * 2])
    with torch.no_grad():
        expected = torch_encoder(torch.from_numpy(src), src_key_padding_mask=torch.from_numpy(padding))
    with ember.no_grad():
        actual = ember_encoder(ember.from_numpy(src), src_key_padding_mask=ember.from_numpy(padding))
    assert_close(actual, expected, 1e-4, 1e-5)


def test_word_language_model_subclasses_transformer(torch):
    """PyTorch's examples/word_language_model: a Transformer subclass that uses only the encoder."""

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.1, max_len=50):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            position = ember.arange(0, max_len, dtype=ember.float).unsqueeze(1)
            div_term = ember.exp(ember.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
            pe = ember.zeros(max_len, d_model)
            pe[:, 0::2] = ember.sin(position * div_term)
            pe[:, 1::2] = ember.cos(position * div_term)
            self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

        def forward(self, x):
            return self.dropout(x + self.pe[: x.size(0), :])

    class TransformerModel(nn.Transformer):
        def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
            super(TransformerModel, self).__init__(
                d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers
            )
            self.model_type = "Transformer"
            self.src_mask = None
            self.pos_encoder = PositionalEncoding(ninp, dropout)
            self.input_emb = nn.Embedding(ntoken, ninp)
            self.ninp = ninp
            self.decoder = nn.Linear(ninp, ntoken)
            nn.init.uniform_(self.input_emb.weight, -0.1, 0.1)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

        def forward(self, src, has_mask=True):
            if has_mask:
                if self.src_mask is None or self.src_mask.size(0) != len(src):
                    self.src_mask = ember.log(ember.tril(ember.ones(len(src), len(src))))
            else:
                self.src_mask = None
            src = self.input_emb(src) * math.sqrt(self.ninp)
            src = self.pos_encoder(src)
            output = self.encoder(src, mask=self.src_mask)
            return F.log_softmax(self.decoder(output), dim=-1)

    model = TransformerModel(20, 8, 2, 16, 2, dropout=0.0)
    tokens = ember.randint(0, 20, (7, 3))
    output = model(tokens)
    assert output.shape == (7, 3, 20)
    F.nll_loss(output.view(-1, 20), tokens.view(-1)).backward()
    assert model.input_emb.weight.grad is not None
    assert all(p.grad is not None for p in model.encoder.parameters())


def test_in_projection_helpers_and_torch_module_paths(torch):
    from ember.nn.attention import SDPBackend, sdpa_kernel
    from ember.nn.modules.activation import MultiheadAttention

    assert MultiheadAttention is nn.MultiheadAttention
    q, k, v = normal(3, 2, 6), normal(4, 2, 6), normal(4, 2, 6)
    w, b = normal(18, 6), normal(18)
    expected = torch.nn.functional._in_projection_packed(*(torch.from_numpy(x) for x in (q, k, v, w, b)))
    actual = F._in_projection_packed(*(ember.from_numpy(x) for x in (q, k, v, w, b)))
    for a, e in zip(actual, expected):
        assert_close(a, e, 1e-5, 1e-6)
    batch_first = [ember.from_numpy(x).transpose(0, 1) for x in (q, k, v)]
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
        inside = F.scaled_dot_product_attention(*batch_first)
    assert_close(inside, F.scaled_dot_product_attention(*batch_first))
    with pytest.raises(AssertionError, match="SDPBackend"), sdpa_kernel("math"):
        pass


def test_output_projection_class_lives_where_pytorch_keeps_it(torch, tmp_path):
    """A whole saved transformer pickles `out_proj` by its class path; scripts name it for safe_globals."""
    from ember.nn.modules.linear import NonDynamicallyQuantizableLinear

    assert torch.nn.modules.linear.NonDynamicallyQuantizableLinear.__name__ == "NonDynamicallyQuantizableLinear"
    attention = nn.MultiheadAttention(4, 2)
    assert type(attention.out_proj) is NonDynamicallyQuantizableLinear
    assert isinstance(attention.out_proj, nn.Linear)
    ember.save(attention, tmp_path / "attention.pt")
    with ember.serialization.safe_globals([nn.MultiheadAttention, NonDynamicallyQuantizableLinear]):
        loaded = ember.load(tmp_path / "attention.pt")
    assert type(loaded.out_proj) is NonDynamicallyQuantizableLinear
