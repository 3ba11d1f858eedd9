#!/usr/bin/env python3
"""Independent float64 reference forward pass for Qwen3 dense / Qwen3-MoE / Qwen2 / Llama / looped
Nanbeige4.2 (no transformers).

For every checkpoint in engine/model/testdata/<name>/ (config.json + model.safetensors) writes
golden.json (and, for qwen3_tied, grads.safetensors). Runs self-checks (asserts) first.
See tools/reference/README.md for the golden format.

Run: /usr/bin/python3 tools/reference/reference_forward.py   (from the repository root)
"""
import json
import math
import os
import sys

sys.dont_write_bytecode = True
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_min import read_safetensors, write_safetensors  # noqa: E402

torch.set_default_dtype(torch.float64)
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TESTDATA = os.path.join(ROOT, "engine", "model", "testdata")
COMMAND = ("/usr/bin/python3 tools/reference/make_tiny_checkpoints.py && "
           "/usr/bin/python3 tools/reference/reference_forward.py")

SEQUENCES = [
    [1, 17, 42, 5, 63, 17, 8],
    [1, 3, 3, 60, 22, 41, 9, 17, 0, 55, 30, 12],
]
# Token-level target masks aligned with SEQUENCES (HF "labels != -100" convention):
# mask[i] = 1 means token ids[i] is a target, predicted from the logits at position i-1. mask[0] is always 0.
TARGET_MASKS = [
    [0, 0, 0, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1],
]
GREEDY_NEW_TOKENS = 8
GRADS_FOR = {"qwen3_tied", "qwen3_moe_experts", "qwen3_moe_fused", "nanbeige_looped", "nanbeige_skipnorm"}
# Looped models also get pass_grads.safetensors: each pass's part of every gradient.
NANBEIGE_OFF = ("enable_double_loop_split", "loop_middle_layers", "loop_share_kv", "enable_hyper_connection",
                "enable_mhc", "enable_depth_attention", "emb_neighbor_num", "loop_loss_weights", "qk_layernorm")
# A sparse layer's top-k choice must not be a near tie, or float32 could route differently.
MIN_ROUTING_GAP = 1e-3


# ----------------------------------------------------------------------------------------------
# Model
class Model:
    def __init__(self, cfg, weights):
        self.cfg = cfg
        self.w = {k: torch.tensor(v) for k, v in weights.items()}
        mt = cfg["model_type"]
        assert mt in ("qwen3", "qwen2", "llama", "qwen3_moe", "nanbeige"), mt
        # Nanbeige4.2 (architectures.md section 6.4): the same layers run num_loops times, model.norm
        # after every pass unless skip_loop_final_norm (then only after the last). Its extras stay off.
        self.loops = cfg.get("num_loops", 1) if mt == "nanbeige" else 1
        self.norm_between = not cfg.get("skip_loop_final_norm", False)
        assert not any(cfg.get(k) for k in NANBEIGE_OFF), "this reference implements the plain loop only"
        self.pw = None  # per-pass copies of every weight (pass_gradients), else every pass reads self.w
        self.H = cfg["hidden_size"]
        self.nh = cfg["num_attention_heads"]
        self.nkv = cfg["num_key_value_heads"]
        self.d = cfg.get("head_dim") or self.H // self.nh
        self.L = cfg["num_hidden_layers"]
        self.eps = cfg["rms_norm_eps"]
        rp = cfg.get("rope_parameters") or {}
        self.theta = rp.get("rope_theta", cfg.get("rope_theta", 10000.0))
        scaling = cfg.get("rope_scaling") or {}
        assert rp.get("rope_type", "default") == "default" and scaling.get("rope_type", "default") == "default"
        self.qk_norm = mt in ("qwen3", "qwen3_moe")
        self.moe = "num_experts" in cfg
        if self.moe:
            self.E, self.k = cfg["num_experts"], cfg["num_experts_per_tok"]
            self.norm_topk = bool(cfg.get("norm_topk_prob"))
        self.routing_gaps = []  # smallest p_k - p_(k+1) per sparse-layer call (self-check)
        self.qkv_bias = mt == "qwen2" or bool(cfg.get("attention_bias"))
        self.tied = bool(cfg.get("tie_word_embeddings"))
        if self.tied:
            assert "lm_head.weight" not in self.w, "tied checkpoint should not ship lm_head.weight"
        else:
            assert "lm_head.weight" in self.w
        self.kv_map = "grouped"  # head h uses kv head h // (nh/nkv); "modulo" only for self-checks

    def sparse(self, i):  # Qwen3MoeDecoderLayer: experts unless mlp_only or off the sparse step
        return (self.moe and i not in self.cfg.get("mlp_only_layers", [])
                and (i + 1) % self.cfg.get("decoder_sparse_step", 1) == 0)

    def expert(self, p, e):
        """(gate [I,H], up [I,H], down [H,I]) of expert e in either checkpoint layout."""
        fused = p + "mlp.experts.gate_up_proj"
        if fused in self.w:
            gu = self.w[fused][e]
            half = gu.shape[0] // 2
            return gu[:half], gu[half:], self.w[p + "mlp.experts.down_proj"][e]
        return tuple(self.w[p + f"mlp.experts.{e}.{n}_proj.weight"] for n in ("gate", "up", "down"))

    def weights(self, loop):
        """The weights pass `loop` reads: its own copies while per-pass gradients are taken."""
        return self.w if self.pw is None else self.pw[loop]

    def lm_head(self, w=None):
        w = self.w if w is None else w
        return w["model.embed_tokens.weight"] if self.tied else w["lm_head.weight"]


