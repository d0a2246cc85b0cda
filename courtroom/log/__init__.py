"""Run directories and what is read from them: the store, replay, rejudge, audit and pooled runs."""
