"""Small PyTorch models of the families Versa compiles: the frontend tests and examples use them.

Each builder returns a seeded model in eval mode and example inputs for a batch size.
"""

import torch
from torch import nn
from torch.nn import functional as F


class MLP(nn.Module):
    def __init__(self, sizes=(64, 128, 128, 10)):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = F.gelu(layer(x))
        return self.layers[-1](x)


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    """ResNet basic block with a strided, projected shortcut."""

    def __init__(self, cin=16, cout=32, stride=2):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class Bottleneck(nn.Module):
    def __init__(self, cin=32, width=8, expansion=4):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, width * expansion, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(width * expansion)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        return F.relu(self.bn3(self.conv3(y)) + x)


class InvertedResidual(nn.Module):
    """MobileNetV2: expand (1x1), depthwise 3x3, ReLU6, project, residual."""

    def __init__(self, channels=16, expand=4):
        super().__init__()
        hidden = channels * expand
        self.block = nn.Sequential(
            nn.Conv2d(channels, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False), nn.BatchNorm2d(hidden),
            nn.ReLU6(), nn.Conv2d(hidden, channels, 1, bias=False), nn.BatchNorm2d(channels),
        )  # fmt: skip

    def forward(self, x):
        return x + self.block(x)


class GPT2Block(nn.Module):
    """Token + position embeddings, one pre-norm causal self-attention block, tied LM head."""

    def __init__(self, vocab=100, context=16, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(context, dim)
        self.ln1, self.ln2, self.ln_f = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim)
        )

    def forward(self, ids):
        b, t = ids.shape
        x = self.tokens(ids) + self.positions(torch.arange(t))
        q, k, v = self.qkv(self.ln1(x)).split(x.shape[-1], dim=-1)
        q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, -1))
        x = x + self.mlp(self.ln2(x))
        return self.ln_f(x) @ self.tokens.weight.t()


class UNetBlock(nn.Module):
    """Down (conv, pool), bottom, up (transposed conv), skip concatenation, out conv."""

    def __init__(self, channels=8):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), nn.GroupNorm(2, channels), nn.SiLU())
        self.bottom = nn.Conv2d(channels, 2 * channels, 3, padding=1)
        self.up = nn.ConvTranspose2d(2 * channels, channels, 2, stride=2)
        self.out = nn.Conv2d(2 * channels, 3, 1)

    def forward(self, x):
        skip = self.down(x)
        y = F.relu(self.bottom(F.avg_pool2d(skip, 2)))
        return self.out(torch.cat([self.up(y), skip], dim=1))


def transformer_encoder():
    return nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)


def build(name: str, batch: int = 1, seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """Model `name` (seeded weights, eval mode) and example inputs with `batch` rows."""
    torch.manual_seed(seed)
    model, inputs = {
        "mlp": lambda: (MLP(), (torch.randn(batch, 64),)),
        "cnn": lambda: (SmallCNN(), (torch.randn(batch, 3, 16, 16),)),
        "resnet_basic": lambda: (BasicBlock(), (torch.randn(batch, 16, 16, 16),)),
        "resnet_bottleneck": lambda: (Bottleneck(), (torch.randn(batch, 32, 8, 8),)),
        "mobilenet_v2_block": lambda: (InvertedResidual(), (torch.randn(batch, 16, 8, 8),)),
        "transformer_encoder": lambda: (transformer_encoder(), (torch.randn(batch, 12, 32),)),
        "gpt2_block": lambda: (GPT2Block(), (torch.randint(0, 100, (batch, 16)),)),
        "unet_block": lambda: (UNetBlock(), (torch.randn(batch, 3, 16, 16),)),
    }[name]()
    for module in model.modules():  # non-trivial batch-norm statistics
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            nn.init.uniform_(module.weight, 0.5, 1.5)
            nn.init.uniform_(module.bias, -0.5, 0.5)
    return model.eval(), inputs


NAMES = ("mlp", "cnn", "resnet_basic", "resnet_bottleneck", "mobilenet_v2_block", "transformer_encoder",
         "gpt2_block", "unet_block")  # fmt: skip
