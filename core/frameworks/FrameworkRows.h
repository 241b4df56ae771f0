// Dataset rows as a framework receives them: the raw JSON object of each row (text or messages
// rows for its dataset preparation, or pre-tokenized rows with the framework's column names), and
// the checked reading of integer columns from them. Rows are untrusted: a column that is not a
// list of integers, ids out of range, lengths that disagree or seq_lengths that do not sum to the
// row are Errors naming the file, the line, the row and the key (exit 2), and nothing is allocated
// from a length a row claims.
#pragma once
#include "core/data/DatasetReader.h"
#include "core/frameworks/FrameworkInfo.h"
#include "core/frameworks/PreparedRows.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maskscope {

struct InputRow {
  OrderedJson value; // the row object as read, keys in file order
  std::string file;  // the dataset spec
  long line = -1;    // 1-based line of the row
  long index = -1;   // 0-based readable row
};

// The rows of --data in [begin, end) (end -1: to the end); rows that are not JSON objects are
// skipped into errors (the dataset reader's rule). Error when nothing is left.
std::vector<InputRow> readFrameworkRows(const std::string& dataSpec, long begin, long end,
                                        std::vector<RowError>* errors = nullptr);

// True when the row holds token ids already (input_ids, prompt_ids, chosen_input_ids, tokens, ...):
// the framework then skips tokenization, as its own `is_processed` check does.
bool isPreTokenizedRow(const OrderedJson& row);

// What an id column may hold.
struct IdRange {
  int64_t min = 0;                  // smallest value allowed (labels: -100 is always allowed too)
  std::optional<int64_t> vocabSize; // ids must be below it (from --tokenizer); else below 2^31
  bool allowIgnoreIndex = false;    // -100 allowed (labels)
};

// The integer list row.value[key]; Error naming row and key when it is not a list of integers in
// range or longer than kMaxFrameworkLength. nullopt when the key is absent (or null).
std::optional<std::vector<int64_t>> readIdColumn(const InputRow& row, const std::string& key, const IdRange& range);
// Same, Error when absent.
std::vector<int64_t> requireIdColumn(const InputRow& row, const std::string& key, const IdRange& range);
// A 0/1 mask column (completion_mask, assistant_masks, attention_mask); true/false count as 1/0.
std::optional<std::vector<int64_t>> readMaskColumn(const InputRow& row, const std::string& key);
// Error naming row and key when column `key` does not have `expected` values (the length of `of`).
void requireSameLength(const InputRow& row, const std::string& key, size_t got, const std::string& of, size_t expected);
// seq_lengths must be positive and sum to the row's length; Error naming row and key otherwise.
void checkSeqLengths(const InputRow& row, const std::vector<int64_t>& seqLengths, size_t rowLength);

// Which columns a framework reads from a pre-tokenized row besides input_ids (always required).
struct PreTokenizedColumns {
  std::vector<std::string> masks = {"attention_mask"}; // 0/1 columns, as long as input_ids
  bool labelsAsLong = true; // false: labels may differ in length (DataCollatorForSeq2Seq pads them alone)
  bool seqLengths = false;  // seq_lengths read and checked to sum to the row (TRL's padding-free rows)
};
// The one reader of pre-tokenized rows: input_ids (ids below vocabSize when known), labels (ids or
// -100) and the columns named, in the row's own key order; other keys (text, ...) are skipped, a
// null column counts as absent. Errors name the row, the line and the key.
PreparedRow readPreTokenizedRow(const InputRow& row, std::optional<int64_t> vocabSize,
                                const PreTokenizedColumns& columns = {});

// An Error at row's line naming key: "FILE:LINE: row N, key \"K\": message".
[[noreturn]] void throwRowError(const InputRow& row, const std::string& key, const std::string& message);

} // namespace maskscope
