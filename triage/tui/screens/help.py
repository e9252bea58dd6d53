"""The help screen: what every key does."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown

HELP = {
    "en": """\
# triage: keys

The assistant asks one question at a time: the one whose answer best separates the likely causes.
While you type, the letter keys type: Esc leaves the text box.

| key | what it does |
|---|---|
| 1-9 | answer with that quick reply; to a number question (batch size, ZeRO stage) the number itself, as typed |
| 0 | I don't know (the next best question is asked) |
| / | type an answer or any text; paste a traceback, log, config or env report (several lines: sent at once) |
| Esc | leave the text box |
| b | take back the last answer |
| c | change an earlier answer |
| Tab | move between the replies, the ranking and the memory panel |
| Enter / → ← | on the ranking: open or close a cause; Enter on a line under it: its full explanation |
| d | the full explanation of the cause or remedy under the cursor (else of the top cause) |
| Space | in the memory panel: try a remedy (what-if) |
| p | try the plan: the cheapest set of remedies that fits (again: back to your run) |
| l | switch language (English / 中文) |
| e | export a markdown report for a GitHub issue (secrets redacted) |
| ? / F1 | this help |
| q | quit |
""",
    "zh": """\
# triage：按键说明

助手每次只问一个问题：最能区分可能原因的那个。
输入文字时字母键用于输入：按 Esc 离开输入框。

| 按键 | 作用 |
|---|---|
| 1-9 | 选择对应的快速回答；数字类问题（batch size、ZeRO stage）直接就是这个数字，与输入相同 |
| 0 | 不知道（改问下一个最有用的问题） |
| / | 输入答案或任意文字；可粘贴 traceback、日志、配置或环境信息（多行粘贴随时整段发送） |
| Esc | 离开输入框 |
| b | 撤回上一个回答 |
| c | 修改之前的某个回答 |
| Tab | 在快速回答、原因排名和显存面板之间切换 |
| Enter / → ← | 在排名中：展开或收起某个原因；在其下的条目上按 Enter：打开完整说明 |
| d | 光标所在原因或修改建议的完整说明（否则为排名第一的原因） |
| 空格 | 在显存面板中：试用某个修改（假设分析） |
| p | 试用方案：代价最小且放得下的修改组合（再按一次恢复原配置） |
| l | 切换语言（English / 中文） |
| e | 导出可贴到 GitHub issue 的 markdown 报告（已隐去密钥） |
| ? / F1 | 本帮助 |
| q | 退出 |
""",
}


class HelpScreen(ModalScreen[None]):
    """Keys and what they do, in the interview's language."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,f1", "close", "Close")]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Markdown(HELP.get(self.lang, HELP["en"]), id="help")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
