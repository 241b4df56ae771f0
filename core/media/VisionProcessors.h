// The processor families maskscope reproduces, each as its upstream processor expands an image:
// the placeholder the chat template writes, the token it becomes, the markers around the block and
// how many tokens an image of a given size gives (docs/cli.md, Images).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

enum class VisionFamily : uint8_t { Qwen2VL, Gemma3, Llava };

struct VisionProcessor {
  VisionFamily family;
  std::string name;        // "qwen2-vl", "gemma3", "llava"
  std::string upstream;    // the transformers file that does the expansion
  std::string placeholder; // what the template writes once per image
  std::string imageToken;  // the token the processor repeats
  std::string blockStart;  // the marker before the image tokens (empty: none)
  std::string blockEnd;    // the marker after them (empty: none)
  std::string videoToken;  // what the template writes once per video and the processor repeats (empty: none)
};

// The processor's min_pixels / max_pixels (Qwen2-VL's smart_resize bounds), as
// AutoProcessor.from_pretrained(..., min_pixels=, max_pixels=) hands them to the image and the video
// processor. 0: the processor's own default.
struct PixelBounds {
  int64_t minPixels = 0;
  int64_t maxPixels = 0;
  bool isDefault() const { return minPixels == 0 && maxPixels == 0; }
};

const std::vector<VisionProcessor>& visionProcessors();
// The family whose placeholder the rendered text holds (first in visionProcessors() order), or null.
const VisionProcessor* visionProcessorForText(const std::string& rendered);

// transformers' Qwen2-VL smart_resize (image_processing_qwen2_vl.py): both sides rounded to
// multiples of factor (Python's round, half to even), then scaled to keep the pixel count within
// [minPixels, maxPixels] with the aspect ratio. The defaults are Qwen2VLImageProcessor's.
struct ResizedImage {
  int64_t height = 0;
  int64_t width = 0;
};
ResizedImage qwenSmartResize(int64_t height, int64_t width, int64_t factor = 28, int64_t minPixels = 56 * 56,
                             int64_t maxPixels = 28 * 28 * 1280);

// The image tokens one image of width x height becomes: Qwen2-VL (h/28)·(w/28) after smart_resize,
// Gemma 3 its image_seq_length 256, LLaVA-1.5 576 (24x24 patches of its 336-pixel crop). Bounds
// other than the default are Error for the fixed-count families.
int64_t imageTokenCount(const VisionProcessor& p, int64_t width, int64_t height, PixelBounds bounds = {});

// The <|video_pad|> tokens of one Qwen2-VL video (Qwen2VLVideoProcessor, transformers
// models/qwen2_vl/video_processing_qwen2_vl.py at 000513e6): every frame is kept (do_sample_frames
// is False by default), frames padded to a multiple of temporal_patch_size 2 by repeating the last,
// each frame smart_resized with the video defaults min_pixels 128·28·28, max_pixels 768·28·28:
// ceil(frames/2)·(h/28)·(w/28). Error for a family without video.
int64_t videoTokenCount(const VisionProcessor& p, int64_t frames, int64_t width, int64_t height,
                        PixelBounds bounds = {});

} // namespace maskscope
