// Builds, filters and writes the per-position table of a batch row (see PositionTable.h).
#include "core/table/PositionTable.h"
#include "core/data/ToolNames.h"
#include "core/mask/PaddingDetection.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"
#include "core/util/HtmlEscape.h"
#include "core/util/JsonString.h"
#include "core/util/Utf8.h"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace maskscope {

namespace {

bool onlyWhitespace(std::string_view s) {
  if (s.empty()) return false;
  size_t pos = 0;
  while (pos < s.size()) {
    const char32_t cp = utf8::decode(s, pos);
    const bool space = cp == U' ' || cp == U'\n' || cp == U'\t' || cp == U'\r' || cp == U'\v' || cp == U'\f' ||
                       cp == 0xA0 || cp == 0x3000 || (cp >= 0x2000 && cp <= 0x200A);
    if (!space) return false;
  }
  return true;
}

// Roles per position. Template text before an example's first non-system message is the system
// turn the template injects itself (Qwen2.5's default system prompt, Llama-3's knowledge-date
// header): it is shown as "system", so hiding the system turn hides it too. A leading BOS stays.
std::vector<std::string> rolesOf(const Batch& b, int64_t row, const std::vector<uint8_t>& pad) {
  std::vector<std::string> roles(size_t(b.length()), "unknown");
  const bool haveMeta = size_t(row) < b.meta.size() && int64_t(b.meta[size_t(row)].size()) == b.length();
  std::vector<uint8_t> starts(size_t(b.length()) + 1, 0); // [T]: 1 where an example starts (a lookup, never a scan)
  starts[0] = 1;
  if (size_t(row) < b.segments.size())
    for (const Segment& s : b.segments[size_t(row)])
      if (s.begin >= 0 && s.begin < b.length()) starts[size_t(s.begin)] = 1;
  bool beforeMessages = true;
  for (int64_t t = 0; t < b.length(); ++t) {
    if (starts[size_t(t)]) beforeMessages = true;
    if (pad[size_t(t)]) {
      roles[size_t(t)] = "pad";
      continue;
    }
    if (!haveMeta) continue;
    const PositionMeta& m = b.meta[size_t(row)][size_t(t)];
    const bool leadingBos = b.bosTokenId && b.inputIds.at(row, t) == *b.bosTokenId && beforeMessages;
    if (m.kind != PositionKind::Template && m.kind != PositionKind::System && m.kind != PositionKind::Unknown)
      beforeMessages = false;
    const bool injectedSystem = m.kind == PositionKind::Template && beforeMessages && !leadingBos;
    roles[size_t(t)] = injectedSystem ? "system" : positionKindName(m.kind);
  }
  return roles;
}

std::vector<uint8_t> paddingOf(const Batch& b, int64_t row) {
  const bool haveMeta = size_t(row) < b.meta.size() && int64_t(b.meta[size_t(row)].size()) == b.length();
  if (!haveMeta) return detectPaddingOfRow(b, row, b.padTokenId);
  std::vector<uint8_t> pad(size_t(b.length()), 0);
  for (int64_t t = 0; t < b.length(); ++t)
    pad[size_t(t)] = b.meta[size_t(row)][size_t(t)].kind == PositionKind::Padding;
  return pad;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Markdown cells: a pipe or backtick inside a token would end the cell or the code span.
std::string markdownCell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out.find('`') == std::string::npos ? "`" + out + "`" : "`` " + out + " ``";
}

std::string labelText(int64_t label) { return label == kIgnoreIndex ? "-100" : std::to_string(label); }

const char* const kHeader[] = {"row", "position", "token", "id", "label", "attention", "position_id", "role", "tool"};

std::vector<std::string> cellsOf(size_t index, const PositionTableRow& r) {
  return {std::to_string(index + 1),
          std::to_string(r.position),
          r.token,
          std::to_string(r.id),
          labelText(r.label),
          std::to_string(r.attention),
          std::to_string(r.positionId),
          r.role,
          r.tool};
}

} // namespace

PositionTableFilter parseTableFilter(const std::string& list) {
  PositionTableFilter f;
  std::stringstream in(list);
  std::string word;
  while (std::getline(in, word, ',')) {
    if (word == "system")
      f.hideSystem = true;
    else if (word == "whitespace")
      f.hideWhitespace = true;
    else if (word == "padding" || word == "pad")
      f.hidePadding = true;
    else if (!word.empty())
      throw Error("--hide: unknown \"" + word + "\" (expected a comma list of system, whitespace, padding)");
  }
  return f;
}

