// The processor families (VisionProcessors.h), their token strings and token counts, as the
// upstream processors in transformers write them.
#include "core/media/VisionProcessors.h"
#include "core/util/Error.h"

#include <algorithm>
#include <cfenv>
#include <cmath>

namespace maskscope {

const std::vector<VisionProcessor>& visionProcessors() {
  static const std::vector<VisionProcessor> all = {
      {VisionFamily::Qwen2VL, "qwen2-vl",
       "transformers/models/qwen2_vl/processing_qwen2_vl.py, image_processing_qwen2_vl.py (smart_resize)",
       "<|image_pad|>", "<|image_pad|>", "<|vision_start|>", "<|vision_end|>", "<|video_pad|>"},
      {VisionFamily::Gemma3, "gemma3", "transformers/models/gemma3/processing_gemma3.py (full_image_sequence)",
       "<start_of_image>", "<image_soft_token>", "<start_of_image>", "<end_of_image>", ""},
      {VisionFamily::Llava, "llava", "transformers/models/llava/processing_llava.py (num_image_tokens)", "<image>",
       "<image>", "", "", ""},
  };
  return all;
}

const VisionProcessor* visionProcessorForText(const std::string& rendered) {
  for (const VisionProcessor& p : visionProcessors())
    if (rendered.find(p.placeholder) != std::string::npos ||
        (!p.videoToken.empty() && rendered.find(p.videoToken) != std::string::npos))
      return &p;
  return nullptr;
}

namespace {

// Python's round() on a float: half to even.
int64_t pyRound(double x) {
  const int mode = std::fegetround();
  std::fesetround(FE_TONEAREST);
  const double r = std::nearbyint(x);
  std::fesetround(mode);
  return int64_t(r);
}

} // namespace

ResizedImage qwenSmartResize(int64_t height, int64_t width, int64_t factor, int64_t minPixels, int64_t maxPixels) {
  if (height < 1 || width < 1) throw Error("image size must be positive");
  if (double(std::max(height, width)) / double(std::min(height, width)) > 200)
    throw Error("absolute aspect ratio must be smaller than 200, got " + std::to_string(width) + "x" +
                std::to_string(height) + " (Qwen2-VL smart_resize)");
  const double h = double(height), w = double(width), f = double(factor);
  int64_t hBar = pyRound(h / f) * factor;
  int64_t wBar = pyRound(w / f) * factor;
  if (hBar * wBar > maxPixels) {
    const double beta = std::sqrt(h * w / double(maxPixels));
    hBar = std::max(factor, int64_t(std::floor(h / beta / f)) * factor);
    wBar = std::max(factor, int64_t(std::floor(w / beta / f)) * factor);
  } else if (hBar * wBar < minPixels) {
    const double beta = std::sqrt(double(minPixels) / (h * w));
    hBar = int64_t(std::ceil(h * beta / f)) * factor;
    wBar = int64_t(std::ceil(w * beta / f)) * factor;
  }
  return {hBar, wBar};
}

namespace {

void refuseBounds(const VisionProcessor& p, PixelBounds bounds) {
  if (!bounds.isDefault())
    throw Error("min_pixels / max_pixels: the " + p.name + " processor writes a fixed " +
                std::to_string(p.family == VisionFamily::Gemma3 ? 256 : 576) +
                " tokens per image whatever its size; the bounds are Qwen2-VL's (smart_resize)");
}

} // namespace

int64_t imageTokenCount(const VisionProcessor& p, int64_t width, int64_t height, PixelBounds bounds) {
  switch (p.family) {
  case VisionFamily::Qwen2VL: {
    // image_grid_thw = (1, h/14, w/14); the processor writes prod // merge_size**2 (2x2 merge).
    const ResizedImage r = qwenSmartResize(height, width, 28, bounds.minPixels ? bounds.minPixels : 56 * 56,
                                           bounds.maxPixels ? bounds.maxPixels : 28 * 28 * 1280);
    return (r.height / 28) * (r.width / 28);
  }
  case VisionFamily::Gemma3:
    refuseBounds(p, bounds);
    return 256; // Gemma3ProcessorKwargs image_seq_length (mm_tokens_per_image), pan-and-scan off
  case VisionFamily::Llava:
    refuseBounds(p, bounds);
    return 576; // (336 // 14) ** 2 + 1 CLS - 1 for vision_feature_select_strategy "default"
  }
  return 0;
}

int64_t videoTokenCount(const VisionProcessor& p, int64_t frames, int64_t width, int64_t height, PixelBounds bounds) {
  if (p.family != VisionFamily::Qwen2VL)
    throw Error("video parts: the " + p.name + " processor takes no video (maskscope expands Qwen2-VL's)");
  if (frames < 1) throw Error("a video needs at least one frame");
  const ResizedImage r = qwenSmartResize(height, width, 28, bounds.minPixels ? bounds.minPixels : 128 * 28 * 28,
                                         bounds.maxPixels ? bounds.maxPixels : 28 * 28 * 768);
  const int64_t gridT = (frames + 1) / 2; // temporal_patch_size 2, the last frame repeated
  return gridT * (r.height / 28) * (r.width / 28);
}

} // namespace maskscope
