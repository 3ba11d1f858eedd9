"""Writes format_projectors.pt with torch.save exactly as the CRANE reference pipeline does
(crane/crane_nullspace_format5_5.py: V_r = V[:, :r] and sigma = S[:r] of an SVD, so V_r is a
strided view that keeps the whole V storage), plus the values torch itself reads back, flattened
row-major, in format_projectors.expected.json. Run from the repository root with Debian's
/usr/bin/python3 (python3-torch):

    /usr/bin/python3 engine/io/testdata/make_torch_golden.py
"""
import json
import os

import torch

OUT = os.path.dirname(os.path.abspath(__file__))

torch.manual_seed(0)
projectors = {}
for layer, component, d, rank in [(0, "attn_input", 6, 3), (0, "ffn_input", 6, 2), (3, "attn_input", 5, 4)]:
    features = torch.randn(9, d)
    _, S, Vh = torch.linalg.svd(features, full_matrices=False)
    V = Vh.T  # (d, d) transposed view: V[:, :r] has strides (1, d) and the whole storage
    projectors[f"layer_{layer}_{component}"] = {"V_r": V[:, :rank], "sigma": S[:rank]}
# The other dtypes the reader accepts, and a storage offset.
projectors["layer_3_attn_input"]["sigma"] = projectors["layer_3_attn_input"]["sigma"].to(torch.bfloat16)
projectors["layer_0_ffn_input"]["sigma"] = projectors["layer_0_ffn_input"]["sigma"].to(torch.float16)
projectors["layer_0_ffn_input"]["V_r"] = projectors["layer_0_ffn_input"]["V_r"][1:]

path = os.path.join(OUT, "format_projectors.pt")
torch.save(projectors, path)

loaded = torch.load(path, weights_only=True)
expected = {
    key: {
        name: {
            "dtype": str(tensor.dtype),
            "shape": list(tensor.shape),
            "stride": list(tensor.stride()),
            "values": tensor.float().flatten().tolist(),
        }
        for name, tensor in entry.items()
    }
    for key, entry in loaded.items()
}
with open(os.path.join(OUT, "format_projectors.expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
