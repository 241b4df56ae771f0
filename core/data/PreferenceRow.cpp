// Preference rows (TRL's prompt/chosen/rejected, docs/cli.md "Preference data"): parsing with
// errors that name the field, TRL's implicit-prompt extraction, and a bounded streaming read.
#include "core/data/PreferenceRow.h"
#include "core/data/DatasetReader.h"
#include "core/data/RowShapes.h"
#include "core/util/Error.h"

namespace maskscope {

namespace {

bool sameMessage(const Message& a, const Message& b) {
  return a.role == b.role && a.content == b.content && a.extra == b.extra;
}

// TRL's extract_prompt (trl/data_utils.py): the first index where chosen and rejected differ; a
// space before it stays with the completions. When one side is a prefix of the other, Python's
// loop variable ends at min - 1, so the last shared element goes to the completions (kept here).
template <class Seq, class Same> size_t promptLength(const Seq& chosen, const Seq& rejected, Same same) {
  const size_t n = std::min(chosen.size(), rejected.size());
  if (n == 0) throw Error("\"chosen\" and \"rejected\" must both be non-empty to share a prompt");
  size_t idx = n - 1;
  for (size_t i = 0; i < n; ++i)
    if (!same(chosen[i], rejected[i])) {
      idx = i;
      break;
    }
  return idx;
}

size_t plainPromptLength(const std::string& chosen, const std::string& rejected) {
  size_t idx = promptLength(chosen, rejected, [](char a, char b) { return a == b; });
  // TRL compares characters: back up to the first byte of the character that differs.
  while (idx > 0 && (static_cast<unsigned char>(chosen[idx]) & 0xC0) == 0x80) --idx;
  if (idx > 0 && chosen[idx - 1] == ' ') --idx;
  return idx;
}

const OrderedJson& field(const OrderedJson& row, const char* key) {
  if (!row.contains(key)) throw Error(std::string("preference row has no \"") + key + "\"");
  return row[key];
}

void keepPreferenceExtras(const OrderedJson& row, PreferenceRow& p) {
  OrderedJson extra = OrderedJson::object();
  for (auto it = row.begin(); it != row.end(); ++it)
    if (it.key() != "prompt" && it.key() != "chosen" && it.key() != "rejected" && it.key() != "tools")
      extra[it.key()] = it.value();
  if (!extra.empty()) p.extraVariables = std::move(extra);
  if (row.contains("tools") && !row["tools"].is_null()) p.tools = row["tools"];
}

void readExplicit(const OrderedJson& row, PreferenceRow& p) {
  const OrderedJson& prompt = row["prompt"];
  const OrderedJson& chosen = field(row, "chosen");
  const OrderedJson& rejected = field(row, "rejected");
  if (prompt.is_string() && chosen.is_string() && rejected.is_string()) {
    p.plainText = true;
    p.plainPrompt = prompt.get<std::string>();
    p.plainChosen = chosen.get<std::string>();
    p.plainRejected = rejected.get<std::string>();
    return;
  }
  if (!prompt.is_array() || !chosen.is_array() || !rejected.is_array())
    throw Error("\"prompt\", \"chosen\" and \"rejected\" must all be strings or all be message lists (prompt is " +
                std::string(prompt.type_name()) + ", chosen " + chosen.type_name() + ", rejected " +
                rejected.type_name() + ")");
  p.prompt = messagesFromJson(prompt, "prompt");
  p.chosen = messagesFromJson(chosen, "chosen");
  p.rejected = messagesFromJson(rejected, "rejected");
  if (p.prompt.empty()) throw Error("\"prompt\" is an empty message list");
  if (p.chosen.empty() || p.rejected.empty()) throw Error("\"chosen\" and \"rejected\" must not be empty");
}

void readImplicit(const OrderedJson& row, PreferenceRow& p) {
  p.implicitPrompt = true;
  const OrderedJson& chosen = field(row, "chosen");
  const OrderedJson& rejected = field(row, "rejected");
  if (chosen.is_string() && rejected.is_string()) {
    p.plainText = true;
    const std::string c = chosen.get<std::string>(), r = rejected.get<std::string>();
    const size_t n = plainPromptLength(c, r);
    p.plainPrompt = c.substr(0, n);
    p.plainChosen = c.substr(n);
    p.plainRejected = r.substr(n);
    return;
  }
  if (!chosen.is_array() || !rejected.is_array())
    throw Error("\"chosen\" and \"rejected\" must both be strings or both be message lists");
  std::vector<Message> c = messagesFromJson(chosen, "chosen"), r = messagesFromJson(rejected, "rejected");
  const size_t n = promptLength(c, r, sameMessage);
  if (n == 0)
    throw Error(
        "\"chosen\" and \"rejected\" share no prompt: their first messages differ (give \"prompt\" explicitly)");
  p.prompt.assign(c.begin(), c.begin() + long(n));
  p.chosen.assign(c.begin() + long(n), c.end());
  p.rejected.assign(r.begin() + long(n), r.end());
}

} // namespace

Conversation PreferenceRow::side(bool chosenSide) const {
  Conversation c;
  if (plainText) {
    c.plainText = true;
    c.plainPrompt = plainPrompt;
    c.plainCompletion = chosenSide ? plainChosen : plainRejected;
  } else {
    c.messages = prompt;
    const auto& rest = chosenSide ? chosen : rejected;
    c.messages.insert(c.messages.end(), rest.begin(), rest.end());
    c.promptMessageCount = int(prompt.size());
  }
  c.tools = tools;
  c.extraVariables = extraVariables;
  c.sourceFile = sourceFile;
  c.sourceLine = sourceLine;
  c.rowIndex = rowIndex;
  return c;
}

bool isPreferenceRow(const OrderedJson& row) {
  return row.is_object() && row.contains("chosen") && row.contains("rejected");
}

PreferenceRow preferenceFromJson(const OrderedJson& row) {
  if (!row.is_object()) throw Error("row is " + std::string(row.type_name()) + ", not a JSON object");
  if (!isPreferenceRow(row)) throw Error("not a preference row: it needs \"chosen\" and \"rejected\"");
  PreferenceRow p;
  if (row.contains("prompt"))
    readExplicit(row, p);
  else
    readImplicit(row, p);
  keepPreferenceExtras(row, p);
  return p;
}

bool isPreferenceDataset(const std::string& spec) {
  try {
    DatasetReader reader(spec);
    OrderedJson row;
    long line = -1;
    return reader.nextJson(row, line) && isPreferenceRow(row);
  } catch (const Error&) {
    return false;
  }
}

void refusePreferenceData(const std::string& dataSpec, const std::string& command) {
  if (dataSpec.empty() || !isPreferenceDataset(dataSpec)) return;
  throw Error("holds preference data (prompt/chosen/rejected); `maskscope " + command +
                  "` reads conversation rows. Preference pairs are read by `collate --side chosen|rejected|both`, "
                  "`lint` and `snapshot --view preference`",
              {dataSpec});
}

PreferenceReader::PreferenceReader(const std::string& spec)
    : reader_(std::make_unique<DatasetReader>(spec)), spec_(spec) {}
PreferenceReader::~PreferenceReader() = default;
const std::vector<RowError>& PreferenceReader::errors() const { return reader_->errors(); }
long PreferenceReader::rowsSkipped() const { return reader_->rowsSkipped(); }

bool PreferenceReader::next(PreferenceRow& out) {
  OrderedJson json;
  long line = -1;
  while (reader_->nextJson(json, line)) {
    try {
      out = preferenceFromJson(json);
    } catch (const Error& e) {
      reader_->skip(line, e.message());
      continue;
    }
    out.sourceFile = spec_;
    out.sourceLine = line;
    out.rowIndex = rowsRead_++;
    return true;
  }
  return false;
}

std::vector<PreferenceRow> readPreferenceDataset(const std::string& spec, std::vector<RowError>* errors, long rowBegin,
                                                 long rowEnd) {
  PreferenceReader reader(spec);
  std::vector<PreferenceRow> rows;
  PreferenceRow p;
  while ((rowEnd < 0 || reader.rowsRead() < rowEnd) && reader.next(p)) {
    if (p.rowIndex < rowBegin) continue;
    if (long(rows.size()) >= kMaxPreferenceRows)
      throw Error("more than " + std::to_string(kMaxPreferenceRows) + " preference rows: select fewer with --rows",
                  {spec, p.sourceLine});
    rows.push_back(std::move(p));
  }
  if (errors) *errors = reader.errors();
  return rows;
}

} // namespace maskscope