def rms_norm(x, w, eps):
    return w * (x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps))


def rope_cos_sin(positions, d, theta):
    inv_freq = theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # theta^(-2i/d), i < d/2
    ang = positions.to(torch.float64)[:, None] * inv_freq[None, :]
    ang = torch.cat([ang, ang], -1)  # [T, d]
    return ang.cos(), ang.sin()


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat([-x2, x1], -1)


def apply_rope(x, cos, sin):  # x [heads, T, d]
    return x * cos + rotate_half(x) * sin


def linear(x, w, name, bias=False):
    y = x @ w[name + ".weight"].T
    return y + w[name + ".bias"] if bias else y


def moe_mlp(m, p, h2):
    """Qwen3MoeSparseMoeBlock: softmax over all experts, top-k, optional renormalisation,
    weighted sum of the chosen experts' SwiGLU outputs."""
    probs = torch.softmax(h2 @ m.w[p + "mlp.gate.weight"].T, -1)
    top = torch.topk(probs, min(m.k + 1, m.E), -1).values
    if m.k < m.E:
        m.routing_gaps.append(float((top[:, m.k - 1] - top[:, m.k]).min()))
    w, idx = torch.topk(probs, m.k, -1)
    if m.norm_topk:
        w = w / w.sum(-1, keepdim=True)
    out = torch.zeros_like(h2)
    for e in range(m.E):
        tok, slot = (idx == e).nonzero(as_tuple=True)
        if len(tok) == 0:
            continue
        g, u, d = m.expert(p, e)
        y = (torch.nn.functional.silu(h2[tok] @ g.T) * (h2[tok] @ u.T)) @ d.T
        out = out.index_add(0, tok, y * w[tok, slot, None])
    return out


