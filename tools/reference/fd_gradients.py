#!/usr/bin/env python3
"""Decoder-layer gradients of the runtime against float64 central finite differences of the whole
model (numpy only: no torch needed), on sampled coordinates. Qwen3 dense / Qwen3-MoE (both expert
layouts) / Qwen2 / Llama.

The objective is the runtime's: the mean over sequences of each sequence's mean CE over its
target tokens (lossMask[t] = 1: token t predicted from position t-1). The forward is the one of
reference_forward.py (same conventions), written with numpy in float64. Per decoder-layer tensor
it samples the `--top` coordinates of largest |runtime gradient| and `--random` others, and
prints the pooled relative error sqrt(sum (g - fd)^2 / sum fd^2) of each gradients file given.

Run (repository root; the gradients come from tools/measure-head-precision.ts --dump-grads):
  python3 tools/reference/fd_gradients.py --model assets/demo/instruct \
      --sequences engine/model/testdata/demo-agent-sequences.jsonl G1.safetensors [G2.safetensors ...]
"""
import argparse
import json
import math
import os
import sys

sys.dont_write_bytecode = True
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_min import read_safetensors  # noqa: E402


def rms_norm(x, w, eps):
    return w * (x / np.sqrt((x * x).mean(-1, keepdims=True) + eps))


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], -1)


