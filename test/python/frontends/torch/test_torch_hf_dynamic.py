"""Hugging Face BERT and a Llama-style decoder (small configs of bench/hf_models.py's classes,
random weights) compile once with dynamic batch and sequence as one graph (issue 46): their
position ids (a registered buffer cut to the sequence, `arange`), token types (a gather and an
expand to the batch) and attention masks (`arange` comparisons, `&`, the padding mask read by
index tensors) convert, so no op runs eagerly. One compile matches eager at several shapes,
with padded masks, within the tolerance `versa.tolerance` gives the imported program."""

import pytest
import torch
import versa
from torch import nn
from torch.export import Dim
from versa import tolerance
from versa.signature import find_function

transformers = pytest.importorskip("transformers")

VOCAB = 100
BATCH, SEQ = Dim("batch", min=1, max=8), Dim("seq", min=2, max=64)
DIMS = {"input_ids": {0: BATCH, 1: SEQ}, "attention_mask": {0: BATCH, 1: SEQ}}
SHAPES = ((1, 2), (2, 7), (3, 17), (4, 64))


class Tokens(nn.Module):
    """The model called with token ids and an attention mask by name, its hidden states out."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask, return_dict=False)[0]


def _bert() -> nn.Module:
    config = transformers.BertConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=64,
    )
    return transformers.BertModel(config, add_pooling_layer=False)


def _llama() -> nn.Module:
    config = transformers.LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        use_cache=False,
    )
    return transformers.LlamaModel(config)


def _inputs(batch: int, seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and a right-padded mask: sequence j of the batch ends j tokens early."""
    ids = torch.randint(0, VOCAB, (batch, seq))
    mask = torch.ones(batch, seq, dtype=torch.int64)
    for j in range(1, batch):
        mask[j, max(seq - j, 1) :] = 0
    return ids, mask


@pytest.mark.parametrize("build", [_bert, _llama], ids=["bert", "llama"])
def test_one_graph_serves_every_batch_and_sequence(build) -> None:
    torch.manual_seed(0)
    model = Tokens(build()).eval()
    example = _inputs(2, 8)
    program = versa.import_torch(model, example, dynamic_shapes=DIMS)
    (allowed,) = tolerance.for_function(find_function(program, None))
    compiled = versa.compile(model, example, dynamic_shapes=DIMS)  # a partition would warn: an error here
    with torch.no_grad():
        for shape in SHAPES:
            inputs = _inputs(*shape)
            got, want = compiled(*inputs), model(*inputs)
            assert got.shape == want.shape
            failure = tolerance.check(got.numpy(), want.numpy(), allowed)
            assert failure is None, f"{shape}: {failure}"
    assert len(compiled._compiled) == 1
