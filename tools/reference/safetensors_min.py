"""Minimal safetensors reader/writer (no external safetensors package).

Layout: u64 little-endian header length N | N bytes of JSON header | raw data.
Header: {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}},
offsets relative to the start of the data area (byte 8 + N).
"""
import json
import struct

import numpy as np

_NP = {"F32": "<f4", "F64": "<f8", "F16": "<f2"}


def write_safetensors(path, tensors, metadata=None):
    """tensors: dict name -> numpy array; stored as F32, in sorted name order."""
    header, chunks, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name in sorted(tensors):
        raw = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(tensors[name].shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        chunks.append(raw)
        offset += len(raw)
    hjson = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hjson += b" " * (-len(hjson) % 8)  # pad so the data area is 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for c in chunks:
            f.write(c)


def read_safetensors(path):
    """Returns dict name -> float64 numpy array (F32/F16/BF16/F64 supported)."""
    with open(path, "rb") as f:
        buf = f.read()
    (n,) = struct.unpack("<Q", buf[:8])
    header = json.loads(buf[8 : 8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        raw = buf[base + b : base + e]
        if info["dtype"] == "BF16":
            arr = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(raw, _NP[info["dtype"]])
        shape = info["shape"]
        assert arr.size == int(np.prod(shape, dtype=np.int64)), name
        out[name] = arr.astype(np.float64).reshape(shape)
    return out
