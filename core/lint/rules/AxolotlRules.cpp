// Axolotl rules: failure modes of Axolotl's chat_template strategy that the framework run records
// (Batch::framework, FrameworkFacts). Today one: its legacy path, which trains only the last turn
// and says nothing about it.
#include "core/lint/LintRegistry.h"
#include "core/mask/RowFacts.h"

#include <map>

namespace maskscope {

namespace {

// One conversation of a batch row (a packed row holds several): its assistant replies, by message
// index, and how many of each reply's positions are graded.
using Replies = std::map<int32_t, int64_t>;

std::vector<Replies> conversationsOfRow(const Batch& b, int64_t r) {
  const auto& meta = b.meta[size_t(r)];
  std::vector<Segment> parts;
  if (size_t(r) < b.segments.size() && !b.segments[size_t(r)].empty())
    parts = b.segments[size_t(r)];
  else
    parts = {Segment{0, b.length(), -1}};
  std::vector<Replies> out;
  for (const Segment& s : parts) {
    Replies replies;
    for (int64_t t = s.begin; t < s.end && t < int64_t(meta.size()); ++t) {
      const PositionMeta& m = meta[size_t(t)];
      if (!m.reply || m.kind != PositionKind::Assistant || m.messageIndex < 0) continue;
      replies[m.messageIndex] += gradedAt(b, r, t) ? 1 : 0;
    }
    out.push_back(std::move(replies));
  }
  return out;
}

bool legacyLastTurn(const BatchInput& in) {
  const FrameworkFacts* f = in.batch.framework.get();
  if (!f || !f->legacyLastTurnOnly) return true;
  const Batch& b = in.batch;
  long rowsHit = 0, turnsLost = 0, multiTurn = 0;
  std::string rows;
  for (int64_t r = 0; r < b.batchSize() && size_t(r) < b.meta.size(); ++r) {
    long lost = 0;
    for (const Replies& replies : conversationsOfRow(b, r)) {
      if (replies.size() < 2) continue;
      ++multiTurn;
      for (auto it = replies.begin(); it != std::prev(replies.end()); ++it) lost += it->second == 0 ? 1 : 0;
    }
    if (lost == 0) continue;
    ++rowsHit;
    turnsLost += lost;
    if (rowsHit <= 8)
      rows += (rows.empty() ? "" : ", ") +
              std::to_string(size_t(r) < b.sourceRows.size() ? b.sourceRows[size_t(r)] : long(r));
  }
  std::string msg = f->framework + " " + f->version +
                    " chat_template took its legacy path (roles_to_train, train_on_eos, train_on_eot and "
                    "message_field_training* all unset): only what follows the last turn's generation prompt is "
                    "trained, and Axolotl says nothing about it. ";
  if (rowsHit > 0)
    msg += std::to_string(turnsLost) + " earlier assistant turn(s) in " + std::to_string(rowsHit) + " of " +
           std::to_string(b.batchSize()) + " rows are never trained (dataset rows " + rows +
           (rowsHit > 8 ? ", ..." : "") + ")";
  else
    msg += multiTurn == 0 ? "No conversation of this batch has two assistant turns yet, so nothing is lost here"
                          : "Every multi-turn conversation still trains its earlier turns";
  in.out.add("axolotl-legacy-last-turn", std::nullopt, std::nullopt, msg,
             rowsHit > 0 ? std::optional<Severity>(Severity::Error) : std::optional<Severity>(Severity::Warning));
  return true;
}

} // namespace

const std::vector<LintRule>& axolotlRules() {
  using S = Severity;
  static const std::vector<LintRule> rules = {
      {.info = {"axolotl-legacy-last-turn", S::Error, "Axolotl's legacy path trains only the last turn, silently",
                "Axolotl's chat_template strategy has two ways to build labels. With roles_to_train, train_on_eos, "
                "train_on_eot and message_field_training(_detail) all unset (the defaults before Axolotl 0.7, or "
                "null in a dataset config handed to the strategy), it takes its old 'legacy' path: it renders every "
                "turn but the last with the generation prompt and trains everything after that, so in a multi-turn "
                "conversation only the final assistant reply is learned and every earlier one is -100. Nothing is "
                "logged. Fix: set roles_to_train: [assistant] and train_on_eos: turn in the dataset entry (the "
                "defaults of Axolotl >= 0.7), so each assistant turn's content and end-of-turn token are trained.",
                "an Axolotl framework spec"},
       .beforeRows = legacyLastTurn},
  };
  return rules;
}

} // namespace maskscope