def forward(m, ids, capture=None):
    """Vectorised forward. ids: list[int]. Returns logits [T, V] (float64).
    capture (optional dict) receives residual stream and the two layernorm outputs per layer, a looped
    model's indexed by effective layer loop * L + i (the residual entering (loop, 0) is after the norm
    between passes)."""
    T = len(ids)
    x = m.weights(0)["model.embed_tokens.weight"][torch.tensor(ids)]
    cos, sin = (t.to(x.dtype) for t in rope_cos_sin(torch.arange(T), m.d, m.theta))
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    if capture is not None:
        capture.update(residual=[x], input_layernorm=[], post_attention_layernorm=[])
    for loop in range(m.loops):
        if loop > 0 and m.norm_between:
            x = rms_norm(x, m.weights(loop - 1)["model.norm.weight"], m.eps)
            if capture is not None:
                capture["residual"][-1] = x
        x = decoder_stack(m, m.weights(loop), x, cos, sin, causal, capture)
    w = m.weights(m.loops - 1)
    return rms_norm(x, w["model.norm.weight"], m.eps) @ m.lm_head(w).T


def decoder_stack(m, w, x, cos, sin, causal, capture):
    """Layers 0..L-1 once (one pass), each with its own K/V, reading weights from `w`."""
    T = x.shape[0]
    group = m.nh // m.nkv
    for i in range(m.L):
        p = f"model.layers.{i}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], m.eps)
        q = linear(h, w, p + "self_attn.q_proj", m.qkv_bias).view(T, m.nh, m.d).transpose(0, 1)
        k = linear(h, w, p + "self_attn.k_proj", m.qkv_bias).view(T, m.nkv, m.d).transpose(0, 1)
        v = linear(h, w, p + "self_attn.v_proj", m.qkv_bias).view(T, m.nkv, m.d).transpose(0, 1)
        if m.qk_norm:  # per-head RMSNorm over head_dim, BEFORE RoPE
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], m.eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], m.eps)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if m.kv_map == "grouped":  # repeat_kv: [kv0,kv0,kv1,kv1] for group 2
            k, v = k.repeat_interleave(group, 0), v.repeat_interleave(group, 0)
        else:
            k, v = k.repeat(group, 1, 1), v.repeat(group, 1, 1)
        s = (q @ k.transpose(1, 2)) / math.sqrt(m.d)
        s = s.masked_fill(causal, float("-inf"))
        a = torch.softmax(s, -1) @ v  # [nh, T, d]
        x = x + linear(a.transpose(0, 1).reshape(T, m.nh * m.d), w, p + "self_attn.o_proj")
        h2 = rms_norm(x, w[p + "post_attention_layernorm.weight"], m.eps)
        if m.sparse(i):
            x = x + moe_mlp(m, p, h2)
        else:
            g = linear(h2, w, p + "mlp.gate_proj")
            x = x + linear(torch.nn.functional.silu(g) * linear(h2, w, p + "mlp.up_proj"), w, p + "mlp.down_proj")
        if capture is not None:
            capture["input_layernorm"].append(h)
            capture["post_attention_layernorm"].append(h2)
            capture["residual"].append(x)
    return x


