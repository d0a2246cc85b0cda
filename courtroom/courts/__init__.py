"""Court files, owned in one place: found and read through `extends` (`files`), brought up to date and their
retired settings refused (`migrations`), loaded as the `Clerk` or a `Court` (`load`, the one loader) and
written from a recorded court (`write`). The format is frozen at court 17 (docs/development.md)."""

from courtroom.courts.files import (
           CourtFile,
           court_json_schema,
           courts_dir,
           find_court_file,
           parse_override,
           read_court,
)
from courtroom.courts.load import Courtroom, court_from_config, load_court

__all__ = ["CourtFile", "Courtroom", "court_from_config", "court_json_schema", "courts_dir",
           "find_court_file", "load_court", "parse_override", "read_court"]
