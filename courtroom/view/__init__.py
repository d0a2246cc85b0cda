"""`courtroom view`: a local web app over a folder of runs, behind a token made at each start
(docs/view.md)."""
