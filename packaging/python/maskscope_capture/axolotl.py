"""Axolotl plugin: `plugins: [maskscope_capture.axolotl.CapturePlugin]` in the YAML config adds the
capture Callback to the trainer Axolotl builds. The folder and the batch count come from the
environment (MASKSCOPE_CAPTURE_DIR, default maskscope-capture; MASKSCOPE_CAPTURE_BATCHES, default 4),
so the config needs no key Axolotl's schema would refuse. Imported only by Axolotl."""

import os

from axolotl.integrations.base import BasePlugin

from .callback import Callback


class CapturePlugin(BasePlugin):
    def add_callbacks_post_trainer(self, cfg, trainer):
        out = os.environ.get("MASKSCOPE_CAPTURE_DIR", "maskscope-capture")
        batches = int(os.environ.get("MASKSCOPE_CAPTURE_BATCHES", "4"))
        return [Callback(out=out, batches=batches, trainer=trainer, framework="axolotl")]
