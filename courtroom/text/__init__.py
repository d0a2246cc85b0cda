"""The ground floor: how courtroom reads text, each meaning written once; nothing here imports the rest of
courtroom."""