std::vector<PositionTableRow> buildPositionTable(const Batch& b, int64_t row, const Tokenizer* tokenizer,
                                                 const PositionTableFilter& filter) {
  if (row < 0 || row >= b.batchSize())
    throw Error("row " + std::to_string(row) + " is outside the batch (" + std::to_string(b.batchSize()) + " rows)");
  const std::vector<uint8_t> pad = paddingOf(b, row);
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  const bool haveLabels = b.labels.sameShape(b.inputIds);
  const bool havePositions = b.positionIds.sameShape(b.inputIds);
  const std::vector<std::string> roles = rolesOf(b, row, pad);
  std::vector<PositionTableRow> rows;
  for (int64_t t = 0; t < b.length(); ++t) {
    PositionTableRow r;
    r.position = t;
    r.id = b.inputIds.at(row, t);
    const bool idFits = r.id >= 0 && r.id <= INT32_MAX;
    const std::string text = tokenizer && idFits ? tokenizer->displayText(int32_t(r.id)) : std::to_string(r.id);
    r.token = utf8::visibleWhitespace(text);
    r.whitespace = onlyWhitespace(text);
    r.label = haveLabels ? b.labels.at(row, t) : kIgnoreIndex;
    r.attention = haveMask ? b.attentionMask.at(row, t) : 1;
    r.positionId = havePositions ? b.positionIds.at(row, t) : t;
    r.padding = pad[size_t(t)] != 0;
    r.role = roles[size_t(t)];
    if (roles[size_t(t)] != "pad" && size_t(row) < b.meta.size() && size_t(t) < b.meta[size_t(row)].size())
      r.tool = toolNameOf(b.meta[size_t(row)][size_t(t)].toolName);
    if (filter.hideSystem && r.role == "system") continue;
    if (filter.hideWhitespace && r.whitespace) continue;
    if (filter.hidePadding && r.padding) continue;
    rows.push_back(std::move(r));
  }
  return rows;
}

PositionTableCounts countTable(const std::vector<PositionTableRow>& rows) {
  PositionTableCounts c;
  c.rows = int64_t(rows.size());
  for (const auto& r : rows) (r.graded() ? c.graded : c.ignored)++;
  return c;
}

TableFormat parseTableFormat(const std::string& name) {
  if (name == "text") return TableFormat::Text;
  if (name == "markdown" || name == "md") return TableFormat::Markdown;
  if (name == "csv") return TableFormat::Csv;
  if (name == "html") return TableFormat::Html;
  throw Error("--table-format: unknown \"" + name + "\" (expected text, markdown, csv or html)");
}

void writePositionTable(std::ostream& out, const std::vector<PositionTableRow>& rows, TableFormat format) {
  const size_t columns = std::size(kHeader);
  switch (format) {
  case TableFormat::Text:
    for (size_t c = 0; c < columns; ++c) out << (c ? "\t" : "") << kHeader[c];
    out << "\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto cells = cellsOf(i, rows[i]);
      for (size_t c = 0; c < columns; ++c) out << (c ? "\t" : "") << cells[c];
      out << "\n";
    }
    return;
  case TableFormat::Markdown:
    for (size_t c = 0; c < columns; ++c) out << "| " << kHeader[c] << " ";
    out << "|\n";
    for (size_t c = 0; c < columns; ++c) out << (c == 2 || c >= 7 ? "| --- " : "| ---: ");
    out << "|\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      auto cells = cellsOf(i, rows[i]);
      cells[2] = markdownCell(cells[2]);
      for (const auto& cell : cells) out << "| " << cell << " ";
      out << "|\n";
    }
    return;
  case TableFormat::Csv:
    for (size_t c = 0; c < columns; ++c) out << (c ? "," : "") << kHeader[c];
    out << "\r\n"; // RFC 4180 line ends
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto cells = cellsOf(i, rows[i]);
      for (size_t c = 0; c < columns; ++c) out << (c ? "," : "") << csvField(cells[c]);
      out << "\r\n";
    }
    return;
  case TableFormat::Html:
    out << "<table class=\"maskscope-positions\">\n<thead><tr>";
    for (size_t c = 0; c < columns; ++c) out << "<th>" << kHeader[c] << "</th>";
    out << "</tr></thead>\n<tbody>\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      out << "<tr class=\"" << (rows[i].graded() ? "graded" : "ignored") << "\">";
      for (const auto& cell : cellsOf(i, rows[i])) out << "<td>" << htmlEscape(cell) << "</td>";
      out << "</tr>\n";
    }
    out << "</tbody>\n</table>\n";
    return;
  }
}

void writePositionTableJson(std::ostream& out, int64_t batchRow, const std::vector<PositionTableRow>& rows,
                            const std::string& gradedText) {
  const PositionTableCounts counts = countTable(rows);
  std::string s = "{\"row\":" + std::to_string(batchRow) + ",\"graded\":" + std::to_string(counts.graded) +
                  ",\"ignored\":" + std::to_string(counts.ignored) + ",\"graded_text\":";
  appendJsonString(s, gradedText);
  s += ",\"rows\":[";
  out << s;
  for (size_t i = 0; i < rows.size(); ++i) {
    const PositionTableRow& r = rows[i];
    s = i ? "," : "";
    s += "{\"position\":" + std::to_string(r.position) + ",\"token\":";
    appendJsonString(s, r.token);
    s += ",\"id\":" + std::to_string(r.id) + ",\"label\":" + std::to_string(r.label) +
         ",\"attention\":" + std::to_string(r.attention) + ",\"position_id\":" + std::to_string(r.positionId) +
         ",\"role\":";
    appendJsonString(s, r.role);
    s += ",\"tool\":";
    if (r.tool.empty())
      s += "null";
    else
      appendJsonString(s, r.tool);
    s += ",\"graded\":" + std::string(r.graded() ? "true" : "false") +
         ",\"padding\":" + std::string(r.padding ? "true" : "false") +
         ",\"whitespace\":" + std::string(r.whitespace ? "true" : "false") + "}";
    out << s;
  }
  out << "]}\n";
}

} // namespace maskscope
