"""Real-model rows: Hugging Face `transformers` classes built from their configs, random weights.

The op and model rows elsewhere are programs written for this suite; these are the networks users
actually run, as `transformers` defines them (its attention, its RoPE, its TF-style padding), so
every system meets the graphs a user's model hands it. Nothing is downloaded: each model is
built from its config class at the default (base) size of the named checkpoint, under a fixed
`torch.manual_seed`, in eval mode. Decoders run without a KV cache (`use_cache=False`): one
forward over the whole sequence, as in a prefill or an encoder.

Random weights, made to behave like trained ones where it matters to the check and to the
compilers: a parameter that initialisation leaves constant (norm gains of 1, zero biases,
ConvNeXt's 1e-6 layer scale) gets noise, so no compiler can fold it as an identity a trained
model would not have; batch-norm statistics are those of the row's own input (one training-mode
pass), so activations stay O(1) through 50 layers, as a trained network's do.

`transformers` is imported when a row is built, not with the row table, so the other rows need
neither the package nor its import time. The rows' Case has no versa text: Versa compiles the
module with `versa.compile` (what a user of a torch model calls), IREE gets
`versa.import_torch`'s program (bench/peers.py).
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from bench.case import Case

SEQ = 128  # tokens per sequence for the text models


class FirstOutput(nn.Module):
    """The model called with its inputs by name and `return_dict=False`, its first output only
    (hidden states or logits): positional tensors in, one plain tensor out, which every exporter
    (TorchScript for ONNX and OpenVINO, torch.export for Versa) and the float64 reference take
    alike."""

    def __init__(self, model: nn.Module, names: tuple[str, ...]):
        super().__init__()
        self.model, self.names = model, names

    def forward(self, *xs: torch.Tensor) -> torch.Tensor:
        return self.model(**dict(zip(self.names, xs, strict=True)), return_dict=False)[0]


def _resnet50() -> nn.Module:
    from transformers import ResNetConfig, ResNetForImageClassification

    return ResNetForImageClassification(ResNetConfig(num_labels=1000))  # defaults: ResNet-50


def _mobilenet_v2() -> nn.Module:
    from transformers import MobileNetV2Config, MobileNetV2ForImageClassification

    return MobileNetV2ForImageClassification(MobileNetV2Config(num_labels=1000))  # 1.0, 224


def _vit_b16() -> nn.Module:
    from transformers import ViTConfig, ViTForImageClassification

    return ViTForImageClassification(ViTConfig(num_labels=1000))  # defaults: ViT-B/16 at 224²


def _convnext_t() -> nn.Module:
    from transformers import ConvNextConfig, ConvNextForImageClassification

    return ConvNextForImageClassification(ConvNextConfig(num_labels=1000))  # defaults: ConvNeXt-T


def _bert_base() -> nn.Module:
    from transformers import BertConfig, BertModel

    # No pooler: the row's output is the last hidden state, and a pooler nobody reads would be
    # dead code for the graph compilers but not for eager.
    return BertModel(BertConfig(), add_pooling_layer=False)  # defaults: bert-base-uncased


def _gpt2_small() -> nn.Module:
    from transformers import GPT2Config, GPT2Model

    return GPT2Model(GPT2Config(use_cache=False))  # defaults: gpt2 (124M)


def _llama_style() -> nn.Module:
    """SmolLM-135M's shape (a LlamaForCausalLM checkpoint): grouped-query attention (9 query
    heads share 3 key/value heads), RoPE, RMSNorm and a SwiGLU MLP, 30 layers of width 576."""
    from transformers import LlamaConfig, LlamaModel

    config = LlamaConfig(
        vocab_size=49152,
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        max_position_embeddings=2048,
        rope_theta=10000.0,
        use_cache=False,
    )
    return LlamaModel(config)


def _whisper_tiny_encoder() -> nn.Module:
    from transformers import WhisperConfig, WhisperModel

    return WhisperModel(WhisperConfig(use_cache=False)).get_encoder()  # defaults: whisper-tiny


def _image(rng: np.random.Generator, batch: int) -> list[np.ndarray]:
    return [rng.standard_normal((batch, 3, 224, 224), dtype=np.float32)]


def _tokens(vocab: int) -> Callable[[np.random.Generator, int], list[np.ndarray]]:
    """Token ids and the attention mask a tokenizer returns with them (no padding: all ones).
    The mask is what users pass, and it matters to the exporters: without one, transformers'
    decoders look for packed sequences in the position ids (`torch.diff`), which neither the
    TorchScript ONNX exporter nor OpenVINO's converter can take."""

    def inputs(rng: np.random.Generator, batch: int) -> list[np.ndarray]:
        return [rng.integers(0, vocab, (batch, SEQ), dtype=np.int64), np.ones((batch, SEQ), np.int64)]

    return inputs


