"""Callback: a TrainerCallback-shaped object (duck-typed, transformers is never imported) for
transformers' Trainer, TRL's SFTTrainer and Unsloth's trainers. On on_train_begin it wraps the
collate_fn of the train dataloader, so what is captured is the batch the trainer really builds."""

import inspect
import sys
import warnings

from . import facts as _facts
from .collator import CapturingCollator

# TrainingArguments / SFTConfig fields that shape the batch; recorded in the manifest.
BATCH_ARGS = ("per_device_train_batch_size", "gradient_accumulation_steps", "dataloader_num_workers",
              "remove_unused_columns", "group_by_length", "max_length", "max_seq_length", "packing", "packing_strategy",
              "padding_free", "pad_to_multiple_of", "completion_only_loss", "assistant_only_loss", "dataset_text_field",
              "dataset_kwargs", "eos_token", "pad_token", "average_tokens_across_devices", "seed")


def _find_trainer(callback):
    """The trainer whose callback list holds `callback`, found up the call stack (event handlers
    are given the model and dataloaders, not the trainer)."""
    frame = sys._getframe(1)
    for _ in range(40):
        if frame is None:
            return None
        owner = frame.f_locals.get("self")
        handler = getattr(owner, "callback_handler", None)
        if handler is not None and callback in getattr(handler, "callbacks", ()):
            return owner
        frame = frame.f_back
    return None


def trainer_facts(trainer, args):
    out = {}
    if trainer is not None:
        out.update(_facts.class_facts(trainer))
        out["bases"] = [c.__module__ + "." + c.__qualname__ for c in inspect.getmro(type(trainer))[1:6]]
    if args is not None:
        out["args_class"] = _facts.class_facts(args)
        out["args"] = {k: _facts.json_safe(getattr(args, k)) for k in BATCH_ARGS if hasattr(args, k)}
    return out or None


class Callback:
    """callbacks=[maskscope_capture.Callback(out="maskscope-capture", batches=4)]. Extra keyword
    arguments are recorded under "facts" in capture.json."""

    def __init__(self, out="maskscope-capture", batches=4, trainer=None, **facts):
        self.out = out
        self.batches = batches
        self.trainer = trainer  # given by hooks that have it (Axolotl's add_callbacks_post_trainer)
        self.facts = facts
        self.collator = None  # the CapturingCollator once wrapped

    def __getattr__(self, name):
        # Every other event of the callback API (on_step_end, on_log, ... and future ones) does nothing.
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)

    def on_init_end(self, args, state, control, **kwargs):
        # At the end of Trainer.__init__, before any dataloader exists: wrapping trainer.data_collator
        # here reaches every dataloader the trainer builds, also when accelerate wraps it in an adapter
        # whose collate_fn is its base loader's (setting the adapter's attribute would change nothing).
        try:
            if (self.trainer or _find_trainer(self)) is not None:
                self._wrap(args, state, kwargs)
        except Exception:
            pass  # on_train_begin tries again, and warns there

    def on_train_begin(self, args, state, control, **kwargs):
        try:
            self._wrap(args, state, kwargs)
        except Exception as e:
            warnings.warn("maskscope_capture: nothing captured (%s: %s)" % (type(e).__name__, e), RuntimeWarning)

    def _wrap(self, args, state, kwargs):
        if self.collator is not None or getattr(state, "is_world_process_zero", True) is False:
            return  # already wrapped; other ranks build other batches of the same kind
        trainer = self.trainer or _find_trainer(self)
        tokenizer = kwargs.get("processing_class") or kwargs.get("tokenizer")
        if tokenizer is None and trainer is not None:
            tokenizer = getattr(trainer, "processing_class", None) or getattr(trainer, "tokenizer", None)
        loader = kwargs.get("train_dataloader")
        # accelerate's DataLoaderShard / DataLoaderDispatcher iterate a base DataLoader: wrap that one.
        loader = getattr(loader, "base_dataloader", loader)
        target, attribute = (loader, "collate_fn") if getattr(loader, "collate_fn", None) else (trainer, "data_collator")
        collator = getattr(target, attribute, None) if target is not None else None
        if collator is None:
            raise RuntimeError("no train dataloader or data_collator reached the callback")
        if isinstance(collator, CapturingCollator):
            self.collator = collator
            return
        self.collator = CapturingCollator(collator, out=self.out, batches=self.batches, tokenizer=tokenizer,
                                          trainer_facts=trainer_facts(trainer, args), **self.facts)
        setattr(target, attribute, self.collator)