def naive_step_forward(m, ids):
    """Second implementation, written differently on purpose: one token at a time with a KV cache,
    explicit loops over heads, RoPE as pairwise rotation of (x[j], x[j+d/2]), explicit softmax; a
    looped model keeps one cache per (pass, layer), slot layer + pass * L as modeling_nanbeige.py.
    Returns logits [T, V]."""
    W = m.w
    half = m.d // 2
    group = m.nh // m.nkv
    cache = [([], []) for _ in range(m.L * m.loops)]  # per slot: lists of k [nkv,d], v [nkv,d]

    def norm(vec, w):
        return w * vec / math.sqrt(float((vec * vec).sum()) / vec.shape[-1] + m.eps)

    def rot(vec, pos):  # vec [d]
        out = vec.clone()
        for j in range(half):
            a = pos * m.theta ** (-2.0 * j / m.d)
            c, s = math.cos(a), math.sin(a)
            out[j] = vec[j] * c - vec[j + half] * s
            out[j + half] = vec[j + half] * c + vec[j] * s
        return out

    logits = []
    for pos, tok in enumerate(ids):
        x = W["model.embed_tokens.weight"][tok].clone()
        for slot in range(m.L * m.loops):
            i = slot % m.L
            if i == 0 and slot > 0 and m.norm_between:
                x = norm(x, W["model.norm.weight"])
            p = f"model.layers.{i}.self_attn."
            h = norm(x, W[f"model.layers.{i}.input_layernorm.weight"])
            proj = {n: W[p + n + "_proj.weight"] @ h + (W[p + n + "_proj.bias"] if m.qkv_bias else 0)
                    for n in "qkv"}
            q = proj["q"].view(m.nh, m.d)
            k = proj["k"].view(m.nkv, m.d)
            v = proj["v"].view(m.nkv, m.d)
            if m.qk_norm:
                q = torch.stack([norm(q[j], W[p + "q_norm.weight"]) for j in range(m.nh)])
                k = torch.stack([norm(k[j], W[p + "k_norm.weight"]) for j in range(m.nkv)])
            q = torch.stack([rot(q[j], pos) for j in range(m.nh)])
            k = torch.stack([rot(k[j], pos) for j in range(m.nkv)])
            cache[slot][0].append(k)
            cache[slot][1].append(v)
            heads = []
            for hq in range(m.nh):
                kv = hq // group
                sc = [float(q[hq] @ kk[kv]) / math.sqrt(m.d) for kk in cache[slot][0]]
                mx = max(sc)
                e = [math.exp(s_ - mx) for s_ in sc]
                z = sum(e)
                heads.append(sum((e_ / z) * vv[kv] for e_, vv in zip(e, cache[slot][1])))
            x = x + W[p + "o_proj.weight"] @ torch.cat(heads)
            mp = f"model.layers.{i}.mlp."
            h2 = norm(x, W[f"model.layers.{i}.post_attention_layernorm.weight"])
            if m.sparse(i):  # explicit softmax, sort, renormalise, loop over the chosen experts
                z = [float(W[mp + "gate.weight"][e] @ h2) for e in range(m.E)]
                ez = [math.exp(v - max(z)) for v in z]
                prob = [v / sum(ez) for v in ez]
                chosen = sorted(range(m.E), key=lambda e: -prob[e])[: m.k]
                total = sum(prob[e] for e in chosen) if m.norm_topk else 1.0
                for e in chosen:
                    ge, ue, de = m.expert(f"model.layers.{i}.", e)
                    g, u = ge @ h2, ue @ h2
                    x = x + (prob[e] / total) * (de @ (g / (1 + torch.exp(-g)) * u))
                continue
            g = W[mp + "gate_proj.weight"] @ h2
            u = W[mp + "up_proj.weight"] @ h2
            x = x + W[mp + "down_proj.weight"] @ (g / (1 + torch.exp(-g)) * u)
        logits.append(m.lm_head() @ norm(x, W["model.norm.weight"]))
    return torch.stack(logits)


def token_ce(logits, ids):
    """ce[i-1] = -log softmax(logits[i-1])[ids[i]] for i = 1..T-1 (target = next token)."""
    lp = logits[:-1] - torch.logsumexp(logits[:-1], -1, keepdim=True)
    return -lp[torch.arange(len(ids) - 1), torch.tensor(ids[1:])]


def masked_loss(logits, ids, mask):
    ce = token_ce(logits, ids)
    mk = torch.tensor(mask[1:], dtype=torch.float64)
    return (ce * mk).sum() / mk.sum()


def load(name):
    d = os.path.join(TESTDATA, name)
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    return Model(cfg, read_safetensors(os.path.join(d, "model.safetensors")))


