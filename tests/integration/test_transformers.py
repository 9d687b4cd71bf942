"""Hugging Face transformers on ember: tiny BERT and GPT-2 built from configs (no downloads).

The same script runs twice in subprocesses, once with real PyTorch and once under
`python -m ember run`, and the two write their results to .npz files to compare. Subprocesses keep
the two `torch` modules apart: transformers binds `torch` at import. Skipped without transformers
or torch; transformers is not one of ember's dependencies.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ember

pytest.importorskip("transformers")
pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]

# float32 on both sides; the ops differ only in summation order, so a few float32 ulps of the largest
# values (|outputs| ~ 3, |gradients| ~ 20 here) is the expected gap.
TOLERANCE = 1e-5

SCRIPT = """
import sys
import numpy as np
import torch
from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel

results = {}
torch.manual_seed(0)
bert = BertModel(BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                            intermediate_size=64))
ids = torch.randint(0, 100, (2, 7))
hidden = bert(ids).last_hidden_state
hidden.sum().backward()
results["bert_hidden"] = hidden.detach().numpy()
results["bert_query_grad"] = bert.encoder.layer[0].attention.self.query.weight.grad.numpy()
results["bert_embedding_grad"] = bert.embeddings.word_embeddings.weight.grad.numpy()

torch.manual_seed(0)
gpt2 = GPT2LMHeadModel(GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=4, n_positions=64))
ids = torch.randint(0, 100, (2, 7))
out = gpt2(ids, labels=ids)
out.loss.backward()
results["gpt2_logits"] = out.logits.detach().numpy()
results["gpt2_attention_grad"] = gpt2.transformer.h[1].attn.c_attn.weight.grad.numpy()
optimizer = torch.optim.AdamW(gpt2.parameters(), lr=1e-3)
optimizer.step()
results["gpt2_loss_after_step"] = gpt2(ids, labels=ids).loss.detach().numpy()
gpt2.eval()
results["gpt2_generated"] = gpt2.generate(ids, max_new_tokens=5, do_sample=False, pad_token_id=0).numpy()
np.savez(sys.argv[1], **results)
"""


def _run(command, tmp_path):
    environment = dict(os.environ, PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", TRANSFORMERS_NO_ADVISORY_WARNINGS="1")
    completed = subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if not all(hasattr(ember, name) for name in ("uint16", "uint32", "uint64")):
        pytest.skip("transformers' safetensors dtype table needs torch.uint16/uint32/uint64, which ember lacks")
    tmp_path = tmp_path_factory.mktemp("transformers")
    script = tmp_path / "tiny_models.py"
    script.write_text(SCRIPT)
    _run([sys.executable, str(script), "torch.npz"], tmp_path)
    _run([sys.executable, "-m", "ember", "run", str(script), "ember.npz"], tmp_path)
    return np.load(tmp_path / "torch.npz"), np.load(tmp_path / "ember.npz")


@pytest.mark.parametrize(
    "name",
    [
        "bert_hidden",
        "bert_query_grad",
        "bert_embedding_grad",
        "gpt2_logits",
        "gpt2_attention_grad",
        "gpt2_loss_after_step",
    ],
)
def test_values_match_torch(results, name):
    expected, actual = results[0][name], results[1][name]
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=TOLERANCE, atol=TOLERANCE, err_msg=name)


def test_greedy_generation_matches_torch(results):
    np.testing.assert_array_equal(results[1]["gpt2_generated"], results[0]["gpt2_generated"])
