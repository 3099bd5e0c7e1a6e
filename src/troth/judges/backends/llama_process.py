"""The local LLM's child process, seen from the caller: start it, ask it, and survive its crash.

One :class:`LlamaProcess` runs one model (one GGUF file and window) in
:mod:`troth.judges.backends.llama_worker`; judges of the same model share it, and calls are
serialised. When the process dies while answering (llama.cpp crashed), that call raises
:class:`~troth.errors.JudgeCrashedError` naming the model and the signal, and the next call starts
a new process. After ``restarts`` restarts, one more crash leaves the model broken: every later
call raises :class:`~troth.errors.JudgeBrokenError` at once.

``TROTH_LLM_WORKER`` replaces the worker's command (default: this Python running the worker
module), e.g. to pin it to cores with ``taskset -c 0 python -m troth.judges.backends.llama_worker``;
the model's path, window and name are appended to it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

from troth.errors import (
    ConfigError,
    ContextTooLongError,
    JudgeBrokenError,
    JudgeCrashedError,
    JudgeError,
    ModelLoadError,
)

ENV_WORKER = "TROTH_LLM_WORKER"
DEFAULT_RESTARTS = 2
"""Crashes survived by restarting the process; the next one leaves the model broken."""
_RAISED: dict[str, type[Exception]] = {
    "ContextTooLongError": ContextTooLongError,
    "ModelLoadError": ModelLoadError,
    "ValueError": ValueError,
}
"""The worker's errors raised as themselves in the caller; any other is a JudgeError."""


DEFAULT_WORKER = (sys.executable, "-m", "troth.judges.backends.llama_worker")


def worker_command() -> tuple[str, ...]:
    """``$TROTH_LLM_WORKER`` split like a shell, or :data:`DEFAULT_WORKER` (this Python running the
    worker module)."""
    custom = os.environ.get(ENV_WORKER, "").strip()
    return tuple(shlex.split(custom)) if custom else DEFAULT_WORKER


def signal_name(returncode: int) -> str:
    """``SIGSEGV`` for -11; ``exit status 3`` for a process that exited by itself."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"


@dataclass(frozen=True)
class WorkerSpec:
    """What a process runs: the worker command, the model file, its window and the model's name."""

    command: tuple[str, ...]
    path: str
    n_ctx: int
    model_id: str
    restarts: int = DEFAULT_RESTARTS


class LlamaProcess:
    """One model's child process, restarted after a crash until the budget is spent."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.crashes = 0
        self.last_crash: str | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    @property
    def broken(self) -> bool:
        return self.crashes > self.spec.restarts

    @property
    def pid(self) -> int | None:
        """The running process's id (None before the first call and after a crash)."""
        return self._proc.pid if self._proc is not None else None

    def call(self, op: str, args: dict[str, Any]) -> Any:
        """The worker's answer to one operation; its error raised here; a crash as JudgeCrashedError."""
        with self._lock:
            if self.broken:
                raise self._broken()
            proc = self._proc or self._start()
            line = self._exchange(proc, json.dumps({"op": op, "args": args}))
            if line is None:
                raise self._crashed(proc)
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            reply = {}
        if not isinstance(reply, dict) or not ({"ok", "error"} & reply.keys()):
            raise JudgeError(
                f"{self.spec.model_id}'s process answered {line[:200]!r}, not a worker reply", model=self.spec.model_id
            )
        if "error" in reply:
            kind, message = reply["error"]["type"], reply["error"]["message"]
            raised = _RAISED.get(kind)
            if raised is not None:
                raise raised(message)
            raise JudgeError(f"{self.spec.model_id} failed: {kind}: {message}", model=self.spec.model_id)
        return reply["ok"]

    def _start(self) -> subprocess.Popen[str]:
        command = [*self.spec.command, self.spec.path, str(self.spec.n_ctx), self.spec.model_id]
        try:
            self._proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1
            )
        except OSError as exc:
            raise ConfigError(f"cannot start the local model's process ({shlex.join(command)}): {exc}") from exc
        return self._proc

    @staticmethod
    def _exchange(proc: subprocess.Popen[str], request: str) -> str | None:
        """Send one request line and read the answer line; None when the process died."""
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(request + "\n")
            proc.stdin.flush()
            return proc.stdout.readline() or None
        except OSError:  # BrokenPipeError among them
            return None

    def _crashed(self, proc: subprocess.Popen[str]) -> JudgeCrashedError:
        """The process answered nothing: end it, count the crash, and say what happened."""
        self._proc = None
        _end(proc, timeout=10)
        self.crashes += 1
        how = signal_name(proc.returncode)
        self.last_crash = how
        name, restarts = self.spec.model_id, self.spec.restarts
        if self.broken:
            then = f"the judge is now broken ({self.crashes} crashes; restart budget {restarts})"
        else:
            then = f"a new process answers the next call (restart {self.crashes} of {restarts})"
        message = f"{name} crashed ({how}) while answering; {then}"
        return JudgeCrashedError(message, model=name, returncode=proc.returncode, signal=how)

    def _broken(self) -> JudgeBrokenError:
        name = self.spec.model_id
        return JudgeBrokenError(
            f"{name} is broken: its process crashed {self.crashes} times (last: {self.last_crash}), more than its "
            f"restart budget of {self.spec.restarts}; no call is sent to it again. A native crash usually means a "
            "llama.cpp build for another CPU: reinstall it portably (see docs/getting-started.md, Install)",
            model=name,
        )

    def close(self) -> None:
        """Close the worker's input (it exits when its input ends) and wait for it."""
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None:
            _end(proc, timeout=30)


def _end(proc: subprocess.Popen[str], timeout: float) -> None:
    """Close a worker's input (it exits when its input ends) and wait for it; kill it if it lives on."""
    with contextlib.suppress(OSError):
        assert proc.stdin is not None
        proc.stdin.close()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


_processes: dict[WorkerSpec, LlamaProcess] = {}
_processes_lock = threading.Lock()


def process_for(spec: WorkerSpec) -> LlamaProcess:
    """The process every judge of this model shares (started at its first call)."""
    with _processes_lock:
        if spec not in _processes:
            _processes[spec] = LlamaProcess(spec)
        return _processes[spec]


@atexit.register
def close_all() -> None:
    """End every worker before the interpreter exits."""
    with _processes_lock:
        processes = list(_processes.values())
        _processes.clear()
    for process in processes:
        process.close()
