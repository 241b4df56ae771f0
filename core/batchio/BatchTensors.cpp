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

void setAttentionMask4d(Batch& b, const std::vector<int64_t>& shape, const std::vector<int64_t>& values,
                        const std::string& file) {
  SourceLocation at{file, -1, -1, -1, "attention_mask"};
  const int64_t B = b.inputIds.rows, T = b.inputIds.cols;
  if (shape.size() != 4 || shape[0] != B || shape[1] != 1 || shape[2] != T || shape[3] != T)
    throw Error("a 4-D attention_mask must have shape [" + std::to_string(B) + ", 1, " + std::to_string(T) + ", " +
                    std::to_string(T) + "] (input_ids is [" + std::to_string(B) + ", " + std::to_string(T) +
                    "]), got " + shapeText(shape),
                at);
  if (int64_t(values.size()) != B * T * T)
    throw Error("shape " + shapeText(shape) + " holds " + std::to_string(B * T * T) + " values, the tensor has " +
                    std::to_string(values.size()),
                at);
  b.attentionMask4d.assign(size_t(B), std::vector<uint8_t>(size_t(T * T), 0));
  b.attentionMask = IntGrid(B, T, 0);
  for (int64_t r = 0; r < B; ++r)
    for (int64_t i = 0; i < T * T; ++i) {
      const int64_t v = values[size_t(r * T * T + i)];
      if (v != 0 && v != 1)
        throw Error("a 4-D attention_mask must hold 0/1 (1 = may attend); value " + std::to_string(v) + " at [" +
                        std::to_string(r) + ", 0, " + std::to_string(i / T) + ", " + std::to_string(i % T) + "]",
                    at);
      b.attentionMask4d[size_t(r)][size_t(i)] = uint8_t(v);
      if (i / T == i % T) b.attentionMask.at(r, i / T) = v;
    }
}

void setCuSeqLens(Batch& b, const std::vector<int64_t>& cu, const std::string& file, const std::string& key) {
  const int64_t T = b.inputIds.cols;
  if (b.inputIds.rows != 1)
    throw Error("describes one flattened row, but the batch has " + std::to_string(b.inputIds.rows) + " rows",
                {file, -1, -1, -1, key});
  if (cu.size() < 2 || cu.front() != 0 || cu.back() > T)
    throw Error("must run from 0 to at most the row length " + std::to_string(T), {file, -1, -1, -1, key});
  std::vector<Segment> segs;
  for (size_t i = 1; i < cu.size(); ++i) {
    if (cu[i] <= cu[i - 1])
      throw Error("offsets must increase (" + std::to_string(cu[i - 1]) + " then " + std::to_string(cu[i]) + ")",
                  {file, -1, -1, -1, key});
    segs.push_back({cu[i - 1], cu[i], -1});
  }
  b.segments.assign(1, segs.size() >= 2 ? segs : std::vector<Segment>{});
  b.cuSeqLensGiven = segs.size() >= 2;
}

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
  if (m.count("attention_mask") && m.at("attention_mask").shape.size() == 4) {
    const TensorGrid& t = m.at("attention_mask");
    if (!integerDtype(t.dtype))
      throw Error("dtype " + t.dtype + " is not bool or integer (a 4-D mask must be 0/1, 1 = may attend)",
                  {file, -1, -1, -1, "attention_mask"});
    setAttentionMask4d(b, t.shape, t.values, file);
  } else if (m.count("attention_mask")) {
    b.attentionMask = gridOf(m.at("attention_mask"), file, "attention_mask");
    for (int64_t v : b.attentionMask.values)
      if (v < 0)
        throw Error("attention_mask holds a negative value (" + std::to_string(v) + "); expected 0/1 or segment ids",
                    {file, -1, -1, -1, "attention_mask"});
  } else {
    b.attentionMask = IntGrid(b.inputIds.rows, b.inputIds.cols, 1);
    b.attentionMaskGiven = false;
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
  // cu_seq_lens as TRL padding_free and DataCollatorWithFlattening pass them to FlashAttention varlen.
  const char* from = nullptr;
  for (const char* key : {"cu_seq_lens_q", "cu_seq_lens_k", "cu_seq_lens", "cu_seqlens"}) {
    auto it = m.find(key);
    if (it == m.end()) continue;
    if (!integerDtype(it->second.dtype) || it->second.shape.size() > 2)
      throw Error("expected a 1-D integer tensor of offsets", {file, -1, -1, -1, key});
    if (from && m.at(from).values != it->second.values)
      throw Error(std::string("differs from ") + from, {file, -1, -1, -1, key});
    if (!from) setCuSeqLens(b, it->second.values, file, key);
    from = from ? from : key;
  }
  return b;
}

} // namespace maskscope
