"""Writes a .safetensors file without the safetensors package: an 8-byte little-endian header
length, a JSON header naming each tensor's dtype, shape and byte range, then the raw little-endian
bytes. Tensors keep their dtype (int64 stays I64, bool stays BOOL)."""

import json
import os
import sys

# torch dtype name -> safetensors dtype. Anything else is refused (the caller lists it instead).
_DTYPES = {
    "torch.int64": "I64",
    "torch.int32": "I32",
    "torch.int16": "I16",
    "torch.int8": "I8",
    "torch.uint8": "U8",
    "torch.bool": "BOOL",
    "torch.float64": "F64",
    "torch.float32": "F32",
    "torch.float16": "F16",
    "torch.bfloat16": "BF16",
}


def safetensors_dtype(tensor):
    """The safetensors dtype of a torch tensor, or None when the format has none for it."""
    return _DTYPES.get(str(tensor.dtype))


def _raw_bytes(tensor):
    import torch  # only reached with a torch tensor in hand

    t = tensor.detach().to("cpu").contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: the same 16 bits as int16
        t = t.view(torch.int16)
    array = t.numpy()
    if sys.byteorder != "little":
        array = array.byteswap()
    return array.tobytes()


def write_safetensors(path, tensors, metadata=None):
    """Writes {name: torch tensor} to path (atomically: a temporary file renamed into place).
    Returns {name: {"dtype", "shape"}} of what was written."""
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        dtype = safetensors_dtype(tensor)
        if dtype is None:
            raise TypeError("tensor %r has dtype %s, which safetensors cannot hold" % (name, tensor.dtype))
        data = _raw_bytes(tensor)
        header[name] = {"dtype": dtype, "shape": list(tensor.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)  # the reference writer pads the header to 8 bytes
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for data in blobs:
            f.write(data)
    os.replace(tmp, path)
    return {name: {"dtype": h["dtype"], "shape": h["shape"]} for name, h in header.items() if name != "__metadata__"}