# ----------------------------------------------------------------------------------------------
# Self-checks
def self_checks(name, m):
    g = torch.Generator().manual_seed(0)
    # RoPE: position 0 is the identity; scores depend only on relative position.
    cos, sin = rope_cos_sin(torch.arange(20), m.d, m.theta)
    q, k = torch.randn(1, 1, m.d, generator=g), torch.randn(1, 1, m.d, generator=g)
    assert torch.equal(apply_rope(q, cos[:1], sin[:1]), q)
    r = lambda x, p: apply_rope(x, cos[p : p + 1], sin[p : p + 1])  # noqa: E731
    assert abs(float((r(q, 7) * r(k, 3)).sum() - (r(q, 14) * r(k, 10)).sum())) < 1e-12
    assert abs(float((r(q, 7) * r(k, 3)).sum() - (r(q, 8) * r(k, 3)).sum())) > 1e-6

    ids = SEQUENCES[1]
    full = forward(m, ids)
    # Causal masking: logits at positions <= t do not change when tokens after t change.
    for t in (0, 4, 9):
        alt = ids[: t + 1] + [(x * 7 + 5) % m.cfg["vocab_size"] for x in ids[t + 1 :]]
        other = forward(m, alt)
        assert torch.allclose(other[: t + 1], full[: t + 1], rtol=0, atol=1e-12)
        assert (other[t + 1 :] - full[t + 1 :]).abs().max() > 1e-3
        assert torch.allclose(forward(m, ids[: t + 1]), full[: t + 1], rtol=0, atol=1e-12)
    # A second, loop-based implementation with a KV cache agrees.
    naive = naive_step_forward(m, ids)
    assert (naive - full).abs().max() < 1e-10, float((naive - full).abs().max())
    # The same code in float32 stays far inside the 1e-4 tolerance the TS test uses (README).
    w64 = m.w
    m.w = {k: v.float() for k, v in w64.items()}
    try:
        f32 = forward(m, ids)
    finally:
        m.w = w64
    assert f32.dtype == torch.float32 and (f32.double() - full).abs().max() < 2e-5
    print(f"  {name}: float32 run of this code vs float64: max |diff| {float((f32.double() - full).abs().max()):.2g}")
    # Loss: manual CE matches torch's cross_entropy.
    ref = torch.nn.functional.cross_entropy(full[:-1], torch.tensor(ids[1:]))
    assert abs(float(token_ce(full, ids).mean() - ref)) < 1e-12

    # The golden data must be able to tell common mistakes apart (each changes logits by >> 1e-4).
    def diff_with(**changes):
        old = {k: getattr(m, k) for k in changes}
        for k, v in changes.items():
            setattr(m, k, v)
        try:
            return float((forward(m, ids) - full).abs().max())
        finally:
            for k, v in old.items():
                setattr(m, k, v)

    sens = {"kv head mapping h % nkv instead of h // group": diff_with(kv_map="modulo"),
            "rope_theta 10000 vs config": diff_with(theta=10000.0 if m.theta != 10000.0 else 1e6),
            "rms_norm_eps 1e-6 vs config": diff_with(eps=1e-6 if m.eps != 1e-6 else 1e-5)}
    if m.qk_norm:
        sens["no q/k norm"] = diff_with(qk_norm=False)
    if m.qkv_bias:
        sens["no q/k/v bias"] = diff_with(qkv_bias=False)
    if m.loops > 1:
        sens["one pass instead of num_loops"] = diff_with(loops=1)
        sens["skip_loop_final_norm flipped"] = diff_with(norm_between=not m.norm_between)
    if m.moe:
        sens["norm_topk_prob flipped"] = diff_with(norm_topk=not m.norm_topk)
        sens["top-(k-1) routing"] = diff_with(k=m.k - 1)
    for what, dv in sens.items():
        print(f"  {name}: logits max |diff| with {what}: {dv:.3g}")
        if what.startswith("rms_norm_eps") and name != "llama_untied":
            continue  # only llama_untied is built to expose eps (small embeddings)
        assert dv > 1e-2, (name, what, dv)


# ----------------------------------------------------------------------------------------------
# Golden output
def r7(x):
    if isinstance(x, torch.Tensor):
        x = x.detach().tolist()
    if isinstance(x, list):
        return [r7(v) for v in x]
    return float(f"{x:.7g}")


