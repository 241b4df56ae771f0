// Reading a framework's dataset rows and their integer columns, treating every row as untrusted:
// types, ranges, lengths and seq_lengths are checked, and errors name the file, line, row and key.
#include "core/frameworks/FrameworkRows.h"
#include "core/util/Error.h"

#include <algorithm>
#include <numeric>

namespace maskscope {

std::vector<InputRow> readFrameworkRows(const std::string& dataSpec, long begin, long end,
                                        std::vector<RowError>* errors) {
  DatasetReader reader(dataSpec);
  std::vector<InputRow> rows;
  OrderedJson value;
  long line = -1, index = 0;
  while (reader.nextJson(value, line)) {
    if (!value.is_object()) {
      reader.skip(line, "the row is not a JSON object");
      continue;
    }
    const long i = index++;
    if (i < begin) continue;
    if (end >= 0 && i >= end) break;
    rows.push_back({std::move(value), dataSpec, line, i});
  }
  if (errors) *errors = reader.errors();
  if (rows.empty()) {
    const std::string why = reader.errors().empty() ? "" : "; " + reader.errors().front().toString();
    throw Error("no rows selected (the dataset has " + std::to_string(index) + " readable rows" + why + ")",
                {dataSpec});
  }
  return rows;
}

bool isPreTokenizedRow(const OrderedJson& row) {
  for (const char* key : {"input_ids", "prompt_ids", "chosen_ids", "prompt_input_ids", "chosen_input_ids", "tokens"})
    if (row.contains(key) && row[key].is_array()) return true;
  return false;
}

void throwRowError(const InputRow& row, const std::string& key, const std::string& message) {
  throw Error("row " + std::to_string(row.index) + ", \"" + key + "\": " + message, {row.file, row.line, -1, -1, key});
}

std::optional<std::vector<int64_t>> readIdColumn(const InputRow& row, const std::string& key, const IdRange& range) {
  auto it = row.value.find(key);
  if (it == row.value.end() || it->is_null()) return std::nullopt;
  if (!it->is_array()) throwRowError(row, key, "expected a list of integers");
  if (it->size() > size_t(kMaxFrameworkLength))
    throwRowError(row, key,
                  std::to_string(it->size()) + " values, over the limit of " + std::to_string(kMaxFrameworkLength));
  const int64_t hi = range.vocabSize.value_or(int64_t(1) << 31);
  std::vector<int64_t> out;
  out.reserve(it->size());
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& e = (*it)[i];
    if (!e.is_number_integer())
      throwRowError(row, key, "value " + std::to_string(i) + " is " + std::string(e.type_name()) + ", not an integer");
    const int64_t v = e.get<int64_t>();
    const bool ignore = range.allowIgnoreIndex && v == -100;
    if (!ignore && (v < range.min || v >= hi))
      throwRowError(row, key,
                    "value " + std::to_string(i) + " is " + std::to_string(v) + ", outside " +
                        std::to_string(range.min) + " .. " + std::to_string(hi - 1) +
                        (range.vocabSize ? " (the tokenizer's vocabulary)" : "") +
                        (range.allowIgnoreIndex ? " and not -100" : ""));
    out.push_back(v);
  }
  return out;
}

std::vector<int64_t> requireIdColumn(const InputRow& row, const std::string& key, const IdRange& range) {
  auto v = readIdColumn(row, key, range);
  if (!v) throwRowError(row, key, "missing");
  return std::move(*v);
}

std::optional<std::vector<int64_t>> readMaskColumn(const InputRow& row, const std::string& key) {
  auto it = row.value.find(key);
  if (it == row.value.end() || it->is_null()) return std::nullopt;
  if (!it->is_array()) throwRowError(row, key, "expected a list of 0/1 values");
  if (it->size() > size_t(kMaxFrameworkLength)) throwRowError(row, key, "over the length limit");
  std::vector<int64_t> out;
  out.reserve(it->size());
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& e = (*it)[i];
    if (e.is_boolean())
      out.push_back(e.get<bool>() ? 1 : 0);
    else if (e.is_number_integer() && (e.get<int64_t>() == 0 || e.get<int64_t>() == 1))
      out.push_back(e.get<int64_t>());
    else
      throwRowError(row, key, "value " + std::to_string(i) + " is " + e.dump() + ", not 0/1");
  }
  return out;
}

void requireSameLength(const InputRow& row, const std::string& key, size_t got, const std::string& of,
                       size_t expected) {
  if (got != expected)
    throwRowError(row, key,
                  "has " + std::to_string(got) + " values but \"" + of + "\" has " + std::to_string(expected));
}

void checkSeqLengths(const InputRow& row, const std::vector<int64_t>& seqLengths, size_t rowLength) {
  int64_t sum = 0;
  for (size_t i = 0; i < seqLengths.size(); ++i) {
    if (seqLengths[i] <= 0) throwRowError(row, "seq_lengths", "value " + std::to_string(i) + " is not positive");
    sum += seqLengths[i];
  }
  if (sum != int64_t(rowLength))
    throwRowError(row, "seq_lengths",
                  "sums to " + std::to_string(sum) + " but the row has " + std::to_string(rowLength) + " tokens");
}

PreparedRow readPreTokenizedRow(const InputRow& row, std::optional<int64_t> vocabSize,
                                const PreTokenizedColumns& columns) {
  IdRange ids;
  ids.vocabSize = vocabSize;
  IdRange labels = ids;
  labels.allowIgnoreIndex = true;
  PreparedRow out;
  const std::vector<int64_t> input = requireIdColumn(row, "input_ids", ids);
  for (auto it = row.value.begin(); it != row.value.end(); ++it) {
    const std::string& key = it.key();
    std::optional<std::vector<int64_t>> v;
    bool sameLength = true;
    if (key == "input_ids") {
      v = input;
    } else if (key == "labels") {
      v = readIdColumn(row, key, labels);
      sameLength = columns.labelsAsLong;
    } else if (std::find(columns.masks.begin(), columns.masks.end(), key) != columns.masks.end()) {
      v = readMaskColumn(row, key);
    } else if (key == "seq_lengths" && columns.seqLengths) {
      v = readIdColumn(row, key, IdRange{1});
      if (v) checkSeqLengths(row, *v, input.size());
      sameLength = false;
    }
    if (!v) continue;
    if (sameLength) requireSameLength(row, key, v->size(), "input_ids", input.size());
    out.set(key, std::move(*v));
  }
  return out;
}

} // namespace maskscope
