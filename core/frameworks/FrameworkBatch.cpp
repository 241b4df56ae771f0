// The framework batch value: building its tensors (with the frameworks' padding rules and the
// size caps) and writing exactly the dict the framework returns.
#include "core/frameworks/FrameworkBatch.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

const char* tensorDTypeName(TensorDType d) {
  switch (d) {
  case TensorDType::Int64:
    return "torch.int64";
  case TensorDType::Int32:
    return "torch.int32";
  case TensorDType::Bool:
    return "torch.bool";
  case TensorDType::Float32:
    return "torch.float32";
  }
  return "?";
}

int64_t FrameworkTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

FrameworkEntry& FrameworkBatch::slot(const std::string& key) {
  for (auto& e : entries_)
    if (e.key == key) {
      e = FrameworkEntry{};
      e.key = key;
      return e;
    }
  entries_.push_back({});
  entries_.back().key = key;
  return entries_.back();
}

void FrameworkBatch::addTensor(const std::string& key, FrameworkTensor tensor) {
  const size_t stored = tensor.dtype == TensorDType::Float32 ? tensor.floats.size() : tensor.values.size();
  if (int64_t(stored) != tensor.numel()) throw Error("internal: tensor \"" + key + "\" has the wrong number of values");
  FrameworkEntry& e = slot(key);
  e.kind = FrameworkEntry::Kind::Tensor;
  e.tensor = std::move(tensor);
}

void FrameworkBatch::addGrid(const std::string& key, const std::vector<std::vector<int64_t>>& rows, TensorDType dtype) {
  FrameworkTensor t;
  t.dtype = dtype;
  const int64_t width = rows.empty() ? 0 : int64_t(rows.front().size());
  t.shape = {int64_t(rows.size()), width};
  t.values.reserve(size_t(int64_t(rows.size()) * width));
  for (const auto& r : rows) {
    if (int64_t(r.size()) != width) throw Error("internal: rows of \"" + key + "\" differ in length");
    t.values.insert(t.values.end(), r.begin(), r.end());
  }
  addTensor(key, std::move(t));
}

void FrameworkBatch::add1D(const std::string& key, std::vector<int64_t> values, TensorDType dtype) {
  FrameworkTensor t;
  t.dtype = dtype;
  t.shape = {int64_t(values.size())};
  t.values = std::move(values);
  addTensor(key, std::move(t));
}

void FrameworkBatch::addInt(const std::string& key, int64_t value) {
  FrameworkEntry& e = slot(key);
  e.kind = FrameworkEntry::Kind::Int;
  e.scalar = value;
}

void FrameworkBatch::addList(const std::string& key, std::vector<int64_t> values) {
  FrameworkEntry& e = slot(key);
  e.kind = FrameworkEntry::Kind::IntList;
  e.list = std::move(values);
}

void FrameworkBatch::addLists(const std::string& key, std::vector<std::vector<int64_t>> values) {
  FrameworkEntry& e = slot(key);
  e.kind = FrameworkEntry::Kind::Lists;
  e.lists = std::move(values);
}

void FrameworkBatch::addNone(const std::string& key) { slot(key).kind = FrameworkEntry::Kind::None; }

const FrameworkEntry* FrameworkBatch::find(const std::string& key) const {
  for (const auto& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

namespace {

// Nested lists following the shape, from flat index `offset` at dimension `dim`.
OrderedJson nested(const FrameworkTensor& t, size_t dim, int64_t& offset) {
  OrderedJson list = OrderedJson::array();
  if (dim == t.shape.size()) {
    const size_t i = size_t(offset++);
    if (t.dtype == TensorDType::Float32) return OrderedJson(t.floats[i]);
    if (t.dtype == TensorDType::Bool) return OrderedJson(t.values[i] != 0);
    return OrderedJson(t.values[i]);
  }
  for (int64_t k = 0; k < t.shape[dim]; ++k) list.push_back(nested(t, dim + 1, offset));
  return list;
}

} // namespace

OrderedJson FrameworkBatch::toJson() const {
  OrderedJson j = OrderedJson::object();
  for (const auto& e : entries_) {
    switch (e.kind) {
    case FrameworkEntry::Kind::Tensor: {
      int64_t offset = 0;
      j[e.key] = nested(e.tensor, 0, offset);
      break;
    }
    case FrameworkEntry::Kind::Int:
      j[e.key] = e.scalar;
      break;
    case FrameworkEntry::Kind::IntList:
      j[e.key] = e.list;
      break;
    case FrameworkEntry::Kind::Lists:
      j[e.key] = e.lists;
      break;
    case FrameworkEntry::Kind::None:
      j[e.key] = nullptr;
      break;
    }
  }
  return j;
}

int64_t paddedWidth(const std::vector<std::vector<int64_t>>& rows, std::optional<int64_t> padToMultipleOf,
                    std::optional<int64_t> fixedLength) {
  int64_t width = 0;
  for (const auto& r : rows) width = std::max(width, int64_t(r.size()));
  if (fixedLength) {
    if (width > *fixedLength)
      throw Error("internal: a row of " + std::to_string(width) + " is longer than the padding length " +
                  std::to_string(*fixedLength));
    width = *fixedLength;
  }
  if (padToMultipleOf && *padToMultipleOf > 0)
    width = (width + *padToMultipleOf - 1) / *padToMultipleOf * *padToMultipleOf;
  if (int64_t(rows.size()) * width > kMaxFrameworkBatchCells)
    throw Error("the batch would hold " + std::to_string(rows.size()) + " x " + std::to_string(width) +
                " values, over the limit of " + std::to_string(kMaxFrameworkBatchCells) + " (2^24)");
  return width;
}

std::vector<std::vector<int64_t>> padRows(const std::vector<std::vector<int64_t>>& rows, int64_t padValue, bool left,
                                          std::optional<int64_t> padToMultipleOf, std::optional<int64_t> fixedLength) {
  const int64_t width = paddedWidth(rows, padToMultipleOf, fixedLength);
  std::vector<std::vector<int64_t>> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    std::vector<int64_t> p(size_t(width), padValue);
    std::copy(r.begin(), r.end(), left ? p.end() - std::ptrdiff_t(r.size()) : p.begin());
    out.push_back(std::move(p));
  }
  return out;
}

} // namespace maskscope
