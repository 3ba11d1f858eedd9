#!/usr/bin/env python3
"""Helpers of `npm run bench:export` (tools/bench-export.ts), on Debian's /usr/bin/python3 + numpy.

  measure -- CMD...             runs CMD, prints {"wall_s", "cpu_s", "max_rss_bytes"} of it (JSON)
  merge INSTRUCT THINKING OUT L [--fsync]
                                 the baseline: task arithmetic θ_I + L·(θ_T − θ_I) over every
                                 tensor of two BF16 safetensors checkpoints, with numpy memmaps,
                                 f32 arithmetic, bf16 rounded to nearest even, one output file;
                                 --fsync flushes it to disk before returning, as the engine's
                                 export does (its output must survive a crash)
  compare A_DIR B_DIR            {"tensors", "values", "differing"}: BF16 values that differ
                                 between two checkpoints' same-named tensors

Tensors are processed in slices of CHUNK values so the baseline's memory stays small: it is the
fastest plain numpy merge we know how to write, which is what the export is compared with.
"""
import glob
import json
import os
import resource
import struct
import subprocess
import sys
import time

import numpy as np

CHUNK = 1 << 24


def header_of(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(size)), 8 + size


def tensors_of(directory):
    """name -> (path, info, data start) over every *.safetensors file of a checkpoint folder."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.safetensors"))):
        header, base = header_of(path)
        for name, info in header.items():
            if name != "__metadata__":
                out[name] = (path, info, base)
    return out


def memmap_of(entry):
    path, info, base = entry
    begin, end = info["data_offsets"]
    if info["dtype"] != "BF16":
        raise SystemExit(f"{path}: {info['dtype']} tensor; the baseline merges BF16 checkpoints")
    return np.memmap(path, dtype="<u2", mode="r", offset=base + begin, shape=((end - begin) // 2,)) if end > begin else np.zeros(0, "<u2")


def widen(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def narrow(values):
    u = values.view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def merge(instruct, thinking, out, lam, durable):
    a, b = tensors_of(instruct), tensors_of(thinking)
    names = sorted(a)
    header, offset = {}, 0
    for name in names:
        info = a[name][1]
        size = info["data_offsets"][1] - info["data_offsets"][0]
        header[name] = {"dtype": "BF16", "shape": info["shape"], "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for name in names:
            x, y = memmap_of(a[name]), memmap_of(b[name])
            for start in range(0, len(x), CHUNK):
                theta = widen(x[start:start + CHUNK])
                merged = theta + np.float32(lam) * (widen(y[start:start + CHUNK]) - theta)
                f.write(narrow(merged).tobytes())
        if durable:
            f.flush()
            os.fsync(f.fileno())


def compare(left, right):
    a, b = tensors_of(left), tensors_of(right)
    values = differing = 0
    for name in sorted(set(a) & set(b)):
        x, y = memmap_of(a[name]), memmap_of(b[name])
        values += len(x)
        for start in range(0, len(x), CHUNK):
            differing += int(np.count_nonzero(x[start:start + CHUNK] != y[start:start + CHUNK]))
    print(json.dumps({"tensors": len(set(a) & set(b)), "values": values, "differing": differing}))


def measure(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_bytes": usage.ru_maxrss * 1024}))


def main():
    verb = sys.argv[1]
    if verb == "measure":
        measure(sys.argv[3:] if sys.argv[2] == "--" else sys.argv[2:])
    elif verb == "merge":
        if sys.argv[6:] not in ([], ["--fsync"]):
            raise SystemExit(f"merge takes INSTRUCT THINKING OUT L [--fsync], not {sys.argv[2:]}")
        merge(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6:] == ["--fsync"])
    elif verb == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(f"unknown verb {verb}")


if __name__ == "__main__":
    main()
