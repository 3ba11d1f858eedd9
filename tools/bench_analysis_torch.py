#!/usr/bin/env python3
"""PyTorch side of `npm run bench:analysis` (tools/bench-analysis.ts): the same Qwen3 forward and
the same loss as the engine's runtime, in float32 on ONE thread, timed on the same checkpoint
and tokens.

  /usr/bin/python3 tools/bench_analysis_torch.py CHECKPOINT_DIR TOKENS.json RUNS

CHECKPOINT_DIR: config.json + model.safetensors (F32, tied or untied head). TOKENS.json: a list
of equal-length id lists. Loss: per sequence the mean cross-entropy of tokens 1..T−1 predicted
from the previous position, averaged over sequences (the engine's lossAndLayerGrads objective
with every token a target). Prints one JSON line: median CPU seconds of a forward (no grad) and of
a forward + backward (gradients of every parameter), the loss, and torch's own 1024² matmul
GFLOP/s measured in the same process and the BLAS torch was built against.
"""
import json
import math
import os
import re
import struct
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)


def read_safetensors_f32(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise SystemExit(f"{path}: {name} is {info['dtype']}, the benchmark writes F32")
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        raw = np.memmap(path, dtype="<f4", mode="r", offset=8 + size + begin, shape=shape) if end > begin else np.zeros(shape, "<f4")
        out[name] = torch.from_numpy(np.array(raw)).requires_grad_(True)
    return out


def rms_norm(x, w, eps):
    return w * (x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], -1)


def loss_of(cfg, w, ids):
    """Mean over sequences of the mean next-token cross-entropy (ids: [B, T] int64)."""
    b, t = ids.shape
    hidden, nh, nkv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    d = cfg.get("head_dim") or hidden // nh
    eps = cfg["rms_norm_eps"]
    theta = cfg.get("rope_theta", 10000.0)
    inv = theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]
    ang = torch.cat([ang, ang], -1)
    cos, sin = ang.cos().float(), ang.sin().float()
    causal = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
    x = w["model.embed_tokens.weight"][ids]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (h @ w[p + "self_attn.q_proj.weight"].T).view(b, t, nh, d).transpose(1, 2)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).view(b, t, nkv, d).transpose(1, 2)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).view(b, t, nkv, d).transpose(1, 2)
        q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
        k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(nh // nkv, 1), v.repeat_interleave(nh // nkv, 1)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(d)
        a = torch.softmax(s.masked_fill(causal, float("-inf")), -1) @ v
        x = x + a.transpose(1, 2).reshape(b, t, nh * d) @ w[p + "self_attn.o_proj.weight"].T
        h2 = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = h2 @ w[p + "mlp.gate_proj.weight"].T
        x = x + (torch.nn.functional.silu(gate) * (h2 @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])
    logits = rms_norm(x, w["model.norm.weight"], eps)[:, :-1] @ head.T
    per_token = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1), reduction="none")
    return per_token.view(b, t - 1).mean(-1).mean()


def median_seconds(fn, runs):
    """Median CPU seconds (one thread: CPU time is compute time, whatever else the machine runs)."""
    fn()  # warm-up
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return sorted(times)[len(times) // 2]


def main():
    directory, tokens_path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(os.path.join(directory, "config.json")) as f:
        cfg = json.load(f)
    weights = read_safetensors_f32(os.path.join(directory, "model.safetensors"))
    with open(tokens_path) as f:
        ids = torch.tensor(json.load(f), dtype=torch.int64)
    with torch.no_grad():
        loss = float(loss_of(cfg, weights, ids))
        forward = median_seconds(lambda: loss_of(cfg, weights, ids), runs)

    def step():
        for tensor in weights.values():
            tensor.grad = None
        loss_of(cfg, weights, ids).backward()

    step_seconds = median_seconds(step, runs)
    a, b = torch.rand(1024, 1024), torch.rand(1024, 1024)
    matmul = median_seconds(lambda: a @ b, 5)
    blas = re.search(r"BLAS_INFO=([^,]+)", torch.__config__.show())
    print(json.dumps({
        "forward_s": forward, "step_s": step_seconds, "loss": loss, "matmul_gflops": 2 * 1024 ** 3 / matmul / 1e9,
        "threads": torch.get_num_threads(), "blas": blas.group(1) if blas else "unknown", "version": torch.__version__,
    }))


if __name__ == "__main__":
    main()
