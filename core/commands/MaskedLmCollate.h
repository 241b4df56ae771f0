// `collate --mlm`: the BERT aside on the collated batch (core/mask/MaskedLm.h), every number computed
// from the rows: real tokens, the seeded 15 % chosen among them, the 80/10/10 split, the labels and
// the attended pairs with and without the causal mask (docs/cli.md, "collate --mlm").
#pragma once
#include "core/commands/CommandIO.h"
#include "core/data/Batch.h"
#include "core/mask/MaskedLm.h"

#include <cstdint>

namespace maskscope {

class Tokenizer;

// The masking options for a batch read with `tokenizer` (may be null): its mask token ("[MASK]",
// "<mask>") when it has one, its vocabulary size and the special ids that occur in the batch.
MaskedLmOptions maskedLmOptionsFor(const Batch& batch, const Tokenizer* tokenizer, uint64_t seed);

// Prints the aside for every row (JSON with io.json); returns 0.
int printMaskedLm(const Batch& batch, const Tokenizer* tokenizer, uint64_t seed, CommandIO& io);

} // namespace maskscope
