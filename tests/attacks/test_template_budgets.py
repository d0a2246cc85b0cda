"""Attacks 4 and 10 (template budgets). A 100-byte template passed every size check and then exhausted the memory:
`{% set a=['x'*19000]*19000 %}{% set b=[a]*19000 %}{{ b }}` (a list of 19,000 references holds 19,000 copies of
its item's text when written out); a filter counted as one step however much it walked, so a template that sorted
the same list in every turn of a loop ran for a minute within every limit. Values are now measured through every
level before they are made, and filters, tests, comparisons and string methods count the items they walk."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from courtroom.court.sandbox import render_template
from courtroom.errors import TemplateLimitError

MEMORY = 1 << 30
"""The address space the processes of these tests may take: a bomb that gets past the sandbox fails, not the machine."""

CASE = {"case": {"question": "Q?", "answer": "A.", "context": ["C."]}}


def nested(levels: int, opening: str, closing: str, name: str = "v{}") -> str:
    """A template whose values nest `levels` times, ten references of the one before each time."""
    parts = ["{% set v0 = 'x' * 15000 %}"]
    for level in range(1, levels + 1):
        item = name.format(level - 1)
        parts.append(f"{{% set v{level} = {opening}{', '.join(item.replace('#', str(i)) for i in range(10))}{closing} %}}")
    return "".join(parts)


MEMORY_BOMBS = {
    "repeated-lists": "{% set a=['x'*19000]*19000 %}{% set b=[a]*19000 %}{{ b }}",
    "list-literals": nested(3, "[", "]") + "{{ v3 }}",
    "dict-literals": nested(3, "{", "}", "'#': v{}") + "{{ v3|tojson|length }}",
    "tuple-literals": nested(3, "(", ")") + "{{ v3|string|length }}",
    "upper-of-a-structure": nested(3, "[", "]") + "{{ v3|upper|length }}",
    "percent-mapping": "{{ ('%(a)s' * 3000) % {'a': 'x' * 19000} }}",
    "format-repeating-an-argument": "{{ ('{0}' * 5000).format('x' * 19000) }}",
    "format-filter": "{{ ('%(a)s' * 3000)|format(a='x' * 19000) }}",
    "translate": "{% set s = 'x' * 15000 %}{{ s.translate({120: s}) }}",
    "indented-json": "{% set ns = namespace(x=['x']) %}{% for i in range(45) %}{% set ns.x = [ns.x, 'x'] %}{% endfor %}"
                     "{% set wide = [ns.x] * 140 %}{{ wide|tojson(indent=100) }}",
    "nesting": "{% set ns = namespace(x=[]) %}{% for i in range(5000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}",
}

_MEASURE = textwrap.dedent("""
    import json, resource, sys, tracemalloc
    resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
    from courtroom.court.sandbox import render_template
    tracemalloc.start()
    found = {{}}
    for name, template in json.loads(sys.argv[1]).items():
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            render_template(template, {case})
            outcome = ["rendered", ""]
        except BaseException as exc:
            outcome = [type(exc).__name__, str(exc)[:300]]
        found[name] = outcome + [tracemalloc.get_traced_memory()[1] - base]
    print(json.dumps(found))
