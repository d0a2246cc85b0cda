"""Text that others wrote, shown on a terminal: a case id, a source, a reason, a server's error, a model name.

Rich reads `[...]` as markup, and a terminal obeys the control characters it is sent, so every string a
dataset, run directory, court file or server supplied goes through `shown` when printed inside markup, or
`visible` into a `rich.text.Text`: control characters become their visible pictures (ESC is `␛`), one for one,
so offsets hold."""

from __future__ import annotations

from rich.markup import escape

_PICTURES = {code: 0x2400 + code for code in range(0x20) if chr(code) not in "\t\n"}
_PICTURES[0x7F] = 0x2421  # ␡
# C1 controls (0x9B opens a sequence like ESC [)
_PICTURES.update({code: 0xFFFD for code in range(0x80, 0xA0)})
_PICTURES.update({code: 0xFFFD for code in (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))})
"""Control characters (but tab and newline) and bidirectional overrides, and what each is shown as."""


def visible(text: object) -> str:
    """`text` with every control character (but tab and newline) replaced by its visible picture."""
    return str(text).translate(_PICTURES)


def shown(text: object) -> str:
    """`text` for a string rich reads as markup: control characters made visible, markup escaped."""
    return escape(visible(text))
