// Layer kinds as text: runs of consecutive layers of the same kind are written as ranges.
#include "core/forward/LayerAttention.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

namespace maskscope {

namespace {
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// "0-4, 6-10, 12" for the sorted layer indices.
std::string ranges(const std::vector<int>& layers) {
  std::string out;
  for (size_t i = 0; i < layers.size();) {
    size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(layers[i]);
    if (j > i) out += "-" + std::to_string(layers[j]);
    i = j + 1;
  }
  return out;
}
} // namespace

int64_t layerWindow(const ModelInfo& info, int layer) {
  if (layer < 0 || size_t(layer) >= info.layerAttention.size()) return 0;
  const LayerAttentionInfo& l = info.layerAttention[size_t(layer)];
  return l.sliding ? l.window : 0;
}

std::string layerKindText(const ModelInfo& info, int layer) {
  const int64_t w = layerWindow(info, layer);
  std::string text = w > 0 ? "sliding, window " + std::to_string(w) : "full";
  if (info.attnLogitSoftcap > 0) text += ", soft-capped at " + number(info.attnLogitSoftcap);
  return text;
}

std::string layerAttentionSummary(const ModelInfo& info) {
  std::map<int64_t, std::vector<int>> byWindow; // 0 = full
  for (int l = 0; l < int(info.layerAttention.size()); ++l) byWindow[layerWindow(info, l)].push_back(l);
  std::string text = std::to_string(info.layers) + " layers";
  if (byWindow.size() <= 1) {
    const int64_t w = byWindow.empty() ? 0 : byWindow.begin()->first;
    text += w > 0 ? ", all sliding (window " + std::to_string(w) + ")" : ", all full";
  } else {
    std::string parts;
    for (const auto& [w, layers] : byWindow) {
      if (w == 0) continue;
      parts +=
          (parts.empty() ? "" : "; ") + std::string("sliding (window ") + std::to_string(w) + ") " + ranges(layers);
    }
    if (byWindow.count(0)) parts += "; full " + ranges(byWindow[0]);
    text += ": " + parts;
  }
  if (info.attnLogitSoftcap > 0) text += "; attention logits soft-capped at " + number(info.attnLogitSoftcap);
  if (info.finalLogitSoftcap > 0) text += "; final logits soft-capped at " + number(info.finalLogitSoftcap);
  return text;
}

ShownLayer shownLayer(const ModelInfo& info, int layer, int64_t userWindow) {
  ShownLayer s;
  if (!info.layerAttention.empty()) {
    s.window = layerWindow(info, layer);
    s.softcap = info.attnLogitSoftcap;
    s.text = "layer " + std::to_string(layer) + " \xe2\x80\x94 " + layerKindText(info, layer); // an em dash
    return s;
  }
  s.window = std::max<int64_t>(0, userWindow);
  if (s.window > 0) s.text = "sliding window of " + std::to_string(s.window) + " keys (no model)";
  return s;
}

} // namespace maskscope