class Model:
    def __init__(self, cfg, w):
        assert cfg["model_type"] in ("qwen3", "qwen2", "llama", "qwen3_moe"), cfg["model_type"]
        self.w, self.cfg = w, cfg
        self.nh, self.nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.d = cfg.get("head_dim") or cfg["hidden_size"] // self.nh
        self.L, self.eps = cfg["num_hidden_layers"], cfg["rms_norm_eps"]
        rp = cfg.get("rope_parameters") or {}
        self.theta = rp.get("rope_theta", cfg.get("rope_theta", 10000.0))
        self.qk_norm = cfg["model_type"] in ("qwen3", "qwen3_moe")
        self.bias = cfg["model_type"] == "qwen2" or bool(cfg.get("attention_bias"))
        self.tied = bool(cfg.get("tie_word_embeddings"))

    def sparse(self, i):  # Qwen3-MoE: experts unless in mlp_only_layers or off decoder_sparse_step
        c = self.cfg
        return "num_experts" in c and i not in c.get("mlp_only_layers", []) and (i + 1) % c.get("decoder_sparse_step", 1) == 0

    def moe(self, p, h2):
        """Router softmax over all experts, top-k (ties: lower index), optional renormalisation,
        Σ w · SwiGLU_e over the chosen experts; per-expert or fused (gate_up_proj/down_proj) tensors."""
        c, w = self.cfg, self.w
        z = h2 @ w[p + "mlp.gate.weight"].T
        prob = np.exp(z - z.max(-1, keepdims=True))
        prob /= prob.sum(-1, keepdims=True)
        chosen = np.argsort(-prob, axis=-1, kind="stable")[:, : c["num_experts_per_tok"]]
        weight = np.take_along_axis(prob, chosen, -1)
        if c.get("norm_topk_prob"):
            weight /= weight.sum(-1, keepdims=True)
        out = np.zeros_like(h2)
        for e in np.unique(chosen):
            tok, slot = np.nonzero(chosen == e)
            if p + "mlp.experts.gate_up_proj" in w:
                gu, down = w[p + "mlp.experts.gate_up_proj"][e], w[p + "mlp.experts.down_proj"][e]
                gate, up = gu[: gu.shape[0] // 2], gu[gu.shape[0] // 2 :]
            else:
                gate, up, down = (w[p + f"mlp.experts.{e}.{n}_proj.weight"] for n in ("gate", "up", "down"))
            g = h2[tok] @ gate.T
            out[tok] += weight[tok, slot][:, None] * ((g / (1 + np.exp(-g)) * (h2[tok] @ up.T)) @ down.T)
        return out

    def linear(self, x, name):
        y = x @ self.w[name + ".weight"].T
        return y + self.w[name + ".bias"] if self.bias and name + ".bias" in self.w else y

    def logits(self, ids):
        T, w = len(ids), self.w
        x = w["model.embed_tokens.weight"][np.array(ids)]
        inv = self.theta ** (-np.arange(0, self.d, 2, dtype=np.float64) / self.d)
        ang = np.arange(T, dtype=np.float64)[:, None] * inv[None, :]
        cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
        causal = np.triu(np.ones((T, T), dtype=bool), 1)
        group = self.nh // self.nkv
        for i in range(self.L):
            p = f"model.layers.{i}."
            h = rms_norm(x, w[p + "input_layernorm.weight"], self.eps)
            q = self.linear(h, p + "self_attn.q_proj").reshape(T, self.nh, self.d).transpose(1, 0, 2)
            k = self.linear(h, p + "self_attn.k_proj").reshape(T, self.nkv, self.d).transpose(1, 0, 2)
            v = self.linear(h, p + "self_attn.v_proj").reshape(T, self.nkv, self.d).transpose(1, 0, 2)
            if self.qk_norm:
                q = rms_norm(q, w[p + "self_attn.q_norm.weight"], self.eps)
                k = rms_norm(k, w[p + "self_attn.k_norm.weight"], self.eps)
            q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            k, v = np.repeat(k, group, 0), np.repeat(v, group, 0)
            s = np.where(causal, -np.inf, q @ k.transpose(0, 2, 1) / math.sqrt(self.d))
            s = np.exp(s - s.max(-1, keepdims=True))
            a = (s / s.sum(-1, keepdims=True)) @ v
            x = x + self.linear(a.transpose(1, 0, 2).reshape(T, self.nh * self.d), p + "self_attn.o_proj")
            h2 = rms_norm(x, w[p + "post_attention_layernorm.weight"], self.eps)
            if self.sparse(i):
                x = x + self.moe(p, h2)
                continue
            g = self.linear(h2, p + "mlp.gate_proj")
            x = x + self.linear(g / (1 + np.exp(-g)) * self.linear(h2, p + "mlp.up_proj"), p + "mlp.down_proj")
        head = w["model.embed_tokens.weight"] if self.tied else w["lm_head.weight"]
        return rms_norm(x, w["model.norm.weight"], self.eps) @ head.T

    def objective(self, batch):
        total = 0.0
        for ids, mask in batch:
            z = self.logits(ids)[:-1]
            m = z.max(-1, keepdims=True)
            lse = (m + np.log(np.exp(z - m).sum(-1, keepdims=True)))[:, 0]
            ce = lse - z[np.arange(len(ids) - 1), np.array(ids[1:])]
            keep = np.array(mask[1:], dtype=bool)
            total += ce[keep].mean()
        return total / len(batch)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--sequences", required=True)
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--random", type=int, default=3)
    ap.add_argument("--step", type=float, default=1e-6)
    ap.add_argument("grads", nargs="+")
    args = ap.parse_args()
    with open(os.path.join(args.model, "config.json")) as f:
        model = Model(json.load(f), read_safetensors(os.path.join(args.model, "model.safetensors")))
    with open(args.sequences) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    batch = [(r["ids"], r.get("lossMask", r.get("targets"))) for r in rows if r.get("set", "agent") == "agent"]
    files = [read_safetensors(g) for g in args.grads]
    rng = np.random.default_rng(0)
    picks = []
    for name in sorted(files[0]):
        flat = np.abs(files[0][name]).ravel()
        top = np.argsort(-flat)[: args.top]
        rand = rng.choice(flat.size, size=min(args.random, flat.size), replace=False)
        picks += [(name, int(i)) for i in np.unique(np.concatenate([top, rand]))]
    fd = []
    for name, i in picks:
        w = model.w[name]
        flat = w.reshape(-1)
        keep = flat[i]
        flat[i] = keep + args.step
        up = model.objective(batch)
        flat[i] = keep - args.step
        down = model.objective(batch)
        flat[i] = keep
        fd.append((up - down) / (2 * args.step))
    fd = np.array(fd)
    print(f"{len(picks)} coordinates over {len(files[0])} tensors, {len(batch)} sequences, step {args.step:g}")
    for path, g in zip(args.grads, files):
        got = np.array([g[name].reshape(-1)[i] for name, i in picks])
        rel = math.sqrt(((got - fd) ** 2).sum() / (fd ** 2).sum())
        worst = np.max(np.abs(got - fd) / np.maximum(np.abs(fd), 1e-3 * np.abs(fd).max()))
        print(f"{path}: pooled rel err {rel:.2e}, worst coordinate {worst:.2e}")


if __name__ == "__main__":
    main()
