"""The memory panel: a stacked bar of the estimate against the GPU, the plan, and what-if remedy toggles."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from triage.kb.models import Remedy
from triage.render.strings import t
from triage.tui.whatif import OTHER, OVERHEAD, MemoryView, bar_cells, capacity_cell, gib
from triage.tui.widgets.toggles import RemedyToggles

#: Colours of the components, in order; the overhead, the free part and the uncertain band have their own.
COLOURS = ["magenta", "blue", "cyan", "green", "yellow", "bright_magenta", "bright_blue", "bright_cyan"]
FIXED = {OVERHEAD: "grey50", OTHER: "white", "free": "dim", "uncertain": "grey39"}
GLYPH = {"free": "░", "uncertain": "▒"}
#: The GPU's capacity, drawn into the bar.
MARK = "┃"


def _w(key: str, lang: str) -> str:
    return t(f"panel_{key}", lang)


def _needs(view: MemoryView, lang: str) -> list[str]:
    """The fact groups still unknown, in the panel's language ("model_name or model_params_b")."""
    return [n.replace(" or ", _w("or", lang)) for n in view.needs]


def colours(view: MemoryView) -> dict[str, str]:
    """The colour of each segment of ``view``."""
    out = dict(FIXED)
    plain = [s.name for s in view.segments if s.name not in FIXED]
    out.update({name: COLOURS[i % len(COLOURS)] for i, name in enumerate(plain)})
    return out


def render_bar(view: MemoryView, width: int, lang: str, titles: dict[str, str] | None = None) -> Text:
    """The stacked bar with the GPU's capacity marked, a legend, the verdict, the what-if and the plan."""
    titles = titles or {}
    colour = colours(view)
    chars: list[tuple[str, str]] = []
    for name, n in bar_cells(view, width):
        chars += [(GLYPH.get(name, "█"), colour[name])] * n
    at = capacity_cell(view, width)
    if at is not None:
        chars += [(" ", "")] * (at + 1 - len(chars))
        chars[at] = (MARK, "bold white on red" if view.over else "bold")
    out = Text()
    for glyph, style in chars:
        out.append(glyph, style=style)
    out.append("\n")
    column = 0
    for seg in view.segments:
        if seg.bytes < 0.05 * 1024**3:
            continue  # too small to read in GiB
        entry = f"{seg.name} {gib(seg.bytes)}"
        if column and column + len(entry) + 4 > width:  # entries never break across lines
            out.append("\n")
            column = 0
        elif column:
            out.append("  ")
            column += 2
        out.append("█ ", style=colour[seg.name])
        out.append(entry)
        column += len(entry) + 2
    out.append("\n")
    band = f"{gib(view.expected)} ({view.low / 1024**3:.1f}-{view.high / 1024**3:.1f})"
    if view.capacity is None:
        out.append(f"{band} · {_w('capacity_unknown', lang)} {', '.join(_needs(view, lang)) or 'gpu_name'}")
    elif view.fits:
        out.append(f"✓ {_w('fits', lang)}: {band} / {gib(view.capacity)} {_w('gpu', lang)}", style="bold green")
    else:
        out.append(
            f"✗ {_w('no_fit', lang)}: {band} / {MARK} {gib(view.capacity)} {_w('gpu', lang)}, "
            f"{gib(view.over)} {_w('over', lang)}",
            style="bold red",
        )
    out.append(f" · {_w('peak', lang)}: {view.peak_phase}", style="dim")
    if view.applied:
        n = len(view.applied)
        changes = _w("change" if n == 1 else "changes", lang)
        if view.unsized:  # e.g. dynamic padding without the samples' lengths: no number to give
            out.append(f"\n{_w('with', lang)} {n} {changes}: {t(f'outcome_unsized_{view.unsized}', lang)}")
        else:
            verb = _w("saves", lang) if view.saved >= 0 else _w("costs", lang)
            out.append(f"\n{_w('with', lang)} {n} {changes}: {verb} {gib(abs(view.saved))}")
    if view.plan:
        steps = " + ".join(titles.get(rid, rid) for rid in view.plan)
        after = gib(view.plan_after) if view.plan_after is not None else "?"
        mark = "✓" if view.plan_fits else "✗"
        out.append(f"\n{_w('plan', lang)}: {steps} → {after} {mark} ", style="bold")
        out.append(f"({_w('plan_undo' if view.applied == view.plan else 'plan_key', lang)})", style="dim")
    elif view.capacity is not None and not view.fits and not view.applied:
        out.append(f"\n{_w('no_plan', lang)}", style="dim")
    return out


def render_assumptions(view: MemoryView, lang: str) -> Text:
    """What the estimator assumed, in one dim line (the full list is in the report)."""
    if not view.assumptions:
        return Text()
    shown = ", ".join(view.assumptions[:4]) + (" …" if len(view.assumptions) > 4 else "")
    return Text(f"{_w('assumed', lang)}: {shown}", style="dim")


class MemoryPanel(VerticalScroll, can_focus=False):
    """Draws a :class:`MemoryView`; the remedy list toggles what-if changes."""

    def compose(self) -> ComposeResult:
        yield Static(id="mem-bar")
        yield RemedyToggles(id="whatif")
        yield Static(id="mem-assumed")

    def show(self, view: MemoryView, remedies: list[Remedy], lang: str) -> None:
        self.border_title = _w("title", lang)
        bar = self.query_one("#mem-bar", Static)
        toggles = self.query_one("#whatif", RemedyToggles)
        self.query_one("#mem-assumed", Static).update(render_assumptions(view, lang))
        if not view.available:
            lines = [f"{_w('needs', lang)}:"] + [f"  · {n}" for n in _needs(view, lang)]
            reason = view.reason_zh if lang == "zh" and view.reason_zh else view.reason
            if reason:
                lines.append(f"({reason})")
            bar.update(Text("\n".join(lines)))
            toggles.display = bool(view.applied)  # a what-if that cannot be estimated can still be undone
            return
        # one column is kept for the vertical scrollbar, which appears when the panel overflows
        width = max(10, (self.content_size.width or 30) - 2)
        titles = {r.id: r.title.get(lang) for r in remedies}
        bar.update(render_bar(view, width, lang, titles))
        wanted = [(r.title.get(lang), r.id) for r in remedies if r.changes]
        toggles.show(wanted, view.applied)
        toggles.display = bool(wanted)
        toggles.border_subtitle = _w("toggle", lang)
