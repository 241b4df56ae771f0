// The stack every worker thread gets, sized for the recursion caps of the parsers and the template
// engine (kMaxJsonDepth in JsonParse.h, kMaxParseDepth in jinja/Parser.h, Limits::maxCallDepth in
// jinja/Template.h), so that a hostile input meets a cap, never the end of the stack.
#pragma once
#include <cstddef>

namespace maskscope {

// Why 16 MiB: the deepest recursion a hostile input can force is a template at its caps: 200 nested
// macro calls, each through an expression near the 100-level parse cap. Measured on the main thread
// (`ulimit -s`, maskscope render): 198 nested calls each inside 30 parentheses render in 512 KiB of
// stack and overflow at 256 KiB. JSON is capped at 128 levels (a few KiB). Glibc threads otherwise
// get RLIMIT_STACK (often 8 MiB, 2 MiB when unlimited, whatever the user set), so the size is
// explicit: 16 MiB is over 30 times the measured need and only reserves address space (pages are
// touched only as deep as a render goes).
inline constexpr std::size_t kWorkerStackBytes = std::size_t(16) << 20;

} // namespace maskscope
