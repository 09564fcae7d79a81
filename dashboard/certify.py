"""The certification report: the final report, every decision with its reviewer, and the
objections, as HTML and as PDF (reportlab), written when a supervisor certifies."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.records import ReviewDecision, SufficiencyReport
from pipeline.report import report_to_dict

from .audit import Event, StoredDecision

__all__ = ["certification_context", "write_certification"]


def _what(d: ReviewDecision) -> str:
    parts = [d.action.value]
    if d.corrections:
        parts.append(", ".join(f"{k} = {v!r}" for k, v in d.corrections.items()))
    if d.voter_id:
        parts.append(f"voter {d.voter_id}")
    if d.reason:
        parts.append(f"reason: {d.reason}")
    return "; ".join(parts)


def certification_context(
    report: SufficiencyReport,
    decisions: Sequence[StoredDecision],
    event: Event,
    where: dict[str, str],
) -> dict[str, Any]:
    """What both renderings show. `where`: line or page id -> "sheet 3 line 4" / "sheet 3"."""
    doc = report_to_dict(report)
    rows = [
        {
            "seq": s.seq,
            "where": where.get(s.decision.line_id, s.decision.line_id),
            "line_id": s.decision.line_id,
            "what": _what(s.decision),
            "before": _what(s.before) if s.before else "",
            "reviewer": s.decision.reviewer,
            "at": s.decision.decided_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
            "undoes": s.undoes,
        }
        for s in decisions
    ]
    lines = [
        {
            "where": f"sheet {line['sheet_number'] or '?'} line {line['line_no']}",
            "status": line["status"],
            "codes": ", ".join(line["finding_codes"]),
            "voter_id": line["voter_id"] or "",
        }
        for line in doc["lines"]
        if not line["blank"]
    ]
    return {
        "doc": doc,
        "lines": lines,
        "decisions": rows,
        "reviewers": sorted({s.decision.reviewer for s in decisions}),
        "certified_by": event.actor,
        "certified_at": event.at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "note": event.detail.get("note", ""),
    }


def write_certification(
    ctx: dict[str, Any], html: str, out_dir: Path, number: int
) -> dict[str, Path]:
    """certification-N.html and certification-N.pdf in out_dir/certification/."""
    folder = Path(out_dir) / "certification"
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "html": folder / f"certification-{number}.html",
        "pdf": folder / f"certification-{number}.pdf",
    }
    paths["html"].write_text(html, encoding="utf-8")
    _pdf(ctx, paths["pdf"])
    return paths


def _pdf(ctx: dict[str, Any], path: Path) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import inch
    from reportlab.platypus import (
        LongTable,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    styles = getSampleStyleSheet()
    small = styles["BodyText"].clone("small", fontSize=8, leading=10)
    doc = ctx["doc"]
    t = doc["totals"]

    def p(text: str, style=small) -> Paragraph:
        esc = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return Paragraph(esc, style)

    story: list[Any] = [
        p("Certification of the review", styles["Title"]),
        p(doc["case"]["name"], styles["Heading2"]),
        p(
            f"Verdict: {doc['verdict']['value'].upper()}: {doc['verdict']['reason']}",
            styles["BodyText"],
        ),
        p(
            f"Lines read {t['lines_read']}: valid {t['valid']}, invalid {t['invalid']}, in review "
            f"{t['needs_review']}, blank {t['blank']}; required "
            + ("a share of valuation." if t["required"] is None else f"{t['required']}."),
            styles["BodyText"],
        ),
        p(
            f"Certified by {ctx['certified_by']} on {ctx['certified_at']}. Reviewers: "
            f"{', '.join(ctx['reviewers']) or 'none'}.",
            styles["BodyText"],
        ),
        Spacer(1, 0.15 * inch),
        p(f"Decisions ({len(ctx['decisions'])})", styles["Heading3"]),
    ]
    grid = TableStyle(
        [
            ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
            ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ]
    )
    rows = [[p("#"), p("line"), p("decision"), p("before"), p("reviewer"), p("when")]]
    rows += [
        [p(r["seq"]), p(r["where"]), p(r["what"]), p(r["before"]), p(r["reviewer"]), p(r["at"])]
        for r in ctx["decisions"]
    ]
    widths = [0.35 * inch, 1.1 * inch, 2.3 * inch, 1.4 * inch, 0.9 * inch, 1.1 * inch]
    story.append(Table(rows, colWidths=widths, repeatRows=1, style=grid))
    story += [
        Spacer(1, 0.15 * inch),
        p(f"Objections ({len(doc['objections'])})", styles["Heading3"]),
    ]
    rows = [[p("sheet"), p("line"), p("grounds"), p("citation")]]
    for o in doc["objections"]:
        for g in o["grounds"]:
            rows.append(
                [
                    p(o["sheet_number"] or "?"),
                    p(o["line_no"]),
                    p(f"{g['code']}: {g['message']}"),
                    p(g["citation"]),
                ]
            )
    widths = [0.5 * inch, 0.5 * inch, 4.6 * inch, 1.6 * inch]
    story.append(Table(rows, colWidths=widths, repeatRows=1, style=grid))
    story += [Spacer(1, 0.15 * inch), p(f"Signed lines ({len(ctx['lines'])})", styles["Heading3"])]
    # Plain strings, not paragraphs: thousands of rows lay out in seconds.
    rows = [["line", "status", "findings", "voter"]]
    rows += [[x["where"], x["status"], x["codes"][:90], x["voter_id"]] for x in ctx["lines"]]
    widths = [1.2 * inch, 0.9 * inch, 3.6 * inch, 1.5 * inch]
    small_grid = TableStyle([*grid.getCommands(), ("FONTSIZE", (0, 0), (-1, -1), 7)])
    story.append(LongTable(rows, colWidths=widths, repeatRows=1, style=small_grid))
    generated = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    story += [Spacer(1, 0.15 * inch), p(f"Generated {generated} by petitions.")]
    SimpleDocTemplate(
        str(path), pagesize=letter, title="Certification", author=ctx["certified_by"]
    ).build(story)
