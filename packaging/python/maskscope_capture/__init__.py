"""maskscope_capture: one line in a training script writes the first batches the trainer builds,
with the tokenizer, chat template, special-token ids, collator and framework versions behind them,
to a folder `maskscope` opens (docs/capture.md). Pure Python; torch is used only through the
tensors the collator returns."""

from .callback import Callback
from .collator import FORMAT, CapturingCollator, __version__, wrap_collator

__all__ = ["Callback", "CapturingCollator", "FORMAT", "wrap_collator", "__version__"]
