// Axolotl's multipack bins (see Multipack.h): pack_group (first fit, named "FFD" upstream but
// without the sort), allocate_sequentially, and generate_batches' grouping with drop_last.
#include "core/frameworks/axolotl/Multipack.h"

#include <algorithm>

namespace maskscope::axolotl {

namespace {

using Bins = std::vector<std::vector<size_t>>;

// pack_group(sequence_lengths, group_offset, bin_capacity, max_bins=len(group), bin_size, safe_mode=True)
void packGroup(const std::vector<int64_t>& lengths, size_t offset, size_t count, const MultipackOptions& o, Bins& out) {
  std::vector<int64_t> remaining;
  Bins bins;
  for (size_t k = 0; k < count; ++k) {
    const int64_t size = lengths[offset + k];
    bool placed = false;
    for (size_t b = 0; b < bins.size(); ++b)
      if (remaining[b] >= size && int64_t(bins[b].size()) < o.binSize) {
        remaining[b] -= size;
        bins[b].push_back(offset + k);
        placed = true;
        break;
      }
    if (placed) continue;
    if (bins.size() >= count) continue; // safe_mode: never more bins than items
    remaining.push_back(o.binCapacity - size);
    bins.push_back({offset + k});
  }
  out.insert(out.end(), bins.begin(), bins.end());
}

// allocate_sequentially(rank=0, num_ranks=1): a new bin whenever the next row does not fit.
Bins allocateSequentially(const std::vector<int64_t>& lengths, int64_t capacity) {
  Bins bins;
  std::vector<size_t> current;
  int64_t remaining = capacity;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] <= remaining) {
      current.push_back(i);
      remaining -= lengths[i];
    } else {
      if (!current.empty()) bins.push_back(current);
      current = {i};
      remaining = capacity - lengths[i];
    }
  }
  if (!current.empty()) bins.push_back(current);
  return bins;
}

} // namespace

std::vector<Bins> multipackBatches(const std::vector<int64_t>& lengths, const MultipackOptions& o) {
  Bins bins;
  if (o.sequential) {
    bins = allocateSequentially(lengths, o.binCapacity);
  } else {
    const size_t group = size_t(std::max<int64_t>(1, o.groupSize));
    for (size_t i = 0; i < lengths.size(); i += group)
      packGroup(lengths, i, std::min(group, lengths.size() - i), o, bins);
  }
  std::vector<Bins> batches;
  const size_t per = size_t(std::max<int64_t>(1, o.batchSize));
  for (size_t i = 0; i < bins.size(); i += per)
    batches.emplace_back(bins.begin() + long(i), bins.begin() + long(std::min(bins.size(), i + per)));
  if (!batches.empty() && batches.back().size() < per) batches.pop_back(); // drop_last
  return batches;
}

} // namespace maskscope::axolotl
