"""The live ranking: causes with probability bars, their evidence, why-not, remedies and savings."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from triage.engine.diagnose import Diagnosis
from triage.render.labels import evidence_label, probability_bar
from triage.render.strings import t

#: Causes listed (ruled-out ones are listed apart).
SHOWN = 6
BAR = 8


def bar(p: float, cells: int = BAR) -> str:
    return probability_bar(p, cells, empty="░")


class RankingPane(Tree[str]):
    """A tree: one node per cause; under it the evidence and its remedies. Node data = entity id."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__("ranking", **kwargs)  # type: ignore[arg-type]
        self.show_root = False
        self.guide_depth = 2

    def show(self, diagnosis: Diagnosis, savings: dict[str, str]) -> None:
        lang = diagnosis.session.lang
        self.clear()
        live = [rc for rc in diagnosis.causes if not rc.scored.excluded][:SHOWN]
        remedies = {rr.remedy.id: rr for rr in diagnosis.remedies}
        for i, rc in enumerate(live):
            cause = rc.scored.cause
            label = Text.assemble((bar(rc.probability), "bold"), f" {rc.probability:4.0%} ", cause.title.get(lang))
            node: TreeNode[str] = self.root.add(label, data=cause.id, expand=i == 0)
            for item in rc.scored.items:
                if item.kind == "prior" or item.state == "unknown":
                    continue
                words = evidence_label(cause, item, lang)
                if lang == "en" and item.excerpt:
                    words += f" “{item.excerpt}”"
                style = "green" if item.weight > 0 else "red"
                node.add_leaf(Text.assemble((f"{item.weight:+.1f} ", style), words), data=cause.id)
            unknown = sorted(rc.scored.unknown)
            if unknown:
                node.add_leaf(Text(f"? {t('rank_unknown', lang)}: {', '.join(unknown)}", style="dim"), data=cause.id)
            for rid in cause.remedies:
                rr = remedies.get(rid)
                if rr is None:
                    continue
                note = f" · {savings[rid]}" if rid in savings else ""
                if rr.applicable is False:
                    note += f" · {t('blocked', lang)}"
                node.add_leaf(Text.assemble(("→ ", "bold"), rr.remedy.title.get(lang), (note, "italic")), data=rid)
        ruled_out = [rc for rc in diagnosis.causes if rc.scored.excluded]
        if ruled_out:
            out = self.root.add(Text(f"{t('ruled_out', lang)} ({len(ruled_out)})", style="dim"), expand=False)
            for rc in ruled_out:
                why = "; ".join(evidence_label(rc.scored.cause, i, lang) for i in rc.scored.items if i.veto)
                out.add_leaf(
                    Text(f"✗ {rc.scored.cause.title.get(lang)}: {t('why_not', lang)}: {why}", style="dim"),
                    data=rc.id,
                )
        if diagnosis.myths:
            myths = self.root.add(Text(t("myths", lang), style="bold"), expand=True)
            for fm in diagnosis.myths:
                myths.add_leaf(Text(f"! {fm.myth.claim.get(lang)}", style="yellow"), data=fm.myth.id)
        self.border_title = t("rank_ranking", lang)

    @property
    def highlighted_id(self) -> str | None:
        node = self.cursor_node
        return None if node is None else node.data
