// Example boundaries of a naively packed row, read from its tokens: examples joined by an EOS,
// BOS or pad separator into one attention block with positions 0..T-1 (the ConstantLengthDataset
// way, a hand-rolled concat + chunk). Nothing but the content shows where one example ends.
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <vector>

namespace maskscope {

// Positions t (ascending) where a new example starts inside row r, after its first real token:
//  - token t-1 is the EOS (or a pad id equal to it) and token t starts a conversation: the BOS, or
//    the first real token of some row of the batch (the chat start such as <|im_start|> or
//    <|begin_of_text|> that every row of a dump opens with): EOS+BOS, <|im_end|><|im_start|>,
//    <|eot_id|><|begin_of_text|>;
//  - token t is the BOS in mid-row (<|begin_of_text|>, <bos>), after a token other than the BOS;
//  - token t-1 is the pad id (distinct from the EOS), not padding by paddingOfRow (so a mid-row
//    run), and token t is real text: a pad used as the separator (<|endoftext|> for Qwen);
//  - t is one of Batch::conversationStarts (the template's own signs, read by core/lint's role
//    recovery when a dump comes with its tokenizer and template).
// Padding by paddingOfRow never starts or ends a boundary, so left pads are not separators. The BOS
// and EOS rules skip a token pair the template writes between turns of one conversation
// (Batch::turnJoins): with its template, a multi-turn Llama 2 row ("</s><s>[INST]") stays one
// example. Known limit: without the template such a row looks like two packed examples.
std::vector<int64_t> separatorBoundaries(const Batch& batch, int64_t row);

} // namespace maskscope