def greedy(m, ids, n):
    out, margins = list(ids), []
    for _ in range(n):
        last = forward(m, out)[-1]
        top2 = torch.topk(last, 2).values
        margins.append(float(top2[0] - top2[1]))
        out.append(int(last.argmax()))
    return out[len(ids):], margins


def gradient_file(name, m):
    """d(batch_masked_loss)/d(every tensor in model.safetensors), float32, same names and shapes."""
    for t in m.w.values():
        t.requires_grad_(True)
    loss = torch.stack([masked_loss(forward(m, s), s, mk) for s, mk in zip(SEQUENCES, TARGET_MASKS)]).mean()
    loss.backward()
    grads = {k: t.grad.detach().clone() for k, t in m.w.items()}
    # spot-check autograd against central finite differences in float64
    rng = np.random.default_rng(0)
    for key in sorted(m.w):
        w = m.w[key]
        idx = tuple(int(rng.integers(s)) for s in w.shape)
        if key == "model.embed_tokens.weight":
            idx = (SEQUENCES[1][5], idx[1])  # a row that is actually used as input
        with torch.no_grad():
            orig = float(w[idx])
            vals = []
            for h in (1e-5, -1e-5):
                w[idx] = orig + h
                vals.append(float(torch.stack([masked_loss(forward(m, s), s, mk)
                                               for s, mk in zip(SEQUENCES, TARGET_MASKS)]).mean()))
            w[idx] = orig
        fd = (vals[0] - vals[1]) / 2e-5
        assert abs(fd - float(grads[key][idx])) < 1e-7 * max(1.0, abs(fd)), (key, fd, float(grads[key][idx]))
    for t in m.w.values():
        t.requires_grad_(False)
        t.grad = None
    if m.loops > 1:
        pass_gradient_file(name, m, grads)
    path = os.path.join(TESTDATA, name, "grads.safetensors")
    write_safetensors(path, {k: v.numpy() for k, v in grads.items()},
                      metadata={"what": "d batch_masked_loss / d param (golden.json)", "generated_by": COMMAND})
    return float(loss)


def pass_gradient_file(name, m, summed):
    """Each pass's part of d(batch_masked_loss)/d(param): autograd through per-pass copies of every
    weight (pass p reads only its copies; the embedding lookup is pass 0's, the head the last pass's,
    the norm between passes p and p+1 pass p's). Written as pass_grads.safetensors, names
    "pass{p}.{tensor}", only the tensors a pass uses. The parts must sum to `summed`."""
    m.pw = [{k: v.clone().requires_grad_(True) for k, v in m.w.items()} for _ in range(m.loops)]

    def batch_loss():
        return torch.stack([masked_loss(forward(m, s), s, mk) for s, mk in zip(SEQUENCES, TARGET_MASKS)]).mean()

    try:
        batch_loss().backward()
        parts = [{k: t.grad.detach().clone() for k, t in pw.items() if t.grad is not None} for pw in m.pw]
        for k, g in summed.items():
            total = sum(part[k] for part in parts if k in part)
            assert (total - g).abs().max() < 1e-12 * max(1.0, float(g.abs().max())), k
        # spot-check each part against central differences that move only that pass's copy
        rng = np.random.default_rng(1)
        for loop, part in enumerate(parts):
            for key in sorted(part):
                w = m.pw[loop][key]
                idx = tuple(int(rng.integers(s)) for s in w.shape)
                if key == "model.embed_tokens.weight":
                    idx = (SEQUENCES[1][5], idx[1])
                with torch.no_grad():
                    orig = float(w[idx])
                    vals = []
                    for h in (1e-5, -1e-5):
                        w[idx] = orig + h
                        vals.append(float(batch_loss()))
                    w[idx] = orig
                fd = (vals[0] - vals[1]) / 2e-5
                assert abs(fd - float(part[key][idx])) < 1e-7 * max(1.0, abs(fd)), (loop, key, fd, float(part[key][idx]))
    finally:
        m.pw = None
    path = os.path.join(TESTDATA, name, "pass_grads.safetensors")
    write_safetensors(path, {f"pass{p}.{k}": v.numpy() for p, part in enumerate(parts) for k, v in part.items()},
                      metadata={"what": "per-pass parts of d batch_masked_loss / d param (golden.json)", "generated_by": COMMAND})
    print(f"  {name}: {sum(len(p) for p in parts)} per-pass gradient parts over {m.loops} passes sum to the gradient")


