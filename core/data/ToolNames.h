// The function names tool-call and tool-output positions carry (PositionMeta::toolName): one
// process-wide table of interned names, so a position keeps its name through every stage that moves
// positions (truncation, packing, the frameworks' concatenations) without each carrying a pool.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace maskscope {

// Caps against untrusted rows: names longer than this are cut (at a UTF-8 boundary), and once the
// table holds kMaxToolNames names a new one gets 0 (shown without a name).
inline constexpr size_t kMaxToolNameBytes = 128;
inline constexpr size_t kMaxToolNames = 4096;

// The name's number (1-based, stable for the process); 0 for an empty name or a full table. Thread-safe.
uint16_t internToolName(std::string_view name);
// The name of a number internToolName gave; empty for 0 or a number it never gave.
std::string toolNameOf(uint16_t id);

} // namespace maskscope
