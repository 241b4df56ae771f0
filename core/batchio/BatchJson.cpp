// JSON batch reading and writing with shape checks (rows must be rectangular and agree).
#include "core/batchio/BatchJson.h"
#include "core/batchio/BatchTensors.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"

#include <cmath>
#include <sstream>

namespace maskscope {

namespace {

nlohmann::ordered_json gridToJson(const IntGrid& g) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (int64_t r = 0; r < g.rows; ++r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (int64_t c = 0; c < g.cols; ++c) row.push_back(g.at(r, c));
    rows.push_back(std::move(row));
  }
  return rows;
}

IntGrid gridFromJson(const nlohmann::json& v, const std::string& file, const std::string& field) {
  SourceLocation where{file, -1, -1, -1, field};
  if (!v.is_array()) throw Error("expected a list of lists of integers", where);
  if (!v.empty() && !v[0].is_array()) {
    // A 1-D list: one row.
    nlohmann::json wrapped = nlohmann::json::array();
    wrapped.push_back(v);
    return gridFromJson(wrapped, file, field);
  }
  IntGrid g;
  g.rows = int64_t(v.size());
  for (size_t r = 0; r < v.size(); ++r) {
    const auto& row = v[r];
    if (!row.is_array()) throw Error("row " + std::to_string(r) + " is not a list", where);
    if (r == 0)
      g.cols = int64_t(row.size());
    else if (int64_t(row.size()) != g.cols)
      throw Error("row " + std::to_string(r) + " has " + std::to_string(row.size()) + " values, row 0 has " +
                      std::to_string(g.cols) + " (ragged batch)",
                  where);
    for (size_t c = 0; c < row.size(); ++c) {
      const auto& x = row[c];
      if (x.is_boolean())
        g.values.push_back(x.get<bool>() ? 1 : 0);
      else if (x.is_number_integer())
        g.values.push_back(x.get<int64_t>());
      else if (x.is_number_unsigned() && x.get<uint64_t>() <= uint64_t(INT64_MAX))
        g.values.push_back(int64_t(x.get<uint64_t>()));
      else if (x.is_number_float() && std::abs(x.get<double>()) < 9.0e15 &&
               x.get<double>() == double(int64_t(x.get<double>())))
        g.values.push_back(int64_t(x.get<double>()));
      else
        throw Error("value at [" + std::to_string(r) + "][" + std::to_string(c) + "] is not an integer", where);
    }
  }
  return g;
}

// A nested list [B][1][T][T] of 0/1 (or booleans): its shape (from the first element at each depth,
// every list checked against it) and its values in row-major order.
void flattenNested(const nlohmann::json& v, size_t depth, std::vector<int64_t>& shape, std::vector<int64_t>& out,
                   const std::string& file) {
  SourceLocation where{file, -1, -1, -1, "attention_mask"};
  if (depth == 4) {
    if (v.is_boolean())
      out.push_back(v.get<bool>() ? 1 : 0);
    else if (v.is_number_integer())
      out.push_back(v.get<int64_t>());
    else
      throw Error("a 4-D attention_mask must hold 0/1 or booleans", where);
    return;
  }
  if (!v.is_array()) throw Error("a 4-D attention_mask must be nested lists [B][1][T][T]", where);
  if (shape.size() == depth) shape.push_back(int64_t(v.size()));
  if (int64_t(v.size()) != shape[depth])
    throw Error("a 4-D attention_mask is ragged at depth " + std::to_string(depth) + " (" + std::to_string(v.size()) +
                    " values, the first list has " + std::to_string(shape[depth]) + ")",
                where);
  for (const auto& x : v) flattenNested(x, depth + 1, shape, out, file);
}

bool isFourD(const nlohmann::json& v) {
  return v.is_array() && !v.empty() && v[0].is_array() && !v[0].empty() && v[0][0].is_array();
}

std::optional<int64_t> optionalScalar(const nlohmann::json& o, const char* key, const std::string& file) {
  if (!o.contains(key) || o[key].is_null()) return std::nullopt;
  if (!o[key].is_number_integer()) throw Error("expected an integer", {file, -1, -1, -1, key});
  return o[key].get<int64_t>();
}

} // namespace

nlohmann::ordered_json batchToJson(const Batch& b) {
  nlohmann::ordered_json j;
  j["input_ids"] = gridToJson(b.inputIds);
  // A padding-free collator returns no attention_mask (DataCollatorWithFlattening, TRL padding_free): null,
  // so the dump reads back as transformers would get it (core/mask/EffectiveAttention.h).
  j["attention_mask"] = b.attentionMaskGiven ? gridToJson(b.attentionMask) : nlohmann::ordered_json(nullptr);
  j["labels"] = gridToJson(b.labels);
  j["position_ids"] =
      b.positionIds.empty() && b.inputIds.rows > 0 ? nlohmann::ordered_json(nullptr) : gridToJson(b.positionIds);
  return j;
}

