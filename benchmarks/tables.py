"""Markdown tables of the benchmark results (benchmarks/results/*.json), for docs/performance.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _load(root: Path, name: str) -> Any:
    path = root / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _row(*cells: Any) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def door_table(door: dict[str, Any]) -> list[str]:
    lines = [f"**The model door** (`python benchmarks/bench_door.py`, {door['model']} model, "
             f"{door.get('torch_threads', '?')} torch threads)", "",
             _row("measure", "xgrammar", "llguidance", "outlines_core", "target"), _row(*["---"] * 5)]
    engines = ("xgrammar", "llguidance", "outlines_core")
    overhead, compilation = door["constraint_overhead"], door["compilation"]
    lines.append(_row("constrained / unconstrained time per token",
                      *(f"{overhead[e]['ratio']:.3f}" for e in engines), "≤ 1.05"))
    lines.append(_row("compilation cold (s)", *(f"{compilation[e]['cold_s']:.2f}" for e in engines), ""))
    lines.append(_row("compilation cached / cold", *(f"{compilation[e]['cached_over_cold']:.1e}" for e in engines),
                      "≤ 0.05"))
    batching = door["batching"]
    lines += ["", _row("measure", "value", "target"), _row("---", "---", "---"),
              _row(f"batch of {batching['cases']} cases vs one at a time (throughput)",
                   f"{batching['throughput_ratio']:.2f}×", "≥ 3×")]
    if "decode_throughput_ratio" in batching:
        lines.append(_row("… of which decoding alone (prefill is compute-bound on CPU)",
                          f"{batching['decode_throughput_ratio']:.2f}×", ""))
    if "load" in door:
        load = door["load"]
        lines.append(_row("default model: first load (GGUF dequantization) / cached load (s)",
                          f"{load['first_load_s']:.1f} / {load['cached_load_s']:.2f}", "cached ≤ 2 s"))
        if "library_imports_s" in load:
            lines.append(_row("torch + transformers imports, once per process (s)", f"{load['library_imports_s']:.1f}", ""))
    return lines


def court_table(reports: list[dict[str, Any]]) -> list[str]:
    models = [r["model"] for r in reports]
    lines = [f"**The court** (`python benchmarks/bench_court.py --model default --model qwen2.5-coder-0.5b "
             f"--cases {reports[0]['cases']}`, HaluBench dev, court `{reports[0]['court']}`)", "",
             _row("measure", *models, "target"), _row(*["---"] * (len(models) + 2))]

    def each(fn: Any) -> list[str]:
        return [fn(r) for r in reports]

    lines.append(_row("unique prompt tokens per case", *each(lambda r: f"{r['tokens']['unique_per_case']:.0f}"), ""))
    lines.append(_row("prompt tokens computed / unique", *each(lambda r: f"{r['tokens']['computed_over_unique']:.2f}"),
                      "≤ 1.3"))
    lines.append(_row("same, a naive court (every prompt in full)",
                      *each(lambda r: f"{r['tokens']['naive_over_unique']:.2f}"), ""))
    lines.append(_row("court s/case · rails s/case", *each(
        lambda r: f"{r['wall']['court_s_per_case']:.1f} · {r['wall']['rails_s_per_case']:.1f}"), ""))
    lines.append(_row("court wall time / rails wall time", *each(lambda r: f"{r['wall']['court_over_rails']:.2f}"),
                      "≤ 3"))
    lines.append(_row("lockstep batch of 8 vs one case at a time (cases/min)", *each(
        lambda r: f"{r['lockstep']['ratio']:.2f}× ({r['lockstep']['window8_cases_per_min']:.1f} vs "
                  f"{r['lockstep']['window1_cases_per_min']:.1f})"), "≥ 3×"))
    lines.append(_row("mean rounds per charge (limit)", *each(
        lambda r: f"{r['early_stopping']['mean_rounds_per_charge']:.2f} ({r['early_stopping']['max_rounds']})"), ""))
    lines.append(_row("trial tokens saved by early stopping", *each(
        lambda r: f"{100 * r['early_stopping']['saved_share']:.0f}%"), ""))
    return lines


def ray_table(ray: dict[str, Any]) -> list[str]:
    return [f"**Ray** (`python benchmarks/bench_ray.py --cases {ray['cases']}`, judge `{ray['judge']}`, "
            f"{ray['model']} model)", "",
            _row("measure", "value", "target"), _row("---", "---", "---"),
            _row("local runner (s)", f"{ray['local_s']:.1f}", ""),
            _row("Ray, one worker (s)", f"{ray['ray_1_worker_s']:.1f}", ""),
            _row("Ray overhead vs local", f"{100 * ray['ray_overhead']:+.1f}%", "≤ 10%"),
            _row(f"two workers (1 thread each) vs one ({ray.get('threads', 2)} thread(s))",
                 f"{ray['two_over_one_speedup']:.2f}×", "report"),
            _row("same verdicts local vs Ray", str(ray["same_verdicts_local_vs_ray1"] and
                                                     ray["same_verdicts_local_vs_ray2"]), "True"),
            _row("driver cost per chunk of 8 (scripted backend, ms)", f"{ray['driver_ms_per_chunk']:.0f}", "")]


def audit_table(audit: dict[str, Any]) -> list[str]:
    def cell(m: dict[str, float]) -> str:
        cpu = f", {m['median_cpu_s']:.2f} s CPU" if "median_cpu_s" in m else ""
        return f"{m['median_s']:.2f} s{cpu}"

    return [f"**Audit at scale** (`python benchmarks/bench_audit.py --cases {audit['cases']}`, whole commands, "
            "median wall time)", "",
            _row("command", "time", "target"), _row("---", "---", "---"),
            _row("`courtroom audit RUN_DIR` (summary with bootstrap intervals)", cell(audit["summary"]), "≤ 2 s"),
            _row("`courtroom audit show RUN_DIR CASE`", cell(audit["show"]), "≤ 0.5 s"),
            _row("`courtroom audit list RUN_DIR --wrong`", cell(audit["list_wrong"]), "")]


def served_table(served: dict[str, Any]) -> list[str]:
    lines = [f"**Served vs in process** (`python benchmarks/bench_served.py --model {served['model']} --cases "
             f"{served['cases']}`, HaluBench dev, the same GGUF: vLLM CPU build in bfloat16 vs transformers in float32)",
             "", _row("judge", "served cases/min", "in-process cases/min", "served / in process", "verdict agreement",
                      "parse failures over HTTP", "target"), _row(*["---"] * 7)]
    for judge in ("court", "rails"):
        r = served[judge]
        lines.append(_row(judge, f"{r['served_cases_per_min']:.1f}", f"{r.get('in_process_cases_per_min', 0):.1f}",
                          f"{r['speedup']:.2f}×" if "speedup" in r else "-",
                          f"{100 * r['verdict_agreement']:.0f}%" if "verdict_agreement" in r else "-",
                          r["served_parse_failures"], "≥ 2×, ≥ 90%, 0"))
    return lines


def report_table(report: dict[str, Any]) -> list[str]:
    sizes = " ".join(str(r["cases"]) for r in report["sizes"])
    lines = [f"**The HTML report at scale** (`python benchmarks/bench_report.py --sizes {sizes}`, headless Chromium, "
             "median of 5 openings; the page's own clock)", "",
             _row("cases", "model calls in the file", "file", "write", "time to interactive", "filter wrong verdicts",
                  "search", "sort by score", "open a case"), _row(*["---"] * 9)]
    for r in report["sizes"]:
        lines.append(_row(f"{r['cases']:,}", "yes" if r["calls_included"] else "no (`--calls` to include)",
                          f"{r['file_mb']:.1f} MB", f"{r['write_s']:.1f} s", f"{r['time_to_interactive_ms']:.0f} ms",
                          f"{r['filter_wrong_ms']:.0f} ms", f"{r['search_ms']:.0f} ms", f"{r['sort_by_score_ms']:.0f} ms",
                          f"{r['open_case_ms']:.0f} ms"))
    lines += ["", f"Time to interactive grows {report['tti_ratio_largest_to_smallest']:.1f}× from the smallest report to "
                  "the largest; the targets are ≤ 2 s to interactive and ≤ 100 ms per filter."]
    return lines


def view_table(view: dict[str, Any]) -> list[str]:
    return [f"**`courtroom view` at scale** (`python benchmarks/bench_view.py --cases {view['cases']}`, headless Chromium, "
            f"median of {view['repeats']} openings, the page's own clock, each action timed from the input to the list "
            f"redrawn with the server's answer; {view['cpu']}, {view['cores']} cores shared with other work: load average "
            f"{view['load_average']:.1f})", "",
            _row("cases", "case list, first request (the server reads the run)", "runs list", "case list",
                 "filter wrong verdicts", "P(hallucinated) range", "search", "sort by P", "next page", "open a case"),
            _row(*["---"] * 10),
            _row(f"{view['cases']:,}", *(f"{view[k]:.0f} ms" for k in (
                "case_list_first_paint_cold_server_ms", "runs_list_first_paint_ms", "case_list_first_paint_ms",
                "filter_wrong_ms", "p_range_ms", "search_ms", "sort_by_p_ms", "next_page_ms", "open_case_ms")))]


def refit_table(refit: dict[str, Any]) -> list[str]:
    sizes = sorted(int(k.split("_")[1]) for k in refit if k.startswith("refit_"))
    lines = [f"**The refit in `courtroom view`** (`python benchmarks/bench_refit.py --run RUN --before DIR`: a run of the "
             "embedded model's default court, 30 labels given through the page's API, the refit's button clicked in "
             f"headless Chromium, the page's own clock; {refit['cpu']}, {refit['cores']} cores shared with other work: "
             f"load average {refit['load_average_before']:.1f} before, {refit['load_average_after']:.1f} after)", "",
             _row("cases", "click to the table", "the estimate after a label", "label screen opened", "verdicts flipped",
                  "the code before: its refit"), _row(*["---"] * 6)]
    for n in sizes:
        r = refit[f"refit_{n}"]
        lines.append(_row(f"{n:,}", f"{r['click_to_table_ms']} ms", f"{r['estimate_after_a_label_ms']} ms",
                          f"{r['label_screen_opened_s']:.1f} s", r["flipped"],
                          f"{r['before_refit_s']:.1f} s" if "before_refit_s" in r else "-"))
    before = f" (the code before: {100 * refit['page_cpu_core_share_before']:.1f}%)" if "page_cpu_core_share_before" in refit else ""
    return lines + ["", f"One open page on a run being written (10,000 cases listed, a case appended every 50 ms): the "
                        f"view's server takes {100 * refit['page_cpu_core_share_now']:.1f}% of a core{before}; the "
                        "targets are ≤ 1 s from click to table at 160 cases, ≤ 10 s at 10,000, ≤ 5% of a core."]


def sentences_table(results: dict[str, Any]) -> list[str]:
    lines = ["**Sentence splitters** (`python benchmarks/bench_sentences.py`, the dev contexts of ../shared/data; pieces "
             "that look broken; a hand-cut set of hard prose)", "",
             _row("splitter", "data", "sentences per context", "< 3 words", "no letters", "unbalanced brackets",
                  "cut after an abbreviation", "ms / 1000 contexts"), _row(*["---"] * 8)]
    for splitter, per_data in results.items():
        for data, r in per_data.items():
            if data == "gold":
                continue
            lines.append(_row(splitter, data, f"{r['mean']:.1f}", f"{100 * r['short']:.1f}%", f"{100 * r['no letters']:.1f}%",
                              f"{100 * r['unbalanced']:.1f}%", r["after abbreviation"], f"{r['ms per 1000']:.0f}"))
    gold = ", ".join(f"{name} {r['gold']['right']}/{r['gold']['of']}" for name, r in results.items() if "gold" in r)
    return lines + ["", f"Hard prose passages split exactly right: {gold}."]


def long_answers_table(results: dict[str, Any]) -> list[str]:
    lines = ["**Long answers** (`python benchmarks/bench_long_answers.py`, the default court on the pseudo-model, CPU "
             "time; target: time per sentence flat within 2x)", "", _row("sentences", "CPU s", "ms per sentence"),
             _row("---", "---", "---")]
    lines += [_row(r["sentences"], f"{r['cpu_s']:.2f}", f"{r['ms_per_sentence']:.2f}") for r in results["rows"]]
    return lines + ["", f"Time per sentence, largest over smallest: {results['spread']:.2f}x."]


def negation_table(results: dict[str, Any]) -> list[str]:
    lines = ["**Negation on a long context sentence** (`python benchmarks/bench_negation.py`, the polarity witness, CPU "
             f"time; a {results['context_kb']:.1f} KB context sentence, every answer sentence compared with it; target: "
             "the time per answer sentence never grows, the time per KB of context flat within 2x)", "",
             _row("answer sentences", "CPU ms", "ms per answer sentence"), _row("---", "---", "---")]
    lines += [_row(r["answer_sentences"], f"{1000 * r['cpu_s']:.1f}", f"{r['ms_per_sentence']:.2f}")
              for r in results["answers"]]
    lines += ["", _row("context sentence (one answer sentence)", "CPU ms", "ms per KB"), _row("---", "---", "---")]
    lines += [_row(f"{r['context_kb']:.1f} KB", f"{1000 * r['cpu_s']:.1f}", f"{r['ms_per_kb']:.2f}")
              for r in results["contexts"]]
    return lines + ["", f"Time per answer sentence, longest answer over shortest: {results['longest_over_shortest']:.2f} "
                        f"(the context sentence is read once a case; each added answer sentence "
                        f"{results['ms_per_added_sentence']:.2f} ms); time per KB of context, max over min: "
                        f"{results['per_kb_spread']:.2f}."]


def trial_texts_table(r: dict[str, Any]) -> list[str]:
    lines = [f"**A trial's texts** (`python benchmarks/bench_trial_texts.py --model {r['model']} --cases {r['cases']}"
             f"{' --before CHECKOUT' if 'before' in r else ''}`, HaluBench dev, `full` with every statement charged "
             f"and tried, {r['dtype']}; {r['cpu']}, nothing else running; the model's seconds a case, as the rows "
             "record them)", "", _row("court", "s/case", "model calls/case", "s/case against composed", "target"),
             _row(*["---"] * 5)]
    names = {"composed": "composed texts (pieces read off the case, nothing decoded)",
             "generated": "generated texts (the same pieces, then a decoded sentence a move)",
             "before": "795874c's full (texts and citations decoded)"}
    for key, name in names.items():
        if key in r:
            ratio = "-" if key == "composed" else f"{r['composed']['model'] / r[key]['model']:.2f}×"
            lines.append(_row(name, f"{r[key]['model']:.1f}", f"{r[key]['calls']:.1f}", ratio,
                              "≤ 0.6× (#59)" if key == "before" else ""))
    return lines


def render_tables(root: Path) -> str:
    parts = []
    for name, table in (("door", door_table), ("court", court_table), ("served-qwen2.5-coder-0.5b", served_table),
                        ("ray", ray_table), ("audit", audit_table), ("report", report_table), ("view", view_table),
                        ("refit", refit_table),
                        ("sentences", sentences_table), ("long_answers", long_answers_table),
                        ("negation", negation_table), ("trial_texts", trial_texts_table)):
        data = _load(root, name)
        if data is not None:
            parts.append("\n".join(table(data)))
    return "\n\n".join(parts) + "\n"
