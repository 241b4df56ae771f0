// collate --mlm: BERT's masking of each collated row, in text or JSON.
#include "core/commands/MaskedLmCollate.h"
#include "core/commands/LossLessons.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/JsonString.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

namespace maskscope {

MaskedLmOptions maskedLmOptionsFor(const Batch& b, const Tokenizer* tokenizer, uint64_t seed) {
  MaskedLmOptions o;
  o.seed = seed;
  if (!tokenizer) return o;
  o.vocabSize = tokenizer->vocabSize();
  for (const char* name : {"[MASK]", "<mask>", "<MASK>"})
    if (auto id = tokenizer->tokenToId(name); id && tokenizer->isSpecial(*id)) {
      o.maskTokenId = *id;
      break;
    }
  std::set<int64_t> seen(b.inputIds.values.begin(), b.inputIds.values.end());
  for (int64_t id : seen)
    if (id >= 0 && id < o.vocabSize && tokenizer->isSpecial(int32_t(id))) o.specialIds.push_back(id);
  return o;
}

namespace {

nlohmann::ordered_json rowJson(int64_t r, const MaskedLmRow& m, const MaskedLmOptions& o, const Tokenizer* tok) {
  nlohmann::ordered_json j;
  j["row"] = r;
  j["positions"] = m.positions;
  j["real"] = m.real;
  j["special"] = m.special;
  j["candidates"] = m.candidates;
  j["masked"] = m.masked;
  j["replaced"] = {{"mask", m.byMask}, {"random", m.byRandom}, {"kept", m.kept}};
  j["masked_positions"] = m.maskedAt;
  nlohmann::ordered_json tokens = nlohmann::ordered_json::array(), how = nlohmann::ordered_json::array();
  for (int64_t t : m.maskedAt) {
    tokens.push_back(lessonTokenText(m.labels[size_t(t)], tok));
    how.push_back(mlmChoiceName(m.choice[size_t(t)]));
  }
  j["masked_tokens"] = std::move(tokens);
  j["replaced_by"] = std::move(how);
  j["labels"] = m.labels;
  j["input_ids"] = o.maskTokenId ? nlohmann::ordered_json(m.inputIds) : nlohmann::ordered_json(nullptr);
  j["attended_pairs"] = {{"causal", m.causalPairs}, {"bidirectional", m.bidirectionalPairs}};
  return j;
}

} // namespace

int printMaskedLm(const Batch& b, const Tokenizer* tokenizer, uint64_t seed, CommandIO& io) {
  const MaskedLmOptions o = maskedLmOptionsFor(b, tokenizer, seed);
  if (io.json) {
    nlohmann::ordered_json j;
    j["mlm_probability"] = o.probability;
    j["seed"] = seed;
    j["mask_token_id"] = o.maskTokenId ? nlohmann::ordered_json(*o.maskTokenId) : nlohmann::ordered_json(nullptr);
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (int64_t r = 0; r < b.batchSize(); ++r) rows.push_back(rowJson(r, maskedLmRow(b, r, o), o, tokenizer));
    j["rows"] = std::move(rows);
    io.out << escapeLineSeparators(j.dump()) << "\n";
    return 0;
  }
  io.out << "BERT's masking (transformers DataCollatorForLanguageModeling, mlm=True) of " << b.batchSize()
         << " rows, seed " << seed << ": "
         << (o.maskTokenId ? ""
                           : "this tokenizer has no mask token (transformers "
                             "refuses mlm=True); ")
         << "15 % of each row's real tokens, special tokens never\n";
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    const MaskedLmRow m = maskedLmRow(b, r, o);
    io.out << "  row " << r << ": " << m.real << " real of " << m.positions << " positions (" << m.special
           << " special, never chosen): " << m.masked << " masked of " << m.candidates << " (" << m.byMask
           << " [MASK], " << m.byRandom << " random, " << m.kept << " kept); labels -100 at the other "
           << m.positions - m.masked << "; attended pairs: causal " << m.causalPairs << ", bidirectional "
           << m.bidirectionalPairs << "\n";
  }
  return 0;
}

} // namespace maskscope
