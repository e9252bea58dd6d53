"""The live ranking: causes with probability bars, their evidence, why-not, remedies and savings.

Drawn as a tree in an option list, because a Tree row is one line and a long
title would be cut mid-word in a narrow pane: here every row wraps at word
boundaries under its own text (a hanging indent past the bar or the sign).
A cause row opens and closes with Enter (or → / ←); under an open cause are
its evidence, what is not known yet and its remedies, and Enter on one of
those asks for the full explanation (:class:`DetailsRequested`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from triage.api import Diagnosis
from triage.render.contract import evidence_state, listed_causes
from triage.render.labels import probability_bar
from triage.render.strings import t
from triage.tui.messages import DetailsRequested
from triage.tui.plain import shown
from triage.tui.widgets.hanging import hanging

#: Causes listed (ruled-out ones are listed apart).
SHOWN = 6
BAR = 8
#: The keys of the two groups under the causes.
RULED_OUT = "ruled-out"
MYTHS = "myths"
OPEN, CLOSED = "▼ ", "▶ "

Kind = Literal["cause", "evidence", "unknown", "remedy", "group", "ruled_out", "myth"]


def bar(p: float, cells: int = BAR) -> str:
    return probability_bar(p, cells, empty="░")


@dataclass(frozen=True)
class Row:
    """One row of the ranking: a hanging ``lead`` (bar, sign, arrow) and a ``body`` that wraps beside it."""

    kind: Kind
    lead: Text
    body: Text
    entity_id: str | None = None
    """The cause, remedy or myth the row is about (what Enter or ``d`` opens)."""
    under: str | None = None
    """The key of the row this one is listed under (None: at the top)."""
    key: str | None = None
    """Rows that open and close have a key (a cause's id, or a group's)."""
    indent: int = 0
    """Cells before the row's lead."""

    @property
    def text(self) -> str:
        """The row as plain text, without the open/closed mark."""
        return self.lead.plain + self.body.plain


def _cause_rows(diagnosis: Diagnosis, savings: dict[str, str]) -> list[Row]:
    lang = diagnosis.session.lang
    rows: list[Row] = []
    live = listed_causes(diagnosis)[:SHOWN]
    remedies = {rr.remedy.id: rr for rr in diagnosis.remedies}
    guessing = evidence_state(diagnosis) == "no_evidence"
    if guessing:
        # only base rates order the causes: no bars, no percentages, no remedies (nothing is diagnosed yet)
        rows.append(Row("group", Text(), Text(shown(t("no_evidence", lang)), style="italic")))
    for rc in live:
        cause = rc.scored.cause
        if guessing:
            rows.append(Row("cause", Text("· ", style="dim"), Text(cause.title.get(lang), style="dim"), cause.id))
            continue
        # the bar leads the body, so a long title wraps under the bar, not in a narrow column beside it
        body = Text.assemble((bar(rc.probability), "bold"), f" {rc.probability:4.0%} ", cause.title.get(lang))
        rows.append(Row("cause", Text(), body, cause.id, key=cause.id))
        for item in rc.scored.items:
            if item.kind == "prior" or item.state == "unknown":
                continue
            words = item.text(lang)
            if lang == "en" and item.excerpt:
                words += f" “{item.excerpt}”"
            style = "green" if item.weight > 0 else "red"
            sign = Text(f"{item.weight:+.1f} ", style=style)
            rows.append(Row("evidence", sign, Text(shown(words)), cause.id, under=cause.id, indent=2))
        unknown = sorted(rc.scored.unknown)
        if unknown:
            body = Text(f"{t('rank_unknown', lang)}: {', '.join(unknown)}", style="dim")
            rows.append(Row("unknown", Text("? ", style="dim"), body, cause.id, under=cause.id, indent=2))
        for rid in cause.remedies:
            rr = remedies.get(rid)
            if rr is None:
                continue
            note = f" · {savings[rid]}" if rid in savings else ""
            if rr.applicable is False:
                note += f" · {t('blocked', lang)}"
            body = Text.assemble(rr.remedy.title.get(lang), (note, "italic"))
            rows.append(Row("remedy", Text("→ ", style="bold"), body, rid, under=cause.id, indent=2))
    ruled_out = [rc for rc in diagnosis.causes if rc.scored.excluded]
    if ruled_out:
        title = Text(f"{t('ruled_out', lang)} ({len(ruled_out)})", style="dim")
        rows.append(Row("group", Text(), title, key=RULED_OUT))
        for rc in ruled_out:
            why = "; ".join(i.text(lang) for i in rc.scored.items if i.veto)
            body = Text(shown(f"{rc.scored.cause.title.get(lang)}: {t('why_not', lang)}: {why}"), style="dim")
            rows.append(Row("ruled_out", Text("✗ ", style="dim"), body, rc.id, under=RULED_OUT, indent=2))
    if diagnosis.myths:
        rows.append(Row("group", Text(), Text(t("myths", lang), style="bold"), key=MYTHS))
        for fm in diagnosis.myths:
            body = Text(fm.myth.claim.get(lang), style="yellow")
            rows.append(Row("myth", Text("! ", style="yellow"), body, fm.myth.id, under=MYTHS, indent=2))
    return rows


