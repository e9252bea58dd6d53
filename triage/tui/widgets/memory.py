"""The memory panel: a stacked bar of the estimate against the GPU, and what-if remedy toggles."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection

from triage.kb.models import Remedy
from triage.tui.messages import RemedyToggled
from triage.tui.whatif import MemoryView, bar_cells, gib

#: Colours of the components, in order (the free part is always dim).
COLOURS = ["magenta", "blue", "cyan", "green", "yellow", "red", "bright_magenta", "bright_blue", "bright_cyan"]

WORDS = {
    "title": {"en": "Memory (what-if)", "zh": "显存（假设分析）"},
    "needs": {"en": "To estimate memory I need", "zh": "要估算显存，我需要知道"},
    "fits": {"en": "fits", "zh": "放得下"},
    "no_fit": {"en": "does not fit", "zh": "放不下"},
    "over": {"en": "over", "zh": "超出"},
    "capacity_unknown": {"en": "GPU capacity unknown", "zh": "显卡容量未知"},
    "toggle": {"en": "space: try a remedy", "zh": "空格：试用某个修改"},
}


def render_bar(view: MemoryView, width: int, lang: str) -> Text:
    """The stacked bar, a legend and the verdict."""
    out = Text()
    cells = bar_cells(view, width)
    colours = {b.name: COLOURS[i % len(COLOURS)] for i, b in enumerate(view.components)}
    for name, n in cells:
        out.append("░" * n if name == "free" else "█" * n, style="dim" if name == "free" else colours[name])
    out.append("\n")
    for band in view.components:
        out.append("█ ", style=colours[band.name])
        out.append(f"{band.name} {gib(band.bytes)}  ")
    out.append("\n")
    if view.capacity is None:
        out.append(f"{gib(view.total)} · {WORDS['capacity_unknown'][lang]}")
    elif view.fits:
        out.append(f"✓ {WORDS['fits'][lang]}: {gib(view.total)} / {gib(view.capacity)}", style="bold green")
    else:
        over = view.total - view.capacity
        out.append(
            f"✗ {WORDS['no_fit'][lang]}: {gib(view.total)} / {gib(view.capacity)} ({gib(over)} {WORDS['over'][lang]})",
            style="bold red",
        )
    return out


class MemoryPanel(Vertical):
    """Draws a :class:`MemoryView`; the remedy list toggles what-if changes."""

    def compose(self) -> ComposeResult:
        yield Static(id="mem-bar")
        yield SelectionList[str](id="whatif")

    def show(self, view: MemoryView, remedies: list[Remedy], lang: str) -> None:
        self.border_title = WORDS["title"][lang]
        bar = self.query_one("#mem-bar", Static)
        toggles = self.query_one("#whatif", SelectionList)
        if not view.available:
            lines = [f"{WORDS['needs'][lang]}:"] + [f"  · {n}" for n in view.needs]
            if view.reason:
                lines.append(f"({view.reason})")
            bar.update(Text("\n".join(lines)))
            toggles.display = False
            return
        width = max(10, (self.content_size.width or 30) - 1)
        bar.update(render_bar(view, width, lang))
        wanted = [(r.title.get(lang), r.id, r.id in view.applied) for r in remedies if r.changes]
        current = [
            (str(toggles.get_option_at_index(i).prompt), toggles.get_option_at_index(i).id)
            for i in range(toggles.option_count)
        ]
        if current != [(title, rid) for title, rid, _ in wanted]:
            with toggles.prevent(SelectionList.SelectedChanged):
                toggles.clear_options()
                toggles.add_options([Selection(title, rid, on, id=rid) for title, rid, on in wanted])
        toggles.display = bool(wanted)
        toggles.border_subtitle = WORDS["toggle"][lang]

    @on(SelectionList.SelectedChanged)
    def _toggled(self, event: SelectionList.SelectedChanged[str]) -> None:
        event.stop()
        self.post_message(RemedyToggled(tuple(event.selection_list.selected)))
