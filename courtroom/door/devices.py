"""Where a model in this process computes, and in what type: the devices this machine has (`check_device`,
`pick_device`), the dtype `auto` resolves to on one (`dtype_choice`: bfloat16 where the device computes in
it), and the CPU threads torch uses. torch is imported inside the functions only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from courtroom.errors import ConfigError


def check_device(device: str) -> None:
    """Refuse (`ConfigError`) a device this machine does not have, before a run directory is made or a model
    loaded."""
    kind, _, index = device.partition(":")
    if kind in ("auto", "cpu"):
        return
    import torch

    module = {"cuda": torch.cuda, "xpu": getattr(torch, "xpu", None), "mps": torch.backends.mps}[kind]
    count = module.device_count() if module is not None and module.is_available() and kind != "mps" else \
        int(module is not None and module.is_available())
    if count == 0:
        raise ConfigError(f"--device {device}: torch sees no {kind} device on this machine (torch "
                          f"{torch.__version__}); use --device cpu, or auto")
    if index and int(index) >= count:
        raise ConfigError(f"--device {device}: torch sees {count} {kind} device{'s' if count > 1 else ''} "
                          f"({kind}:0{f' to {kind}:{count - 1}' if count > 1 else ''})")


def pick_device(device: str = "auto") -> str:
    """`auto` is CUDA when torch sees a GPU (Ray sets CUDA_VISIBLE_DEVICES per actor), else CPU."""
    return device if device != "auto" else ("cuda" if cuda_available() else "cpu")


def pick_dtype(device: str, dtype: str = "auto") -> Any:
    """The torch dtype a model computes in (`dtype_choice`; docs/performance.md, bfloat16 on a CPU)."""
    import torch

    return getattr(torch, dtype_choice(device, dtype)[0])


def dtype_choice(device: str, dtype: str = "auto") -> tuple[str, str]:
    """The dtype a model on `device` (resolved, not `auto`) computes in, and why (`auto` resolved on this
    machine)."""
    if dtype != "auto":
        return dtype, "asked for (--dtype)"
    if device.startswith("cuda"):
        import torch

        if native_bf16(torch.device(device)):
            return "bfloat16", "auto: the GPU computes in bfloat16 (compute capability 8 or newer)"
        return "float16", "auto: the GPU only emulates bfloat16 (compute capability under 8)"
    if device == "cpu" and cpu_computes_bf16():
        return "bfloat16", f"auto: the CPU computes in bfloat16 ({' or '.join(BF16_FLAGS)})"
    return "float32", "auto: the device does not compute in bfloat16 natively"


BF16_FLAGS = ("avx512_bf16", "amx_bf16")
"""The CPU flags (Linux `/proc/cpuinfo`) of instructions that compute in bfloat16: AVX-512 BF16, AMX."""


def cpu_computes_bf16(cpuinfo: str | Path = "/proc/cpuinfo") -> bool:
    """Whether this CPU's flags name AVX-512 BF16 or AMX; False where they cannot be read (not Linux)."""
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    flags = {flag for line in text.splitlines() if line.startswith("flags")
             for flag in line.partition(":")[2].split()}
    return any(flag in flags for flag in BF16_FLAGS)


def native_bf16(device: Any) -> bool:
    """Whether this CUDA device computes in bfloat16 natively (compute capability 8 or newer; T4, V100 emulate
    it)."""
    import torch

    index = device.index if device.index is not None else torch.cuda.current_device()
    return torch.cuda.get_device_capability(index)[0] >= 8


def cuda_available() -> bool:
    """Whether torch sees a CUDA device (False when torch is missing)."""
    try:
        import torch
    except ImportError:  # pragma: no cover
        return False
    return torch.cuda.is_available()


def set_threads(threads: int) -> None:
    """How many CPU threads torch computes with in this process (a Ray worker's share of the cores)."""
    import torch

    torch.set_num_threads(threads)
