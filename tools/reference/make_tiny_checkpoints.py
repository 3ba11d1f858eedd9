#!/usr/bin/env python3
"""Deterministic tiny random Hugging Face checkpoints for runtime tests.

Writes engine/model/testdata/<name>/{config.json, model.safetensors} (F32) for:
  qwen3_tied           Qwen3ForCausalLM, q/k norm, tied embeddings, head_dim 16 != hidden/heads (=8)
  qwen3_untied_ropeparams  Qwen3ForCausalLM, separate lm_head, rope_theta 1e6 only inside "rope_parameters"
  qwen2_bias           Qwen2ForCausalLM, q/k/v biases, no q/k norm, tied, no head_dim key in config
  llama_untied         LlamaForCausalLM, no biases, separate lm_head, rms_norm_eps 1e-5 (made to matter
                       by small embeddings), rope_theta 5e5

Run: /usr/bin/python3 tools/reference/make_tiny_checkpoints.py   (from the repository root)
"""
import json
import os
import sys

sys.dont_write_bytecode = True
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_min import read_safetensors, write_safetensors  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "engine", "model", "testdata")

BASE = dict(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, intermediate_size=48, rms_norm_eps=1e-6,
            max_position_embeddings=128, hidden_act="silu", bos_token_id=1, eos_token_id=2,
            initializer_range=0.02, torch_dtype="float32")

VARIANTS = {
    # tied models: embed std 0.25 keeps tied logits O(1-5) instead of saturating the softmax
    "qwen3_tied": dict(seed=1, family="qwen3", embed_std=0.25, config=dict(
        architectures=["Qwen3ForCausalLM"], model_type="qwen3", head_dim=16, rope_theta=10000.0,
        rope_scaling=None, attention_bias=False, attention_dropout=0.0, tie_word_embeddings=True,
        use_sliding_window=False, sliding_window=None, max_window_layers=2)),
    "qwen3_untied_ropeparams": dict(seed=2, family="qwen3", config=dict(
        architectures=["Qwen3ForCausalLM"], model_type="qwen3", head_dim=8,
        rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
        attention_bias=False, attention_dropout=0.0, tie_word_embeddings=False,
        use_sliding_window=False, sliding_window=None, max_window_layers=2)),
    "qwen2_bias": dict(seed=3, family="qwen2", embed_std=0.25, config=dict(
        architectures=["Qwen2ForCausalLM"], model_type="qwen2", rope_theta=10000.0, rope_scaling=None,
        attention_dropout=0.0, tie_word_embeddings=True, use_sliding_window=False,
        sliding_window=None, max_window_layers=2)),
    # small embeddings (mean(x^2) ~ 1e-4 at layer 0's input norm) make rms_norm_eps 1e-5 vs 1e-6 visible
    "llama_untied": dict(seed=4, family="llama", embed_std=0.01, config=dict(
        architectures=["LlamaForCausalLM"], model_type="llama", head_dim=8, rms_norm_eps=1e-5,
        rope_theta=500000.0, rope_scaling=None, attention_bias=False, mlp_bias=False,
        attention_dropout=0.0, pretraining_tp=1, tie_word_embeddings=False)),
}


def make_weights(cfg, family, seed, embed_std=1.0):
    """Random weights scaled so activations and logits are O(1) and attention is not uniform."""
    rng = np.random.default_rng(seed)
    H, V, I = cfg["hidden_size"], cfg["vocab_size"], cfg["intermediate_size"]
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    d = cfg.get("head_dim") or H // nh

    def lin(out_f, in_f, gain=1.0):  # [out, in] like torch nn.Linear
        return rng.standard_normal((out_f, in_f)) * gain / np.sqrt(in_f)

    def norm(n):  # RMSNorm weights around 1, never all ones
        return rng.uniform(0.5, 1.5, size=n)

    w = {"model.embed_tokens.weight": rng.standard_normal((V, H)) * embed_std}
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = norm(H)
        w[p + "post_attention_layernorm.weight"] = norm(H)
        # gain 2 on q/k so that (for the models without q/k norm) scores are not near-uniform
        w[p + "self_attn.q_proj.weight"] = lin(nh * d, H, 2.0)
        w[p + "self_attn.k_proj.weight"] = lin(nkv * d, H, 2.0)
        w[p + "self_attn.v_proj.weight"] = lin(nkv * d, H)
        w[p + "self_attn.o_proj.weight"] = lin(H, nh * d)
        if family == "qwen3":
            w[p + "self_attn.q_norm.weight"] = norm(d)
            w[p + "self_attn.k_norm.weight"] = norm(d)
        if family == "qwen2":
            w[p + "self_attn.q_proj.bias"] = rng.standard_normal(nh * d) * 0.5
            w[p + "self_attn.k_proj.bias"] = rng.standard_normal(nkv * d) * 0.5
            w[p + "self_attn.v_proj.bias"] = rng.standard_normal(nkv * d) * 0.5
        w[p + "mlp.gate_proj.weight"] = lin(I, H, 1.5)
        w[p + "mlp.up_proj.weight"] = lin(I, H)
        w[p + "mlp.down_proj.weight"] = lin(H, I)
    w["model.norm.weight"] = norm(H)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = lin(V, H, 2.0)
    # round to float32 now, so what is on disk is exactly what the float64 reference reads
    return {k: v.astype(np.float32) for k, v in w.items()}


def main():
    for name, spec in VARIANTS.items():
        cfg = dict(BASE)
        cfg.update(spec["config"])
        w = make_weights(cfg, spec["family"], spec["seed"], spec.get("embed_std", 1.0))
        d = os.path.join(OUT, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2, sort_keys=True)
            f.write("\n")
        path = os.path.join(d, "model.safetensors")
        write_safetensors(path, w, metadata={"format": "pt"})
        back = read_safetensors(path)  # round-trip self-check of writer + reader
        assert sorted(back) == sorted(w)
        for k in w:
            assert back[k].shape == w[k].shape and np.array_equal(back[k], w[k].astype(np.float64)), k
        n = sum(v.size for v in w.values())
        print(f"{name}: {len(w)} tensors, {n} params, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
