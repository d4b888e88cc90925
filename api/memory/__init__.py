"""Memory beyond the window, all carried by the client: which messages reach the model
(``selection``, pure), rolling summaries with signatures (``summary``), and
recall of relevant older exchanges by sentence embeddings (``recall``)."""

from __future__ import annotations

import logging
import os
import secrets
from dataclasses import dataclass

from .recall import Recall
from .summary import Signer

log = logging.getLogger("mnemo.memory")


@dataclass
class Memory:
    """The app's memory tools (``app.extensions["memory"]``): no conversation state, only a
    signing key and the recall model with its embedding cache."""

    signer: Signer
    recall: Recall

    @classmethod
    def from_settings(cls, settings) -> Memory:
        key = settings.summary_key
        if not key:
            # Where it matters: several workers, or a front (fronts usually come several). On a
            # single local process it is a debug line: a restart makes summaries unsigned.
            several = int(os.environ.get("MNEMO_WORKERS", "1") or 1) > 1 or settings.engine_url
            log.log(logging.WARNING if several else logging.DEBUG,
                    "MNEMO_SUMMARY_KEY is not set: summaries are signed with a random key of "
                    "this process, so a summary made by another worker, another host or "
                    "before a restart arrives unsigned (plain context; refused by locked "
                    "presets). Set one shared key for the whole deployment.")
            key = secrets.token_hex(32)
        return cls(signer=Signer(key.encode()), recall=Recall())
