#!/usr/bin/env python3
"""Deterministic tiny random Hugging Face checkpoints for runtime tests.

Writes engine/model/testdata/<name>/{config.json, model.safetensors} (F32) for:
  qwen3_tied           Qwen3ForCausalLM, q/k norm, tied embeddings, head_dim 16 != hidden/heads (=8)
  qwen3_untied_ropeparams  Qwen3ForCausalLM, separate lm_head, rope_theta 1e6 only inside "rope_parameters"
  qwen2_bias           Qwen2ForCausalLM, q/k/v biases, no q/k norm, tied, no head_dim key in config
  llama_untied         LlamaForCausalLM, no biases, separate lm_head, rms_norm_eps 1e-5 (made to matter
                       by small embeddings), rope_theta 5e5
  qwen3_moe_experts    Qwen3MoeForCausalLM, per-expert tensors mlp.experts.{e}.*_proj.weight, 8 experts
                       top-2, norm_topk_prob, 3 layers with mlp_only_layers [1] (layer 1 dense)
  qwen3_moe_fused      Qwen3MoeForCausalLM, fused 3-D mlp.experts.gate_up_proj / down_proj (transformers
                       v5), 6 experts top-3, no renormalisation, 4 layers, decoder_sparse_step 2 (1, 3 sparse)
  nanbeige_looped      NanbeigeForCausalLM (looped Llama layers), num_loops 2, model.norm between passes
                       (skip_loop_final_norm false, as Nanbeige4.2-3B), head_dim 16 != hidden/heads, untied
  nanbeige_skipnorm    NanbeigeForCausalLM, num_loops 3, skip_loop_final_norm true (no norm between passes), tied

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

NANBEIGE_OFF = dict(attention_bias=False, mlp_bias=False, attention_dropout=0.0, rope_scaling=None,
                    loop_loss_weights=None, enable_double_loop_split=False, enable_hyper_connection=False,
                    enable_mhc=False, enable_depth_attention=False, emb_neighbor_num=None, qk_layernorm=False)

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
    "qwen3_moe_experts": dict(seed=12, family="qwen3", experts="per-expert", config=dict(
        architectures=["Qwen3MoeForCausalLM"], model_type="qwen3_moe", head_dim=8, num_hidden_layers=3,
        rope_theta=10000.0, rope_scaling=None, attention_bias=False, attention_dropout=0.0,
        tie_word_embeddings=False, use_sliding_window=False, sliding_window=None, max_window_layers=3,
        num_experts=8, num_experts_per_tok=2, norm_topk_prob=True, moe_intermediate_size=16,
        decoder_sparse_step=1, mlp_only_layers=[1], router_aux_loss_coef=0.001, output_router_logits=False)),
    "qwen3_moe_fused": dict(seed=12, family="qwen3", experts="fused", embed_std=0.25, config=dict(
        architectures=["Qwen3MoeForCausalLM"], model_type="qwen3_moe", head_dim=8, num_hidden_layers=4,
        rope_theta=10000.0, rope_scaling=None, attention_bias=False, attention_dropout=0.0,
        tie_word_embeddings=True, use_sliding_window=False, sliding_window=None, max_window_layers=4,
        num_experts=6, num_experts_per_tok=3, norm_topk_prob=False, moe_intermediate_size=12,
        decoder_sparse_step=2, mlp_only_layers=[], router_aux_loss_coef=0.001, output_router_logits=False)),
    # Nanbeige4.2's config keys (architectures.md section 6.2) with its extras written out as off
    "nanbeige_looped": dict(seed=21, family="llama", config=dict(NANBEIGE_OFF,
        architectures=["NanbeigeForCausalLM"], model_type="nanbeige", num_loops=2, skip_loop_final_norm=False,
        head_dim=16, rms_norm_eps=1e-5, rope_theta=70000000.0, tie_word_embeddings=False)),
    "nanbeige_skipnorm": dict(seed=22, family="llama", embed_std=0.25, config=dict(NANBEIGE_OFF,
        architectures=["NanbeigeForCausalLM"], model_type="nanbeige", num_loops=3, skip_loop_final_norm=True,
        head_dim=16, rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=True)),
}


def is_sparse_layer(cfg, i):
    """Qwen3MoeDecoderLayer's rule: experts unless listed in mlp_only_layers or off the sparse step."""
    return ("num_experts" in cfg and i not in cfg.get("mlp_only_layers", [])
            and (i + 1) % cfg.get("decoder_sparse_step", 1) == 0)


def make_weights(cfg, family, seed, embed_std=1.0, experts=None):
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
        if is_sparse_layer(cfg, i):
            E, Ie = cfg["num_experts"], cfg["moe_intermediate_size"]
            # router gain 3: routing probabilities far from uniform, so the top-k choice has margins
            w[p + "mlp.gate.weight"] = lin(E, H, 3.0)
            gates, ups, downs = [lin(Ie, H, 1.5) for _ in range(E)], [lin(Ie, H) for _ in range(E)], [lin(H, Ie) for _ in range(E)]
            if experts == "fused":  # transformers v5 Qwen3MoeExperts: gate rows then up rows
                w[p + "mlp.experts.gate_up_proj"] = np.stack([np.concatenate([g, u], 0) for g, u in zip(gates, ups)])
                w[p + "mlp.experts.down_proj"] = np.stack(downs)
            else:
                for e in range(E):
                    w[p + f"mlp.experts.{e}.gate_proj.weight"] = gates[e]
                    w[p + f"mlp.experts.{e}.up_proj.weight"] = ups[e]
                    w[p + f"mlp.experts.{e}.down_proj.weight"] = downs[e]
            continue
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
        w = make_weights(cfg, spec["family"], spec["seed"], spec.get("embed_std", 1.0), spec.get("experts"))
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
