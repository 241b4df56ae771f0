// Shape and dtype checks shared by the tensor dump formats.
#include "core/batchio/BatchTensors.h"
#include "core/util/Error.h"

namespace maskscope {

namespace {

std::string shapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

bool integerDtype(const std::string& d) {
  // safetensors names (I64, U8, BOOL, ...), c10::toString(ScalarType) names (Long, Int, Byte,
  // Bool, ...) as the LibTorch module reports them, "int" for Python int scalars, and numpy-style
  // names (int64, uint8, bool, ...).
  static const char* ok[] = {"I64",   "I32",  "I16",   "I8",   "U8",     "U16",    "U32",   "U64",   "BOOL",
                             "Long",  "Int",  "Short", "Char", "Byte",   "Bool",   "int",   "int64", "int32",
                             "int16", "int8", "uint8", "bool", "UInt16", "UInt32", "UInt64"};
  for (const char* o : ok)
    if (d == o) return true;
  return d.empty(); // a reader that does not say has already widened integers
}

IntGrid gridOf(const TensorGrid& t, const std::string& file, const std::string& name) {
  SourceLocation at{file, -1, -1, -1, name};
  if (!integerDtype(t.dtype))
    throw Error("dtype " + t.dtype + " is not an integer type (ids, masks and labels must be integers)", at);
  if (t.shape.size() != 1 && t.shape.size() != 2)
    throw Error("expected a [batch, length] or [length] tensor, got shape " + shapeText(t.shape), at);
  int64_t count = 1;
  for (int64_t d : t.shape) {
    if (d < 0) throw Error("negative dimension in shape " + shapeText(t.shape), at);
    count *= d;
  }
  if (count != int64_t(t.values.size()))
    throw Error("shape " + shapeText(t.shape) + " holds " + std::to_string(count) + " values, the tensor has " +
                    std::to_string(t.values.size()),
                at);
  IntGrid g;
  g.rows = t.shape.size() == 1 ? 1 : t.shape[0];
  g.cols = t.shape.back();
  g.values = t.values;
  return g;
}

std::optional<int64_t> scalarOf(const std::map<std::string, TensorGrid>& m, const char* name, const std::string& file) {
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  if (it->second.values.size() != 1 || !integerDtype(it->second.dtype))
    throw Error("expected one integer", {file, -1, -1, -1, name});
  return it->second.values[0];
}

} // namespace

void checkBatchShapes(const Batch& b, const std::string& file) {
  auto check = [&](const IntGrid& g, const char* name) {
    if (!g.sameShape(b.inputIds))
      throw Error(std::string(name) + " has shape [" + std::to_string(g.rows) + ", " + std::to_string(g.cols) +
                      "], input_ids has [" + std::to_string(b.inputIds.rows) + ", " + std::to_string(b.inputIds.cols) +
                      "]",
                  {file, -1, -1, -1, name});
  };
  check(b.attentionMask, "attention_mask");
  check(b.labels, "labels");
  if (!b.positionIds.empty() || b.positionIds.rows != 0) check(b.positionIds, "position_ids");
}

Batch batchFromTensors(const std::map<std::string, TensorGrid>& m, const std::string& file, bool strictShapes) {
  for (const char* key : {"input_ids", "labels"})
    if (!m.count(key)) throw Error(std::string("missing tensor \"") + key + "\"", {file, -1, -1, -1, key});
  Batch b;
  b.inputIds = gridOf(m.at("input_ids"), file, "input_ids");
  b.labels = gridOf(m.at("labels"), file, "labels");
  if (m.count("attention_mask")) {
    b.attentionMask = gridOf(m.at("attention_mask"), file, "attention_mask");
    for (int64_t v : b.attentionMask.values)
      if (v < 0)
        throw Error("attention_mask holds a negative value (" + std::to_string(v) + "); expected 0/1 or segment ids",
                    {file, -1, -1, -1, "attention_mask"});
  } else {
    b.attentionMask = IntGrid(b.inputIds.rows, b.inputIds.cols, 1);
  }
  if (m.count("position_ids")) {
    b.positionIds = gridOf(m.at("position_ids"), file, "position_ids");
  }
  if (strictShapes) checkBatchShapes(b, file);
  b.padTokenId = scalarOf(m, "pad_token_id", file);
  b.eosTokenId = scalarOf(m, "eos_token_id", file);
  b.bosTokenId = scalarOf(m, "bos_token_id", file);
  b.origin = file;
  b.sourceRows.assign(size_t(b.inputIds.rows), -1);
  return b;
}

} // namespace maskscope
