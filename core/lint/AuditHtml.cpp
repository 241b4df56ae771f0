// The audit page's pieces: escaping (every dataset text is hostile), SVG bar charts computed from
// the summary's bins, and token strips with folded pad runs.
#include "core/lint/AuditHtml.h"

#include <algorithm>
#include <iterator>

namespace maskscope {

std::string histogramSvg(const std::string& title, const std::vector<std::string>& labels,
                         const std::vector<long>& counts) {
  const int barW = 56, gap = 8, top = 34, plotH = 140, bottom = 44;
  const int n = int(counts.size());
  const int width = 20 + n * (barW + gap), height = top + plotH + bottom;
  const long most = std::max<long>(1, counts.empty() ? 1 : *std::max_element(counts.begin(), counts.end()));
  std::string s = "<svg class=\"hist\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
                  "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                  "\" role=\"img\" aria-label=\"" + htmlEscape(title) + "\">\n<text x=\"10\" y=\"18\" class=\"ht\">" +
                  htmlEscape(title) + "</text>\n";
  for (int i = 0; i < n; ++i) {
    const int h = counts[size_t(i)] > 0 ? std::max(1, int(double(counts[size_t(i)]) * plotH / double(most))) : 0;
    const int x = 10 + i * (barW + gap), y = top + plotH - h;
    s += "<rect class=\"bar\" x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
         std::to_string(barW) + "\" height=\"" + std::to_string(h) + "\" data-count=\"" +
         std::to_string(counts[size_t(i)]) + "\"/>";
    s += "<text x=\"" + std::to_string(x + barW / 2) + "\" y=\"" + std::to_string(y - 4) +
         "\" text-anchor=\"middle\" class=\"hc\">" + std::to_string(counts[size_t(i)]) + "</text>";
    s += "<text x=\"" + std::to_string(x + barW / 2) + "\" y=\"" + std::to_string(top + plotH + 16) +
         "\" text-anchor=\"middle\" class=\"hl\">" + htmlEscape(i < int(labels.size()) ? labels[size_t(i)] : "") +
         "</text>\n";
  }
  s += "<line x1=\"8\" x2=\"" + std::to_string(width - 8) + "\" y1=\"" + std::to_string(top + plotH) + "\" y2=\"" +
       std::to_string(top + plotH) + "\" class=\"axis\"/>\n</svg>\n";
  return s;
}

namespace {

const char* kindClass(uint8_t k) {
  static const char* names[] = {"unknown", "system",    "user",  "assistant", "tool", "template",
                                "pad",     "separator", "think", "tool_call", "image"};
  static_assert(std::size(names) == kPositionKinds);
  return k < kPositionKinds ? names[k] : "unknown";
}

std::string labelText(const AuditRow& r, size_t t) {
  if (r.graded[t]) return "&#10003;" + std::to_string(r.labels[t]);
  return r.labels[t] == kIgnoreIndex ? std::string("-100") : std::to_string(r.labels[t]) + " unscored";
}

bool isPad(const AuditRow& r, size_t t) { return r.kind[t] == uint8_t(PositionKind::Padding); }

// Pads alike enough to fold: same id, label, mask and grading, none flagged.
size_t padRunEnd(const AuditRow& r, size_t t) {
  size_t j = t;
  while (j < r.ids.size() && isPad(r, j) && r.ids[j] == r.ids[t] && r.labels[j] == r.labels[t] &&
         r.mask[j] == r.mask[t] && r.graded[j] == r.graded[t] && int64_t(j) != r.flagged)
    ++j;
  return j;
}

std::string chip(const AuditRow& r, size_t t, size_t count) {
  std::string cls = std::string("chip ") + kindClass(r.kind[t]);
  if (r.graded[t]) cls += " graded";
  if (int64_t(t) == r.flagged) cls += " flagged";
  const std::string where = count > 1 ? "positions " + std::to_string(t) + "-" + std::to_string(t + count - 1)
                                      : "position " + std::to_string(t);
  const std::string shown = count > 1 ? "&hellip; " + std::to_string(count) + " pad &hellip;" : htmlEscape(r.text[t]);
  return "<span class=\"" + cls + "\" title=\"" + where + ", id " + std::to_string(r.ids[t]) + "\">" + shown +
         "<small>" + labelText(r, t) + " m" + std::to_string(r.mask[t]) + "</small></span>";
}

} // namespace

// Long rows are drawn in windows: the start, around the flagged position and the end, the
// positions between folded into one chip (the row is still counted whole in the page's tables).
std::vector<std::pair<size_t, size_t>> shownRanges(const AuditRow& r) {
  const size_t T = r.ids.size();
  if (T <= 200) return {{0, T}};
  std::vector<std::pair<size_t, size_t>> ranges{{0, 48}};
  if (r.flagged >= 0 && size_t(r.flagged) < T)
    ranges.push_back({size_t(std::max<int64_t>(0, r.flagged - 48)), std::min(T, size_t(r.flagged) + 48)});
  ranges.push_back({T - 24, T});
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<size_t, size_t>> merged;
  for (const auto& g : ranges) {
    if (!merged.empty() && g.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, g.second);
    else
      merged.push_back(g);
  }
  return merged;
}

std::string tokenStrip(const AuditRow& r) {
  std::string s = "<div class=\"strip\">";
  size_t last = 0;
  for (const auto& [from, to] : shownRanges(r)) {
    if (from > last)
      s += "<span class=\"chip fold\">&hellip; " + std::to_string(from - last) + " positions not drawn &hellip;</span>";
    for (size_t t = from; t < to;) {
      const size_t end = isPad(r, t) ? std::min(to, padRunEnd(r, t)) : t;
      if (end >= t + 3) {
        s += chip(r, t, end - t);
        t = end;
        continue;
      }
      s += chip(r, t, 1);
      ++t;
    }
    last = to;
  }
  if (r.positionsNotKept > 0)
    s +=
        "<span class=\"chip fold\">&hellip; " + std::to_string(r.positionsNotKept) + " more positions not drawn</span>";
  return s + "</div>\n";
}

} // namespace maskscope