def _prompt(row: Row, is_open: bool) -> RenderableType:
    """The row with its lead in a column of its own, so the body wraps under itself at word boundaries."""
    lead = Text(" " * row.indent)
    if row.key is not None:
        lead.append(OPEN if is_open else CLOSED)
    lead.append_text(row.lead)
    return hanging(lead, row.body)


class RankingPane(OptionList):
    """The causes, best first; under the open ones their evidence and remedies."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "open", "Open", show=False),
        Binding("left", "close", "Close", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(markup=False, **kwargs)  # type: ignore[arg-type]
        self.rows: list[Row] = []
        """Every row, open or not (the listed ones are :attr:`listed`)."""
        self.opened: set[str] = set()
        self.listed: list[Row] = []

    def show(self, diagnosis: Diagnosis, savings: dict[str, str]) -> None:
        """Draw ``diagnosis``: the top cause and the myths open when all of it fits, the rest closed."""
        self.rows = _cause_rows(diagnosis, savings)
        causes = [r.key for r in self.rows if r.kind == "cause" and r.key is not None]
        self.opened = {*causes[:1], MYTHS}
        self._draw(keep=None)
        self.border_title = t("rank_ranking", diagnosis.session.lang)
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """In a short pane, the list of causes comes first: everything closes when the open rows do not fit."""
        if (
            self.opened
            and self.highlighted in (None, 0)
            and self.virtual_size.height > self.scrollable_content_region.height
        ):
            self.opened = set()
            self._draw(keep=None)

    def _draw(self, keep: Row | None) -> None:
        self.listed = [r for r in self.rows if r.under is None or r.under in self.opened]
        self.clear_options()
        self.add_options([Option(_prompt(r, r.key in self.opened)) for r in self.listed])
        if self.listed:
            self.highlighted = self.listed.index(keep) if keep in self.listed else 0

    @property
    def highlighted_row(self) -> Row | None:
        i = self.highlighted
        return self.listed[i] if i is not None and 0 <= i < len(self.listed) else None

    @property
    def highlighted_id(self) -> str | None:
        """The entity of the highlighted row (None for a group)."""
        row = self.highlighted_row
        return None if row is None else row.entity_id

    def highlight(self, kind: Kind, entity_id: str) -> None:
        """Move the highlight to the first visible row of ``kind`` about ``entity_id``."""
        for i, row in enumerate(self.listed):
            if row.kind == kind and row.entity_id == entity_id:
                self.highlighted = i
                return
        raise LookupError(f"no visible {kind} row for {entity_id!r}")

    def toggle(self, row: Row, is_open: bool | None = None) -> None:
        """Open or close ``row`` (switch it when ``is_open`` is None)."""
        if row.key is None:
            return
        want = row.key not in self.opened if is_open is None else is_open
        if want == (row.key in self.opened):
            return
        (self.opened.add if want else self.opened.discard)(row.key)
        self._draw(keep=row)

    def action_open(self) -> None:
        row = self.highlighted_row
        if row is not None:
            self.toggle(row, True)

    def action_close(self) -> None:
        """Close the highlighted row, or the one it is listed under."""
        row = self.highlighted_row
        if row is None:
            return
        if row.key is None and row.under is not None:
            parent = next(r for r in self.listed if r.key == row.under)
            self.toggle(parent, False)
        else:
            self.toggle(row, False)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self.listed[event.option_index]
        if row.key is not None:
            self.toggle(row)
        elif row.entity_id is not None:
            self.post_message(DetailsRequested(row.entity_id))
