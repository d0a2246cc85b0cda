"""YAML files validated by pydantic, with errors that name the file, the line and the field."""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from courtroom.errors import ConfigError

ModelT = TypeVar("ModelT", bound=BaseModel)


class StrictConstructor(yaml.constructor.SafeConstructor):
    """YAML's safe types, refusing a key written twice in one mapping (YAML would keep the last silently) and
    an integer Python does not read (over 4,300 digits: a ValueError), naming the line."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"key {key!r} appears twice in one "
                                                                    "mapping (first on line "
                                                                    f"{seen[key]})", key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        try:
            return super().construct_yaml_int(node)
        except ValueError as exc:
            raise yaml.constructor.ConstructorError(None, None, f"an integer of {len(node.value)} "
                                                                "characters, more than courtroom reads "
                                                                f"({exc})", node.start_mark) from None


StrictConstructor.add_constructor("tag:yaml.org,2002:int", StrictConstructor.construct_yaml_int)

if yaml.__with_libyaml__:  # libyaml's parser: the same events as PyYAML's, several times faster
    class _Parser(yaml.cyaml.CParser):  # type: ignore[misc]
        pass
else:  # pragma: no cover - PyYAML built without libyaml
    class _Parser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):  # type: ignore[no-redef]
        def __init__(self, text: str) -> None:
            yaml.reader.Reader.__init__(self, text)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)


class PlainLoader(yaml.composer.Composer, _Parser, StrictConstructor, yaml.resolver.Resolver):
    """A safe loader that composes a document once (its data and its `Locator` are made of the same nodes),
    refusing anchors and aliases (persona and court files need none, and nested aliases expand exponentially:
    a "billion laughs" file) and what `StrictConstructor` refuses."""

    def __init__(self, text: str) -> None:
        _Parser.__init__(self, text)
        yaml.composer.Composer.__init__(self)
        StrictConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        if (anchor := getattr(event, "anchor", None)) is not None:  # an alias names the anchor it repeats
            alias = isinstance(event, yaml.AliasEvent)
            what = f"alias *{anchor} is not allowed in courtroom files" if alias else \
                f"anchor &{anchor} is not allowed in courtroom files (nor are aliases)"
            raise yaml.composer.ComposerError(None, None, f"{what}: write the value out", event.start_mark)
        return super().compose_node(parent, index)


class Locator:
    """Line numbers of the keys and items of a YAML document (its text, or its `node` tree), by path; walked
    the first time a line is asked for (to name where an error is)."""

    def __init__(self, text: str = "", node: yaml.Node | None = None) -> None:
        if node is None and text:
            with suppress(yaml.YAMLError, RecursionError):
                node = PlainLoader(text).get_single_node()
        self._node, self._lines = node, dict[tuple[Any, ...], int]()

    def _walk(self, node: yaml.Node, path: tuple[Any, ...]) -> None:
        self._lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                child = path + (key.value,)
                self._walk(value, child)
                self._lines[child] = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._walk(item, path + (index,))

    def line(self, path: Sequence[Any]) -> int | None:
        """The line of the deepest known part of `path`."""
        if self._node is not None:
            node, self._node = self._node, None
            self._walk(node, ())
        prefixes = (tuple(path[:n]) for n in range(len(path), -1, -1))
        return next((self._lines[p] for p in prefixes if p in self._lines), None)


def read_yaml(path: str | Path, error: type[ConfigError] = ConfigError) -> tuple[dict[str, Any], Locator]:
    """Read a YAML mapping, composed once; a syntax error or a non-mapping names the file and line."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror})") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = raw.count(b"\n", 0, exc.start) + 1, exc.start - raw.rfind(b"\n", 0, exc.start)
        raise error(f"{path}:{line}: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column "
                    f"{column})") from None
    loader = PlainLoader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise error(f"{where}: invalid YAML: {problem}") from exc
    except RecursionError:
        raise error(f"{path}: invalid YAML: nested deeper than the YAML reader goes") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise error(f"{path}: expected a mapping of fields at the top level, got {type(data).__name__}")
    return data, Locator(node=node)


MAX_ERRORS = 20
"""The validation errors of a file named one by one; the rest are counted."""
_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxlevel = 120, 120, 8, 8, 3


def describe_errors(path: str | Path, exc: ValidationError, locator: Locator | None,
                    prefix: Sequence[Any] = ()) -> str:
    """One line per validation error (the first `MAX_ERRORS`): file:line: field (under `prefix`): what was
    expected."""
    lines, errors = [], exc.errors()
    for e in errors[:MAX_ERRORS]:
        loc = [*prefix,
               *(part for part in e["loc"] if not (isinstance(part, str) and part.startswith("function-")))]
        field = ".".join(map(str, loc)) or "<top level>"
        line = locator.line(loc) if locator else None
        where = f"{path}:{line}" if line else str(path)
        got = (f" (got {_SHORT.repr(e['input'])})" if e["type"] not in ("missing",)
               and not isinstance(e["input"], dict) else "")
        lines.append(f"{where}: field {field}: {e['msg']}{got}")
    return "\n".join(lines + [f"{path}: and {len(errors) - MAX_ERRORS} more errors"]
                     * (len(errors) > MAX_ERRORS))


def validate_as(model: type[ModelT], data: Any, source: str | Path, error: type[ConfigError] = ConfigError, *,
                locator: Locator | None = None, field: Sequence[Any] = (),
                context: dict[str, Any] | None = None
                ) -> ModelT:
    """`data` validated as `model`, else `error` naming `source`, the line (with a `locator`) and the field
    (under `field`, for a value inside a larger document: a run manifest's copy of a persona)."""
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise error(describe_errors(source, exc, locator, prefix=field)) from exc


def load_model_file(path: str | Path, model: type[ModelT], error: type[ConfigError] = ConfigError,
                    context: dict[str, Any] | None = None) -> ModelT:
    """Read a YAML file and validate it as `model`, raising `error` with file, line and field."""
    data, locator = read_yaml(path, error)
    return validate_as(model, data, path, error, locator=locator, context=context)
