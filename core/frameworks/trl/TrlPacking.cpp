// TRL's packing, reproduced: _pack_bfd (with its segment-tree best fit, here an ordered map of free
// spaces giving the same choice: the smallest space that fits, bins with equal space in creation
// order) and _pack_wrapped (trl/data_utils.py, v1.6.0 and 1.10.0.dev0 alike).
#include "core/frameworks/trl/TrlPacking.h"
#include "core/util/Error.h"

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>

namespace maskscope::trl {

namespace {

// One sequence (or fragment) to pack: its slice [begin, end) of a prepared row.
struct Piece {
  size_t row;
  int64_t begin, end;
  int64_t length() const { return end - begin; }
};

PreparedRow emptyLike(const std::vector<std::string>& columns) {
  PreparedRow r;
  for (const auto& c : columns) r.set(c, {});
  return r;
}

void appendPiece(PreparedRow& out, const std::vector<PreparedRow>& rows, const std::vector<std::string>& columns,
                 const Piece& p) {
  const PreparedRow& src = rows[p.row];
  for (size_t k = 0; k < columns.size(); ++k) {
    const auto& v = src.at(columns[k]);
    auto& dst = out.columns[k].values;
    dst.insert(dst.end(), v.begin() + p.begin, v.begin() + p.end);
  }
  if (!src.meta.empty()) out.meta.insert(out.meta.end(), src.meta.begin() + p.begin, src.meta.begin() + p.end);
  const long source = src.sourceRows.empty() ? -1 : src.sourceRows.front();
  const long line = src.sourceLines.empty() ? -1 : src.sourceLines.front();
  out.sourceRows.push_back(source);
  out.sourceLines.push_back(line);
}

std::vector<Piece> piecesFor(const std::vector<PreparedRow>& rows, const std::string& first, int64_t seqLength,
                             bool split) {
  std::vector<Piece> pieces;
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t n = int64_t(rows[r].at(first).size());
    if (n == 0) continue; // "Filter out empty sequences"
    if (!split) {
      pieces.push_back({r, 0, std::min(n, seqLength)}); // list_slice(0, seq_length)
      continue;
    }
    for (int64_t b = 0; b < n; b += seqLength) pieces.push_back({r, b, std::min(n, b + seqLength)});
  }
  return pieces;
}

std::vector<PreparedRow> packBfd(const std::vector<PreparedRow>& rows, const std::vector<std::string>& columns,
                                 int64_t seqLength, bool split) {
  const std::vector<Piece> pieces = piecesFor(rows, columns.front(), seqLength, split);
  // lengths.sort("descending", by=0): a stable sort, equal lengths keep their order.
  std::vector<size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pieces[a].length() > pieces[b].length(); });
  struct Bin {
    std::vector<size_t> ids;
    int64_t length = 0;
  };
  std::vector<Bin> bins;
  std::map<int64_t, std::deque<size_t>> spaceToBins; // free space -> bins with it (below seq_length)
  for (size_t idx : order) {
    const int64_t length = pieces[idx].length();
    auto fit = spaceToBins.lower_bound(length); // the smallest space that fits
    size_t bin;
    int64_t space;
    if (fit != spaceToBins.end()) {
      space = fit->first;
      bin = fit->second.front();
      fit->second.pop_front();
      if (fit->second.empty()) spaceToBins.erase(fit);
    } else {
      space = seqLength;
      bin = bins.size();
      bins.push_back({});
    }
    bins[bin].ids.push_back(idx);
    bins[bin].length += length;
    space -= length;
    if (space > 0) spaceToBins[space].push_back(bin);
  }
  std::vector<PreparedRow> out;
  for (const Bin& b : bins) {
    PreparedRow row = emptyLike(columns);
    std::vector<int64_t> seqLengths;
    for (size_t idx : b.ids) {
      appendPiece(row, rows, columns, pieces[idx]);
      seqLengths.push_back(pieces[idx].length());
    }
    row.set("seq_lengths", std::move(seqLengths));
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<PreparedRow> packWrapped(const std::vector<PreparedRow>& rows, const std::vector<std::string>& columns,
                                     int64_t seqLength) {
  std::vector<PreparedRow> out;
  PreparedRow current = emptyLike(columns);
  int64_t filled = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    const int64_t n = int64_t(rows[r].at(columns.front()).size());
    for (int64_t b = 0; b < n;) {
      const int64_t take = std::min(n - b, seqLength - filled);
      appendPiece(current, rows, columns, {r, b, b + take});
      b += take;
      filled += take;
      if (filled == seqLength) {
        out.push_back(std::move(current));
        current = emptyLike(columns);
        filled = 0;
      }
    }
  }
  if (filled > 0) out.push_back(std::move(current));
  return out;
}

} // namespace

std::vector<PreparedRow> packRows(const std::vector<PreparedRow>& rows, const std::vector<std::string>& columns,
                                  int64_t seqLength, const std::string& strategy) {
  // _check_if_columns_can_be_packed: every packed column has one value per token.
  for (const auto& r : rows)
    for (const auto& c : columns)
      if (r.at(c).size() != r.at(columns.front()).size())
        throw Error("packing: column \"" + c + "\" of dataset row " +
                    std::to_string(r.sourceRows.empty() ? -1 : r.sourceRows.front()) + " has " +
                    std::to_string(r.at(c).size()) + " values but \"" + columns.front() + "\" has " +
                    std::to_string(r.at(columns.front()).size()) +
                    " (All columns must have values of the same length.)");
  if (strategy == "wrapped") return packWrapped(rows, columns, seqLength);
  return packBfd(rows, columns, seqLength, strategy == "bfd_split");
}

} // namespace maskscope::trl
