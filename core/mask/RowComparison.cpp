// Row comparison: align at the first real token, then count each grid's differences apart.
#include "core/mask/RowComparison.h"
#include "core/mask/PaddingDetection.h"
#include "core/mask/RowFacts.h"

#include <algorithm>

namespace maskscope {

namespace {

int64_t firstReal(const Batch& b, int64_t r) {
  const std::vector<uint8_t> pads = paddingOfRow(b, r);
  for (size_t t = 0; t < pads.size(); ++t)
    if (!pads[t]) return int64_t(t);
  return 0;
}

int64_t cell(const IntGrid& g, const Batch& b, int64_t r, int64_t t, int64_t fallback) {
  return g.sameShape(b.inputIds) ? g.at(r, t) : fallback;
}

// The label the loss scores at t (gradedAt), else -100: a label at position 0 is never scored (the
// model shifts), so one row's 7 there and the other's -100 train alike and both show -100 as unscored.
int64_t scoredLabel(const Batch& b, int64_t r, int64_t t) {
  return gradedAt(b, r, t) ? b.labels.at(r, t) : kIgnoreIndex;
}

} // namespace

int64_t RowComparison::inB(int64_t t) const {
  const int64_t u = t + shift;
  return t >= 0 && t < lengthA && u >= 0 && u < lengthB ? u : -1;
}

int64_t RowComparison::inA(int64_t t) const {
  const int64_t u = t - shift;
  return t >= 0 && t < lengthB && u >= 0 && u < lengthA ? u : -1;
}

RowComparison compareRows(const Batch& a, int64_t ra, const Batch& b, int64_t rb) {
  RowComparison c;
  const bool okA = ra >= 0 && ra < a.batchSize(), okB = rb >= 0 && rb < b.batchSize();
  c.lengthA = okA ? a.length() : 0;
  c.lengthB = okB ? b.length() : 0;
  c.flagsA.assign(size_t(c.lengthA), DiffNoCounterpart);
  c.flagsB.assign(size_t(c.lengthB), DiffNoCounterpart);
  if (okA) c.firstRealA = firstReal(a, ra);
  if (okB) c.firstRealB = firstReal(b, rb);
  c.shift = c.firstRealB - c.firstRealA;
  c.positionIdsCompared = a.positionIds.sameShape(a.inputIds) && b.positionIds.sameShape(b.inputIds);
  const int64_t begin = std::max<int64_t>(0, -c.shift), end = std::min(c.lengthA, c.lengthB - c.shift);
  for (int64_t t = begin; t < end; ++t) {
    const int64_t u = t + c.shift;
    ++c.common;
    uint8_t f = 0;
    const bool attendedA = cell(a.attentionMask, a, ra, t, 1) != 0, attendedB = cell(b.attentionMask, b, rb, u, 1) != 0;
    if (a.inputIds.at(ra, t) != b.inputIds.at(rb, u)) f |= attendedA || attendedB ? DiffId : DiffPadId;
    if (scoredLabel(a, ra, t) != scoredLabel(b, rb, u)) f |= DiffLabel;
    if (attendedA != attendedB) f |= DiffAttention;
    if (c.positionIdsCompared && a.positionIds.at(ra, t) != b.positionIds.at(rb, u)) f |= DiffPositionId;
    c.ids += (f & DiffId) != 0;
    c.labels += (f & DiffLabel) != 0;
    c.attention += (f & DiffAttention) != 0;
    c.positionIds += (f & DiffPositionId) != 0;
    c.padIds += (f & DiffPadId) != 0;
    c.positions += (f & DiffAny) != 0;
    c.flagsA[size_t(t)] = f;
    c.flagsB[size_t(u)] = f;
  }
  c.onlyA = c.lengthA - c.common;
  c.onlyB = c.lengthB - c.common;
  return c;
}

CellComparison compareCells(const RowAnatomy& a, const RowAnatomy& b, int64_t shift) {
  CellComparison out;
  const int64_t begin = std::max<int64_t>(0, -shift), end = std::min(a.size(), b.size() - shift);
  for (int64_t q = begin; q < end; ++q)
    for (int64_t k = begin; k <= q; ++k) {
      ++out.compared;
      out.differ += a.state(q, k) != b.state(q + shift, k + shift);
    }
  return out;
}

} // namespace maskscope