""")


@pytest.fixture(scope="module")
def bombs() -> dict[str, list]:
    """How each bomb ended and the memory it took, rendered in a process of at most `MEMORY` bytes."""
    script = _MEASURE.format(memory=MEMORY, case=CASE)
    done = subprocess.run([sys.executable, "-c", script, json.dumps(MEMORY_BOMBS)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", MEMORY_BOMBS)
def test_a_value_whose_text_would_fill_the_memory_is_refused_before_it_is_made(bombs: dict[str, list],
                                                                                name: str) -> None:
    error, message, peak = bombs[name]
    assert error == "TemplateLimitError", (error, message)
    assert "limit" in message
    assert peak < 8 * 2**20, f"{name} took {peak:,} bytes before it was refused"


def courtroom_within_memory(*args: str) -> tuple[int, str]:
    """Run the `courtroom` command in a process of at most `MEMORY` bytes: its exit status and output."""
    script = (f"import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY})); "
              "from courtroom.cli import app; sys.argv = ['courtroom', *sys.argv[1:]]; app()")
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "1000", "PATH": ""})
    output = " ".join((done.stdout + done.stderr).split())
    assert "Traceback" not in output and "MemoryError" not in output, output
    return done.returncode, output


def test_the_reviewers_bomb_is_refused_by_personas_validate(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text("name: bomb\nrole: judge\ndescription: A judge.\ninstructions: \"" + MEMORY_BOMBS["repeated-lists"]
                    + "\"\n")
    code, output = courtroom_within_memory("personas", "validate", str(path))
    assert code == 1 and f"{path}:4" in output and "list repeated 19,000 times" in output, output
    assert "limited to" in output


def test_the_reviewers_bomb_in_a_handed_over_run_is_refused_by_audit_verify(tmp_path: Path) -> None:
    from courtroom.log.manifest import RunSpec
    from courtroom.runs.start import start_run

    run = tmp_path / "handed-over"
    start_run(RunSpec.build("examples", judge="courtroom", court="full", limit=2), run).close()
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["judge"]["personas"]["judge"][0]["instructions"] = MEMORY_BOMBS["repeated-lists"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    code, output = courtroom_within_memory("audit", "verify", str(run))
    assert code == 2 and f"{run / 'manifest.json'}: field judge.personas.judge.0.instructions:" in output, output
    assert "list repeated 19,000 times" in output


LOOP = "{% for j in range(100) %}{% for i in range(1000) %}BODY{% endfor %}{% endfor %}"
WALKS = {
    "sort": "{% if words|sort|first %}{% endif %}",
    "select": "{% if words|select('eq', 'zz')|first is defined %}{% endif %}",
    "unique": "{% if words|unique|list %}{% endif %}",
    "in": "{% if 'zz' in words %}{% endif %}",
    "is-in": "{% if 'zz' is in words %}{% endif %}",
    "equal": "{% if words == words[:] %}{% endif %}",
    "wordcount": "{% if text|wordcount %}{% endif %}",
    "join": "{% if words|join|length %}{% endif %}",
    "max": "{% if words|max %}{% endif %}",
    "count": "{% if text.count('b') %}{% endif %}",
    "dictsort": "{% if table|dictsort|first %}{% endif %}",
    "slice": "{% if words[::-1]|first %}{% endif %}",
}
SETUP = "{% set text = 'ab ' * 6600 %}{% set words = text.split() %}{% set table = dict.fromkeys(words[:3000]) %}"


@pytest.mark.timeout(20)
@pytest.mark.parametrize("body", WALKS.values(), ids=WALKS.keys())
def test_a_loop_over_a_walk_of_a_long_list_is_refused_by_the_step_budget(body: str) -> None:
    """Each of these ran for 30 s to 2 min before (a few ms a turn, 100,000 turns, one step each)."""
    with pytest.raises(TemplateLimitError, match=r"over the limit of [\d,]+ steps"):
        render_template(SETUP + LOOP.replace("BODY", body), CASE)


def test_a_walk_counts_its_items() -> None:
    """A sort of a list of 6,600 words counts 6,600 steps or more: 4 fit the budget of 100,000 steps, 16 do not
    (they were 16 steps before)."""
    sorts = "{% for i in range(N) %}{% if words|sort|first %}{% endif %}{% endfor %}"
    setup = "{% set words = ('ab ' * 6600).split() %}"
    render_template(setup + sorts.replace("N", "4"), CASE)
    with pytest.raises(TemplateLimitError, match="steps"):
        render_template(setup + sorts.replace("N", "16"), CASE)


def test_a_template_that_reads_the_case_still_renders() -> None:
    context = [f"passage {n}: " + "word " * 200 for n in range(50)]
    template = ("{% for passage in case.context %}[{{ loop.index }}] {{ passage|truncate(80) }}\n{% endfor %}"
                "{% if case.answer in case.context %}quoted{% endif %}{{ case.context|join(' ')|wordcount }}")
    text = render_template(template, {"case": {"question": "Q?", "answer": "A.", "context": context}})
    assert text.startswith("[1] passage 0: word") and text.endswith(str(50 * 202))
