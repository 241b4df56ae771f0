"""wrap_collator: a collator that returns every batch of the one it wraps unchanged and writes the
first N to a capture folder (batch-0000.safetensors ... and capture.json, docs/capture.md). After
the N it costs one attribute test per call; a failure to write warns once and stops capturing."""

import datetime
import json
import os
import platform
import shutil
import warnings

from . import facts as _facts
from .safetensors_file import safetensors_dtype, write_safetensors

FORMAT = "maskscope-capture/1"
__version__ = "0.1.0"


def _is_tensor(value):
    return hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "detach")


def _worker_id():
    """The DataLoader worker this runs in, or None in the main process."""
    import sys

    data = sys.modules.get("torch.utils.data")
    info = data.get_worker_info() if data is not None and hasattr(data, "get_worker_info") else None
    return None if info is None else info.id


class CapturingCollator:
    """Calls the wrapped collator; writes its first `batches` results. Picklable (DataLoader workers);
    with several workers only worker 0 writes (its batches are every num_workers-th)."""

    def __init__(self, collator, out="maskscope-capture", batches=4, tokenizer=None, trainer_facts=None, **facts):
        if not callable(collator):
            raise TypeError("wrap_collator needs a callable collator, got %r" % type(collator).__name__)
        self.collator = collator
        self.out = os.fspath(out)
        self.batches = int(batches)
        self.tokenizer = tokenizer if tokenizer is not None else getattr(collator, "tokenizer", None)
        self.trainer_facts = trainer_facts
        self.facts = facts
        self._done = self.batches <= 0
        self._records = []
        self._tokenizer = None

    def __call__(self, features):
        # A DataLoader calls collate_fn(samples), a Trainer data_collator(features): one argument.
        if self._done:  # after the N: what the plainest wrapper object costs, nothing more
            return self.collator(features)
        batch = self.collator(features)
        try:
            self._capture(features, batch)
        except Exception as e:  # never the trainer's problem: say so and stop capturing
            self._done = True
            warnings.warn("maskscope_capture: capture stopped, the batch is unchanged (%s: %s)"
                          % (type(e).__name__, e), RuntimeWarning, stacklevel=2)
        return batch

    def __getattr__(self, name):
        # Code that reads the collator's settings (trainer.data_collator.tokenizer) still works.
        if name.startswith("__") or name in ("collator", "_done", "_records", "_tokenizer"):
            raise AttributeError(name)
        return getattr(self.collator, name)

    @property
    def capturing(self):
        return not self._done

    def _start(self):
        """First batch: clear an earlier capture of this module in the folder, write the tokenizer."""
        old = os.path.join(self.out, "capture.json")
        if os.path.isfile(old):
            try:
                with open(old, encoding="utf-8") as f:
                    ours = json.load(f).get("format") == FORMAT
            except (OSError, ValueError, AttributeError):
                ours = False
            if not ours:
                raise FileExistsError("%s holds a capture.json this module did not write" % self.out)
            for name in os.listdir(self.out):
                if name.startswith("batch-") and name.endswith(".safetensors") or name in ("capture.json",
                                                                                            "chat_template.jinja"):
                    os.remove(os.path.join(self.out, name))
            shutil.rmtree(os.path.join(self.out, "tokenizer"), ignore_errors=True)
        os.makedirs(self.out, exist_ok=True)
        self._tokenizer = _facts.tokenizer_facts(self.tokenizer)
        if self._tokenizer is not None:
            files, problems = _facts.save_tokenizer_files(self.tokenizer, os.path.join(self.out, "tokenizer"))
            self._tokenizer.update({"folder": "tokenizer" if files else None, "files": files, "problems": problems})
            template = self._tokenizer.get("chat_template")
            if isinstance(template, str):  # the template the trainer renders with, as a file maskscope reads
                with open(os.path.join(self.out, "chat_template.jinja"), "w", encoding="utf-8") as f:
                    f.write(template)

    def _capture(self, features, batch):
        worker = _worker_id()
        if worker not in (None, 0):
            self._done = True
            return
        if not hasattr(batch, "keys"):
            raise TypeError("the collator returned a %s, not a dict of tensors" % type(batch).__name__)
        if not self._records:
            self._start()
        index = len(self._records)
        tensors, other = {}, {}
        for key in batch.keys():
            value = batch[key]
            if _is_tensor(value) and safetensors_dtype(value) is not None:
                tensors[str(key)] = value
            else:
                other[str(key)] = _facts.json_safe(value)
        name = "batch-%04d.safetensors" % index
        written = write_safetensors(os.path.join(self.out, name), tensors)
        record = {"file": name, "tensors": written, "keys": [str(k) for k in batch.keys()]}
        if other:
            record["other_values"] = other
        examples = _facts.example_texts(features)
        if examples:
            record["examples"] = examples
        if worker is not None:
            record["dataloader_worker"] = worker
        self._records.append(record)
        self._write_manifest()
        if len(self._records) >= self.batches:
            self._done = True

    def _write_manifest(self):
        manifest = {
            "format": FORMAT,
            "written_by": "maskscope_capture " + __version__,
            "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "python": platform.python_version(),
            "frameworks": _facts.framework_versions(),
            "trainer": self.trainer_facts,
            "collator": _facts.collator_facts(self.collator),
            "tokenizer": self._tokenizer,
            "chat_template_file": "chat_template.jinja"
            if os.path.isfile(os.path.join(self.out, "chat_template.jinja")) else None,
            "facts": _facts.json_safe(self.facts),
            "batches": self._records,
        }
        path = os.path.join(self.out, "capture.json")
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1, ensure_ascii=False)
        os.replace(path + ".tmp", path)


def wrap_collator(collator, out="maskscope-capture", batches=4, tokenizer=None, **facts):
    """Returns a collator giving exactly collator's batches, and writing the first `batches` of them
    with the facts maskscope needs to `out` (docs/capture.md). Extra keyword arguments are recorded
    under "facts" in capture.json."""
    if isinstance(collator, CapturingCollator):
        return collator
    return CapturingCollator(collator, out=out, batches=batches, tokenizer=tokenizer, **facts)
