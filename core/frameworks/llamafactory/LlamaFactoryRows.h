// LLaMA-Factory's dataset converters (converter.py at ff6d4d1): an alpaca or sharegpt row, with the
// column and tag names of its dataset_info.json entry, becomes _prompt / _response / _system / _tools.
// Rows the converter or SupervisedDatasetProcessor would drop come back with the reason it logs.
#pragma once
#include "core/data/Conversation.h"
#include "core/frameworks/llamafactory/LlamaFactoryEncoder.h"

#include <optional>
#include <string>
#include <vector>

namespace maskscope::llamafactory {

// A dataset_info.json entry's "formatting", "columns" and "tags" (DatasetAttr's defaults when absent).
struct DatasetFormat {
  std::string formatting = "alpaca"; // alpaca | sharegpt | openai
  // alpaca columns
  std::string prompt = "instruction", query = "input", response = "output", history, system, tools, images;
  // sharegpt columns and tags
  std::string messages = "conversations";
  std::string roleTag = "from", contentTag = "value", userTag = "human", assistantTag = "gpt",
              observationTag = "observation", functionTag = "function_call", systemTag = "system";
};

// The format LLaMA-Factory users declare for a row of this shape: alpaca for instruction/output rows,
// sharegpt's defaults for "conversations" (with the "tools" column when the row has one), and sharegpt
// with the OpenAI tags (role/content/user/assistant/system/tool) for "messages" rows, as LLaMA-Factory's
// data/README.md shows; "messages" rows with tool_calls or tools take formatting openai, the converter
// that reads them.
DatasetFormat inferDatasetFormat(const OrderedJson& row);
// Applies a spec's "formatting", "columns" and "tags" objects on top of f; throws Error naming the key.
void applyDatasetInfo(DatasetFormat& f, const OrderedJson& formatting, const OrderedJson& columns,
                      const OrderedJson& tags);

// One image of the images column. maskscope never loads pixels: an entry gives the image's size,
// {"width": W, "height": H} (a "path" beside them is kept for the reader and not opened).
struct LfImage {
  int64_t width = 0, height = 0;
};

struct LfExample {
  std::vector<LfMessage> prompt, response;
  std::string system, tools;
  std::vector<LfImage> images; // _images (None and [] both empty)
  bool videosOrAudios = false; // a videos / audios column with media: not reproduced
};

struct ConvertedRow {
  std::optional<LfExample> example;
  std::string dropped; // why LLaMA-Factory drops the row (its warning), when example is empty
};

ConvertedRow convertRow(const OrderedJson& row, const DatasetFormat& format);

} // namespace maskscope::llamafactory
