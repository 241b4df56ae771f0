// A framework's returned batch as a value: its keys in order, each a tensor (dtype and shape as the
// framework returns it: [B, T] ids, 1-D cu_seq_lens, [B, T, T] masks), a plain Python int, a Python
// list, or None. toJson() writes exactly that dict: nested lists following the shape, plain ints,
// true/false for bool tensors; `collate --stage batch` prints it and nothing else.
#pragma once
#include "core/frameworks/FrameworkInfo.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

enum class TensorDType { Int64, Int32, Bool, Float32 };
const char* tensorDTypeName(TensorDType d); // "torch.int64", ...

struct FrameworkTensor {
  TensorDType dtype = TensorDType::Int64;
  std::vector<int64_t> shape;  // row-major
  std::vector<int64_t> values; // integer and bool tensors (bool: 0/1)
  std::vector<double> floats;  // Float32 tensors
  int64_t numel() const;
  // [rows, cols] view of a 2-D integer tensor
  int64_t at(int64_t r, int64_t c) const { return values[size_t(r * shape[1] + c)]; }
};

struct FrameworkEntry {
  enum class Kind { Tensor, Int, IntList, Lists, None };
  std::string key;
  Kind kind = Kind::Tensor;
  FrameworkTensor tensor;                  // Kind::Tensor
  int64_t scalar = 0;                      // Kind::Int
  std::vector<int64_t> list;               // Kind::IntList
  std::vector<std::vector<int64_t>> lists; // Kind::Lists: Python lists of lists (ragged allowed)
};

class FrameworkBatch {
public:
  void addTensor(const std::string& key, FrameworkTensor tensor);
  // A [rows.size(), width] integer tensor from rows already padded to width (Error when one is not).
  void addGrid(const std::string& key, const std::vector<std::vector<int64_t>>& rows, TensorDType dtype);
  void add1D(const std::string& key, std::vector<int64_t> values, TensorDType dtype);
  void addInt(const std::string& key, int64_t value);
  void addList(const std::string& key, std::vector<int64_t> values);
  void addLists(const std::string& key, std::vector<std::vector<int64_t>> values);
  void addNone(const std::string& key);

  const FrameworkEntry* find(const std::string& key) const;
  const std::vector<FrameworkEntry>& entries() const { return entries_; }
  OrderedJson toJson() const;

private:
  FrameworkEntry& slot(const std::string& key); // replaces an existing key in place, as dict assignment
  std::vector<FrameworkEntry> entries_;
};

// Truncation as TRL's truncate_dataset / the collators' slicing write it: keep the first maxLength
// values (keep_start: `seq[:max_length]`) or the last (keep_end: `seq[-max_length:]`). No limit, or
// a row already short enough: unchanged. The one truncation of core/frameworks: every column of a
// row (ids, labels, masks, position metadata) goes through it with the same arguments.
template <class V> void truncateSequence(V& v, std::optional<int64_t> maxLength, bool keepEnd) {
  if (!maxLength || int64_t(v.size()) <= *maxLength) return;
  if (keepEnd)
    v.erase(v.begin(), v.end() - *maxLength);
  else
    v.resize(size_t(*maxLength));
}

// Pads each row to a common width, as the frameworks' pad() helpers do: to the longest row, rounded
// up to a multiple of padToMultipleOf when given, or to fixedLength when given (rows longer than it
// are an Error: the caller truncates first). left: padding before the values. Error when the batch
// would exceed kMaxFrameworkBatchCells (nothing of that size is allocated).
std::vector<std::vector<int64_t>> padRows(const std::vector<std::vector<int64_t>>& rows, int64_t padValue,
                                          bool left = false, std::optional<int64_t> padToMultipleOf = std::nullopt,
                                          std::optional<int64_t> fixedLength = std::nullopt);
// The width padRows would give (for checks before building other tensors of the same width).
int64_t paddedWidth(const std::vector<std::vector<int64_t>>& rows, std::optional<int64_t> padToMultipleOf,
                    std::optional<int64_t> fixedLength = std::nullopt);

} // namespace maskscope
