"""Text that others wrote, shown on a terminal: a case id, a source, a reason, a server's error, a model name.

Rich reads `[...]` in a printed string as markup: an id of `[/]` stops the command (`MarkupError`), an id of
`[link=https://...]` becomes a link. And a terminal obeys the control characters it is sent: an escape sequence
in an answer could recolour, retitle or clear the screen, a carriage return or a bidirectional override could
hide what a line says. So every string a dataset, a run directory, a court file or a model server supplied goes
through `shown` when it is printed inside markup (an f-string given to `print`, a table cell, a title), or
`visible` when it goes into a `rich.text.Text` (which reads no markup). Control characters become their visible
pictures (ESC is `␛`), one character for one, so offsets into the text stay right.
"""

from __future__ import annotations

from rich.markup import escape

_PICTURES = {code: 0x2400 + code for code in range(0x20) if chr(code) not in "\t\n"}
_PICTURES[0x7F] = 0x2421  # ␡
_PICTURES.update({code: 0xFFFD for code in range(0x80, 0xA0)})  # C1 controls (0x9B opens a sequence like ESC [)
_PICTURES.update({code: 0xFFFD for code in (0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))})
"""Control characters (but tab and newline) and bidirectional overrides, and what each is shown as."""


def visible(text: object) -> str:
    """`text` with every control character (but tab and newline) replaced by its visible picture."""
    return str(text).translate(_PICTURES)


def shown(text: object) -> str:
    """`text` for a string rich reads as markup: control characters made visible, markup escaped."""
    return escape(visible(text))
