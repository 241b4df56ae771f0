// NormalizedText: alignment runs and their look-ups (see NormalizedText.h for the convention).
#include "core/tokenizer/hf/NormalizedText.h"

#include <algorithm>

namespace maskscope::hf {

NormalizedText NormalizedText::identity(std::string_view text, int64_t base) {
  NormalizedText t;
  t.text_.assign(text);
  t.base_ = base;
  return t;
}

size_t NormalizedText::runIndex(size_t b) const {
  auto it =
      std::upper_bound(runs_.begin(), runs_.end(), int64_t(b), [](int64_t v, const AlignRun& r) { return v < r.norm; });
  return it == runs_.begin() ? 0 : size_t(it - runs_.begin()) - 1;
}

ByteSpan NormalizedText::original(size_t b, size_t e) const {
  if (runs_.empty()) return {base_ + int64_t(b), base_ + int64_t(e)};
  auto startOf = [&](size_t pos) {
    const AlignRun& r = runs_[runIndex(pos)];
    return r.identity ? r.orig + (int64_t(pos) - r.norm) : r.orig;
  };
  auto endOf = [&](size_t pos) { // end of the original range of byte pos
    const AlignRun& r = runs_[runIndex(pos)];
    return r.identity ? r.orig + (int64_t(pos) - r.norm) + 1 : r.origEnd;
  };
  if (b >= e) {
    if (text_.empty()) return {base_, base_};
    int64_t p = b < text_.size() ? startOf(b) : endOf(text_.size() - 1);
    return {p, p};
  }
  int64_t s = startOf(b), en = endOf(e - 1);
  return {s, std::max(s, en)};
}

NormalizedText NormalizedText::slice(size_t b, size_t e) const {
  e = std::min(e, text_.size());
  b = std::min(b, e);
  if (runs_.empty()) return identity(std::string_view(text_).substr(b, e - b), base_ + int64_t(b));
  NormalizedBuilder builder;
  builder.copy(*this, b, e);
  NormalizedText t = builder.finish();
  if (t.text_.empty()) t.base_ = original(b, b).begin;
  return t;
}

void NormalizedBuilder::addRun(AlignRun run) {
  auto& runs = out_.runs_;
  if (!runs.empty()) {
    AlignRun& last = runs.back();
    if (last.identity && run.identity && last.origEnd == run.orig) { // contiguous identity
      last.origEnd = run.origEnd;
      return;
    }
    if (!last.identity && !run.identity && last.orig == run.orig && last.origEnd == run.origEnd)
      return; // same produced range continues
    if (last.norm == run.norm) {
      last = run;
      return;
    } // previous run was empty
  }
  runs.push_back(run);
}

void NormalizedBuilder::copy(const NormalizedText& src, size_t b, size_t e) {
  if (b >= e) return;
  const int64_t at = int64_t(out_.text_.size());
  out_.text_.append(src.text_, b, e - b);
  if (src.runs_.empty()) {
    addRun({at, src.base_ + int64_t(b), src.base_ + int64_t(e), true});
    return;
  }
  for (size_t i = src.runIndex(b); i < src.runs_.size(); ++i) {
    const AlignRun& r = src.runs_[i];
    const int64_t rEnd = i + 1 < src.runs_.size() ? src.runs_[i + 1].norm : int64_t(src.text_.size());
    const int64_t s = std::max<int64_t>(r.norm, int64_t(b)), en = std::min<int64_t>(rEnd, int64_t(e));
    if (s >= en) {
      if (r.norm >= int64_t(e)) break;
      continue;
    }
    if (r.identity)
      addRun({at + (s - int64_t(b)), r.orig + (s - r.norm), r.orig + (en - r.norm), true});
    else
      addRun({at + (s - int64_t(b)), r.orig, r.origEnd, false});
  }
}

void NormalizedBuilder::produce(std::string_view bytes, ByteSpan from) {
  if (bytes.empty()) return;
  const int64_t at = int64_t(out_.text_.size());
  out_.text_.append(bytes);
  addRun({at, from.begin, from.end, false});
}

NormalizedText NormalizedBuilder::finish() {
  NormalizedText t = std::move(out_);
  out_ = NormalizedText();
  if (t.runs_.size() == 1 && t.runs_[0].identity && t.runs_[0].norm == 0) {
    t.base_ = t.runs_[0].orig;
    t.runs_.clear();
  } else if (t.runs_.empty()) {
    t.base_ = 0;
  }
  return t;
}

} // namespace maskscope::hf
