#!/usr/bin/python3
"""Reference token counts of Qwen2-VL images: transformers' smart_resize (models/qwen2_vl/
image_processing_qwen2_vl.py, defaults of Qwen2VLImageProcessor: factor 28 = patch 14 x merge 2,
min_pixels 56*56, max_pixels 28*28*1280), written out here so the table does not need transformers.
tokens = (h_bar / 28) * (w_bar / 28): image_grid_thw (1, h/14, w/14) divided by merge_size**2.
Also: the same image sizes under other min_pixels / max_pixels (the processor's bounds, as
AutoProcessor.from_pretrained(..., min_pixels=, max_pixels=) sets them), and Qwen2-VL videos
(Qwen2VLVideoProcessor, models/qwen2_vl/video_processing_qwen2_vl.py at transformers 000513e6:
every frame kept, frames padded to a multiple of temporal_patch_size 2 by repeating the last,
smart_resize with the video defaults min_pixels 128*28*28, max_pixels 28*28*768; tokens =
grid_t * grid_h * grid_w // merge_size**2 = ceil(frames / 2) * (h_bar / 28) * (w_bar / 28)).
Writes tests/data/media/smart_resize.json (test_images compares core/media/VisionProcessors).
Run from the repository root: /usr/bin/python3 tools/media/smart_resize_reference.py"""
import json
import math
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def smart_resize(height, width, factor=28, min_pixels=56 * 56, max_pixels=14 * 14 * 4 * 1280):
    if max(height, width) / min(height, width) > 200:
        raise ValueError("absolute aspect ratio must be smaller than 200")
    h_bar = round(height / factor) * factor
    w_bar = round(width / factor) * factor
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


SIZES = [(448, 448), (640, 480), (1024, 768), (56, 56), (300, 200), (4000, 3000), (1920, 1080), (10, 10),
         (28, 28), (42, 42), (70, 98), (14, 2000), (3584, 3584), (1, 150), (517, 333), (250, 250)]


BOUNDED = [(448, 448, 0, 0), (448, 448, 0, 128 * 28 * 28), (448, 448, 0, 256 * 28 * 28), (448, 448, 0, 56 * 56),
           (448, 448, 512 * 28 * 28, 0), (1024, 768, 0, 64 * 28 * 28), (56, 56, 32 * 28 * 28, 0),
           (640, 480, 4 * 28 * 28, 16 * 28 * 28)]
VIDEOS = [(2, 448, 448), (4, 448, 448), (5, 448, 448), (1, 56, 56), (16, 640, 360), (8, 1920, 1080), (3, 100, 100)]


def video_tokens(frames, w, h):
    hb, wb = smart_resize(h, w, min_pixels=128 * 28 * 28, max_pixels=28 * 28 * 768)
    grid_t = (frames + (-frames) % 2) // 2
    return hb, wb, grid_t * (hb // 28) * (wb // 28)


def main():
    bounded = []
    for w, h, lo, hi in BOUNDED:
        hb, wb = smart_resize(h, w, min_pixels=lo or 56 * 56, max_pixels=hi or 28 * 28 * 1280)
        bounded.append({"width": w, "height": h, "min_pixels": lo, "max_pixels": hi, "tokens": (hb // 28) * (wb // 28)})
    videos = []
    for frames, w, h in VIDEOS:
        hb, wb, tokens = video_tokens(frames, w, h)
        videos.append({"frames": frames, "width": w, "height": h, "resized_height": hb, "resized_width": wb,
                       "tokens": tokens})
    cases = []
    for w, h in SIZES:
        hb, wb = smart_resize(h, w)
        cases.append({"width": w, "height": h, "resized_height": hb, "resized_width": wb,
                      "tokens": (hb // 28) * (wb // 28)})
    out = os.path.join(ROOT, "tests", "data", "media", "smart_resize.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"generator": "tools/media/smart_resize_reference.py", "cases": cases, "bounded": bounded,
                   "videos": videos}, f, indent=1)
    print("\n".join("%dx%d -> %dx%d: %d" % (c["width"], c["height"], c["resized_width"], c["resized_height"],
                                          c["tokens"]) for c in cases))


if __name__ == "__main__":
    main()
