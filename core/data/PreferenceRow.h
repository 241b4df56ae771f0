// A preference row as TRL's DPO/ORPO/reward trainers read it: a prompt with a chosen and a
// rejected continuation, as message lists (conversational) or plain strings, or, without "prompt",
// two full conversations whose common prefix is the prompt (TRL's extract_prompt).
#pragma once
#include "core/data/Conversation.h"

#include <memory>
#include <string>
#include <vector>

namespace maskscope {

class DatasetReader;
struct RowError;

struct PreferenceRow {
  bool plainText = false;      // strings, no chat template
  bool implicitPrompt = false; // no "prompt" field: the prompt is the common prefix of chosen and rejected
  std::vector<Message> prompt, chosen, rejected; // conversational: chosen/rejected continue the prompt
  std::string plainPrompt, plainChosen, plainRejected;
  OrderedJson tools;          // "tools" of the row, or null
  OrderedJson extraVariables; // other top-level fields the template may read, or null

  std::string sourceFile;
  long sourceLine = -1; // 1-based line of the row (JSONL) or of its opening brace (JSON)
  long sourceItem = -1; // a JSON-list file: 0-based index of the row in the list; else -1
  long rowIndex = -1;   // 0-based index among the preference rows that parsed

  // One side as a prompt/completion conversation (promptMessageCount / plain prompt set), the way
  // the rest of the pipeline reads a row. side: "chosen" or "rejected".
  Conversation side(bool chosenSide) const;
};

// Whether a parsed row has the preference shape ("chosen" and "rejected").
bool isPreferenceRow(const OrderedJson& row);
// Converts one parsed row; throws Error(reason naming the field) on anything else.
PreferenceRow preferenceFromJson(const OrderedJson& row);

// Whether the first readable row of a dataset is a preference row (commands then read the whole
// dataset as preference data). False for an unreadable or empty dataset.
bool isPreferenceDataset(const std::string& spec);
// Preference data is read by collate, lint and snapshot. A command that reads conversations refuses
// it by name (Error, exit 2) instead of calling every row malformed; other data passes.
void refusePreferenceData(const std::string& dataSpec, const std::string& command);
// Streams the preference rows of a dataset, one at a time (constant memory). Bad rows (invalid
// JSON, another shape, bad fields) go to errors() with file and line and are skipped.
class PreferenceReader {
public:
  explicit PreferenceReader(const std::string& spec); // throws Error when the file cannot be opened
  ~PreferenceReader();
  PreferenceReader(const PreferenceReader&) = delete;
  PreferenceReader& operator=(const PreferenceReader&) = delete;
  bool next(PreferenceRow& out); // the next good row (rowIndex counts good rows); false at the end
  const std::vector<RowError>& errors() const;
  long rowsRead() const { return rowsRead_; }
  long rowsSkipped() const;

private:
  std::unique_ptr<DatasetReader> reader_;
  std::string spec_;
  long rowsRead_ = 0;
};

// Reads the preference rows [rowBegin, rowEnd) (-1: to the end), at most kMaxPreferenceRows. Bad
// rows (invalid JSON, another shape, bad fields) go to errors with file and line and are skipped.
std::vector<PreferenceRow> readPreferenceDataset(const std::string& spec, std::vector<RowError>* errors = nullptr,
                                                 long rowBegin = 0, long rowEnd = -1);
inline constexpr long kMaxPreferenceRows = 1000000;

} // namespace maskscope
