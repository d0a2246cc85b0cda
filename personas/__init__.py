"""The personas and courts shipped with courtroom (YAML files), installed as `courtroom.shipped`."""
