// Words and numbers for how a loaded model's decoder layers attend (ModelInfo::layerAttention):
// the app's layer picker, `loss` text and JSON and `snapshot --layer` all read them from here, so
// they say the same. A sliding layer's window W means each query sees its W most recent keys.
#pragma once
#include "core/forward/ForwardEngine.h"

#include <string>

namespace maskscope {

// The largest sliding window a config may give (engine/ModelConfig) and the app's window box takes.
inline constexpr int64_t kMaxSlidingWindow = int64_t(1) << 24;

// The window of a layer: 0 when it attends to the whole causal prefix or the layer is unknown.
int64_t layerWindow(const ModelInfo& info, int layer);
// "sliding, window 4096" or "full"; ", soft-capped at 50" when the model caps attention logits.
std::string layerKindText(const ModelInfo& info, int layer);
// The whole model in one line: "28 layers, all full" or
// "26 layers: sliding (window 512) 0-4, 6-10, ...; full 5, 11, ...; attention logits soft-capped at 50".
std::string layerAttentionSummary(const ModelInfo& info);

// What the attention grid and the softmax view draw. With a layer layout (info.layerAttention: a
// loaded model, or a config.json read for its layout) the layer's own window and soft-cap: the
// layout decides, never the user. Without one, the band of `userWindow` keys the user asked for
// (0 = full attention): the app's window box and `snapshot --window`.
struct ShownLayer {
  int64_t window = 0;
  double softcap = 0.0;
  std::string text; // "layer 3 — sliding, window 4096", "sliding window of 8 keys (no model)"; "" = full, no layout
};
ShownLayer shownLayer(const ModelInfo& info, int layer, int64_t userWindow);

} // namespace maskscope