def _mel(rng: np.random.Generator, batch: int) -> list[np.ndarray]:
    return [rng.standard_normal((batch, 80, 3000), dtype=np.float32)]  # 30 s of log-mel frames


@dataclass(frozen=True)
class RealModel:
    label: str  # the row name before " batch N"
    build: Callable[[], nn.Module]
    names: tuple[str, ...]  # the forward's keywords for the inputs, in order
    inputs: Callable[[np.random.Generator, int], list[np.ndarray]]
    batches: tuple[int, ...]
    reduction: int  # the longest dot product, for the tolerance (bench/driver.py:check)


PIXELS, TEXT, MEL = ("pixel_values",), ("input_ids", "attention_mask"), ("input_features",)
MODELS = [
    RealModel("HF ResNet-50 224²", _resnet50, PIXELS, _image, (1,), 4608),
    RealModel("HF MobileNetV2 224²", _mobilenet_v2, PIXELS, _image, (1,), 1280),
    RealModel("HF ViT-B/16 224²", _vit_b16, PIXELS, _image, (1,), 3072),
    RealModel("HF ConvNeXt-T 224²", _convnext_t, PIXELS, _image, (1,), 3072),
    RealModel(f"HF BERT-base seq {SEQ}", _bert_base, TEXT, _tokens(30522), (1, 8), 3072),
    RealModel(f"HF GPT-2 small seq {SEQ}", _gpt2_small, TEXT, _tokens(50257), (1,), 3072),
    RealModel(f"HF Llama-style 135M GQA seq {SEQ}", _llama_style, TEXT, _tokens(49152), (1,), 1536),
    RealModel("HF Whisper-tiny encoder 30 s", _whisper_tiny_encoder, MEL, _mel, (1,), 1536),
]


def realistic_parameters(module: nn.Module) -> None:
    """Noise on every parameter that initialisation left constant (see the module docstring)."""
    with torch.no_grad():
        for param in module.parameters():
            flat = param.reshape(-1)
            if flat.numel() > 0 and bool((flat == flat[0]).all()):
                param.add_(0.1 * torch.randn_like(param))


def calibrate_batch_norms(module: nn.Module, args: list[torch.Tensor]) -> None:
    """Running statistics = the statistics of this input (momentum None: a plain average over
    the one training-mode pass), then eval mode; nothing else changes in training mode here."""
    norms = [m for m in module.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None
    with torch.no_grad():
        module.train()
        module(*args)
    module.eval()


def count_flops(module: nn.Module, args: list[torch.Tensor]) -> float:
    """FLOPs of one eager call (2 per multiply-add of every matmul, conv and attention), from
    torch's FlopCounterMode. Attention through the math backend: the counter has no formula
    for the CPU flash-attention kernel, and the math backend is the same product as matmuls."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.utils.flop_counter import FlopCounterMode

    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as counter:
        module(*args)
    return float(counter.get_total_flops())


def case(model: RealModel, batch: int) -> Case:
    """The bench case of `model` at `batch`: the module (eval, float32), its inputs, its FLOPs."""
    from transformers.utils import logging

    logging.set_verbosity_error()  # its notes on config defaults (loss type) are not the table's
    torch.manual_seed(0)
    module = FirstOutput(model.build(), model.names)
    realistic_parameters(module)
    arrays = model.inputs(np.random.default_rng(0), batch)
    args = [torch.from_numpy(a) for a in arrays]
    calibrate_batch_norms(module, args)
    module.eval()
    flops = count_flops(module, args)
    weights = sum(p.numel() for p in module.parameters()) + sum(b.numel() for b in module.buffers())
    moved = 4.0 * weights + sum(a.nbytes for a in arrays)
    return Case(None, arrays, module, len(arrays), flops, moved, model.reduction)
