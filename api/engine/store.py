"""Files the loader keeps between starts in the cache directory (``MNEMO_CACHE_DIR``): the
quantized layers of a local model (``quantize``), named and tagged so that a stale file is
never read, written atomically, and cleaned up after killed starts.

A store is named after the weights files as they are (``file_tag``), the mode, torch's
version, the CPU's instruction set (torch packs int4 differently for AVX2 and AVX-512, with the
same shapes) and the store's format; it carries that tag inside, so a file copied or renamed
from elsewhere is refused. It is not checksummed: like the converted model beside it, it is
trusted once written. A new store replaces the older stores of the same model and mode.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

log = logging.getLogger("mnemo.engine")

FORMAT = "1"  # bump when the stored buffers change meaning: older stores are then not read
STALE_SECONDS = 600  # a temporary directory this old was left by a start that was killed


def file_tag(*files: Path, extra: str = "") -> str:
    """A short name for these files as they are: where they lie, their sizes, modification
    and change times and inodes. The change time moves on every write and cannot be set back
    (``cp -p`` and ``rsync -a`` restore the modification time only). Hashing the contents
    instead would cost a start a second per GB; hashing only parts of them let two models that
    differ in the middle share a name."""
    stamps = []
    for f in files:
        st = f.stat()
        stamps.append(f"{f.resolve()}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}")
    return hashlib.sha256(f"{':'.join(stamps)}:{extra}".encode()).hexdigest()[:16]


@contextmanager
def staging(directory: Path, prefix: str) -> Iterator[Path]:
    """A temporary directory in ``directory`` (named ``prefix``...) to write an entry in, so
    that a rename publishes it whole (several workers may write at once); removed afterwards
    whatever happened. What killed starts left under ``prefix`` is removed first."""
    directory.mkdir(parents=True, exist_ok=True)
    remove_stale(directory, prefix)
    tmp = Path(tempfile.mkdtemp(dir=directory, prefix=prefix))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def remove_stale(directory: Path, prefix: str) -> None:
    """Remove what starts killed while writing left in ``directory`` (entries named
    ``prefix``..., older than STALE_SECONDS: a younger one may be another worker's)."""
    for old in directory.glob(prefix + "*"):
        try:
            if time.time() - old.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue


@dataclass(frozen=True)
class Store:
    """Where one model's quantized layers in one mode are kept."""

    path: Path
    tag: str
    source: str  # the model directory, to find this model's older stores
    mode: str

    @classmethod
    def of(cls, source: Path, mode: str, cache_dir: Path) -> Store | None:
        """The store of the model in directory ``source``; None if it has no safetensors."""
        files = sorted(source.glob("*.safetensors")) if source.is_dir() else []
        if not files:
            return None
        capability = torch.backends.cpu.get_cpu_capability()
        tag = file_tag(*files, extra=f"{mode}:{torch.__version__}:{capability}:{FORMAT}")
        return cls(cache_dir / f"quantized-{mode}-{tag}.safetensors", tag,
                   str(source.resolve()), mode)

    def read(self) -> dict[str, torch.Tensor]:
        """The stored tensors, or nothing if there are none made for this tag."""
        remove_stale(self.path.parent, ".quantized-")
        if not self.path.is_file():
            return {}
        try:
            with safe_open(self.path, "pt") as f:
                if (f.metadata() or {}).get("mnemo_store") != self.tag:
                    log.warning("quantized weights in %s were made for another model or "
                                "machine; quantizing again", self.path)
                    return {}
            return load_file(self.path)
        except Exception as exc:  # a damaged file: quantize again and replace it
            log.warning("quantized weights in %s not readable (%s); quantizing again",
                        self.path, exc)
            return {}

    def write(self, tensors: dict[str, torch.Tensor]) -> None:
        """Write in a temporary directory beside the target and rename (several workers may
        write at once), then remove this model's older stores of this mode. A failure (a full
        or read-only disk) only costs the next start the time of quantizing."""
        try:
            with staging(self.path.parent, ".quantized-") as tmp:
                save_file({k: t.contiguous() for k, t in tensors.items()}, tmp / self.path.name,
                          metadata={"mnemo_store": self.tag, "source": self.source})
                os.replace(tmp / self.path.name, self.path)
        except Exception as exc:  # safetensors raises its own error type for a full disk
            log.warning("could not keep the weights in %s: %s", self.path, exc)
            return
        for other in self.path.parent.glob(f"quantized-{self.mode}-*.safetensors"):
            if other != self.path and self._same_source(other):
                other.unlink(missing_ok=True)

    def _same_source(self, other: Path) -> bool:
        try:
            with safe_open(other, "pt") as f:
                return (f.metadata() or {}).get("source") == self.source
        except Exception:
            return False