namespace {

// cu_seq_lens (cu_seq_lens_q/k as TRL padding_free and DataCollatorWithFlattening pass them to
// FlashAttention varlen): [0, end1, end2, ..., T] of the one flattened row. Read into
// Batch::segments, checked: one row, starts at 0, strictly increasing, ends within the row.
std::vector<int64_t> cuSeqLensOf(const nlohmann::json& v, const std::string& file, const char* key) {
  const nlohmann::json& flat = v.is_array() && v.size() == 1 && v[0].is_array() ? v[0] : v;
  if (!flat.is_array() || flat.size() > (size_t(1) << 24))
    throw Error("expected a list of offsets", {file, -1, -1, -1, key});
  std::vector<int64_t> out;
  for (const auto& x : flat) {
    if (!x.is_number_integer()) throw Error("expected integer offsets", {file, -1, -1, -1, key});
    out.push_back(x.get<int64_t>());
  }
  return out;
}

void readCuSeqLens(const nlohmann::json& o, const std::string& file, Batch& b) {
  std::optional<std::vector<int64_t>> cu;
  const char* from = nullptr;
  for (const char* key : {"cu_seq_lens_q", "cu_seq_lens_k", "cu_seq_lens", "cu_seqlens"}) {
    if (!o.contains(key) || o[key].is_null()) continue;
    std::vector<int64_t> v = cuSeqLensOf(o[key], file, key);
    if (cu && v != *cu) throw Error(std::string("differs from ") + from, {file, -1, -1, -1, key});
    if (!cu) from = key;
    cu = std::move(v);
  }
  if (cu) setCuSeqLens(b, *cu, file, from);
}

} // namespace

Batch batchFromJson(const nlohmann::json& o, const std::string& file, bool strictShapes) {
  if (!o.is_object()) throw Error("a batch dump must be a JSON object", {file});
  for (const char* key : {"input_ids", "labels"})
    if (!o.contains(key)) throw Error(std::string("missing \"") + key + "\"", {file, -1, -1, -1, key});
  Batch b;
  b.inputIds = gridFromJson(o["input_ids"], file, "input_ids");
  b.labels = gridFromJson(o["labels"], file, "labels");
  if (o.contains("attention_mask") && isFourD(o["attention_mask"])) {
    std::vector<int64_t> shape, values;
    flattenNested(o["attention_mask"], 0, shape, values, file);
    setAttentionMask4d(b, shape, values, file);
  } else if (o.contains("attention_mask") && !o["attention_mask"].is_null()) {
    b.attentionMask = gridFromJson(o["attention_mask"], file, "attention_mask");
    for (int64_t v : b.attentionMask.values)
      if (v < 0)
        throw Error("attention_mask holds a negative value (" + std::to_string(v) + "); expected 0/1 or segment ids",
                    {file, -1, -1, -1, "attention_mask"});
  } else {
    b.attentionMask = IntGrid(b.inputIds.rows, b.inputIds.cols, 1);
    b.attentionMaskGiven = false;
  }
  if (o.contains("position_ids") && !o["position_ids"].is_null())
    b.positionIds = gridFromJson(o["position_ids"], file, "position_ids");
  if (strictShapes) checkBatchShapes(b, file);
  b.padTokenId = optionalScalar(o, "pad_token_id", file);
  b.eosTokenId = optionalScalar(o, "eos_token_id", file);
  b.bosTokenId = optionalScalar(o, "bos_token_id", file);
  b.origin = file;
  for (int64_t r = 0; r < b.inputIds.rows; ++r) b.sourceRows.push_back(-1);
  readCuSeqLens(o, file, b);
  return b;
}

Batch readJsonBatch(const std::string& path, bool strictShapes) {
  std::string text = readFileCapped(path, int64_t(1) << 30);
  // A JSON dump is parsed whole (16+ bytes a value): refuse one too large before parsing it, so a
  // 100 MB line of ids fails in a fraction of a second instead of exhausting memory.
  if (const size_t values = countJsonValues(text); values > kMaxJsonDumpValues)
    throw Error("the JSON dump holds about " + std::to_string(values) + " values, over the limit of " +
                    std::to_string(kMaxJsonDumpValues) + " for JSON dumps; save large batches with safetensors",
                {path});
  if (path.ends_with(".jsonl")) {
    // One JSON object per line, each holding 1-D lists: stack them into rows.
    nlohmann::json stacked = nlohmann::json::object();
    std::istringstream in(text);
    std::string line;
    long lineNo = 0;
    nlohmann::json scalars = nlohmann::json::object();
    while (std::getline(in, line)) {
      ++lineNo;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto row = parseJsonOrThrow(line, {path, lineNo});
      if (!row.is_object()) throw Error("not a JSON object", {path, lineNo});
      for (auto it = row.begin(); it != row.end(); ++it) {
        if (it.value().is_array())
          stacked[it.key()].push_back(it.value());
        else
          scalars[it.key()] = it.value();
      }
    }
    for (auto it = scalars.begin(); it != scalars.end(); ++it) stacked[it.key()] = it.value();
    return batchFromJson(stacked, path, strictShapes);
  }
  return batchFromJson(parseJsonOrThrow(text, {path}), path, strictShapes);
}

} // namespace maskscope