def main():
    names = sorted(n for n in os.listdir(TESTDATA) if os.path.exists(os.path.join(TESTDATA, n, "config.json")))
    assert names, "run make_tiny_checkpoints.py first"
    for name in names:
        m = load(name)
        self_checks(name, m)
        m.routing_gaps = []
        logits, losses, mlosses, caps = [], [], [], []
        for ids, mask in zip(SEQUENCES, TARGET_MASKS):
            assert len(mask) == len(ids) and mask[0] == 0
            cap = {}
            lg = forward(m, ids, capture=cap)
            logits.append(lg)
            losses.append(float(token_ce(lg, ids).mean()))
            mlosses.append(float(masked_loss(lg, ids, mask)))
            caps.append({k: [r7(t) for t in v] for k, v in cap.items()})
        gen, margins = greedy(m, SEQUENCES[0], GREEDY_NEW_TOKENS)
        if m.moe:
            gap = min(m.routing_gaps)
            print(f"  {name}: smallest top-k routing gap p_k - p_(k+1) over golden tokens {gap:.3g}")
            assert gap > MIN_ROUTING_GAP, (name, gap)
        golden = {
            "model": name,
            "generated_by": COMMAND,
            "reference": "float64 torch, written from the math (tools/reference/reference_forward.py)",
            "sequences": SEQUENCES,
            "logits": [r7(lg) for lg in logits],
            "loss": r7(losses),
            "loss_definition": "per sequence: mean over i=1..T-1 of -log softmax(logits[i-1])[ids[i]] (T-1 targets, no mask)",
            "target_masks": TARGET_MASKS,
            "masked_loss": r7(mlosses),
            "masked_loss_definition": "per sequence: mean over i with target_masks[i]=1 of -log softmax(logits[i-1])[ids[i]]",
            "batch_masked_loss": r7(sum(mlosses) / len(mlosses)),
            "captures": caps,
            "captures_definition": "per sequence: residual[l] = residual stream entering layer l (residual[L] = before model.norm), "
                                   "input_layernorm[l] / post_attention_layernorm[l] = outputs of those norms; each [T][hidden]",
            "greedy": {"prompt": SEQUENCES[0], "new_tokens": gen, "top2_margins": r7(margins),
                       "definition": "argmax of last-position logits, appended, no eos stopping"},
        }
        if name in GRADS_FOR:
            bl = gradient_file(name, m)
            assert abs(bl - golden["batch_masked_loss"]) < 1e-6 * max(1.0, abs(bl))
            golden["grads_file"] = "grads.safetensors: d batch_masked_loss / d param, F32, same tensor names as model.safetensors"
            if m.loops > 1:
                golden["pass_grads_file"] = ("pass_grads.safetensors: pass p's part of d batch_masked_loss / d param as "
                                             "'pass{p}.{tensor}', F32, only the tensors pass p uses; parts sum to grads_file")
                golden["num_loops"] = m.loops
        with open(os.path.join(TESTDATA, name, "golden.json"), "w") as f:
            f.write("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                                        for k, v in golden.items()) + "\n}\n")
        amax = max(float(lg.abs().max()) for lg in logits)
        print(f"{name}: loss {r7(losses)} masked {r7(mlosses)} max|logit| {amax:.3g} "
              f"greedy {gen} min margin {min(margins):.3g}")


if __name__ == "__main__":
    main()
