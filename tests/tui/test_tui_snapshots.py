"""Snapshots of the main screens at 80x24 and at 120x40 (accept with --snapshot-update after looking)."""

from __future__ import annotations

from triage.tui.widgets.chat_input import ChatInput


async def still(pilot) -> None:
    pilot.app.screen.query_one(ChatInput).cursor_blink = False
    await pilot.pause()


def test_start_80x24(build, snap_compare):
    assert snap_compare(build(), terminal_size=(80, 24), run_before=still)


def test_after_an_answer_80x24(build, snap_compare):
    async def run_before(pilot):
        await still(pilot)
        await pilot.press("2")
        await pilot.pause()

    assert snap_compare(build(), terminal_size=(80, 24), run_before=run_before)


def test_chinese_80x24(build, snap_compare):
    assert snap_compare(build(lang="zh"), terminal_size=(80, 24), run_before=still)


def test_help_80x24(build, snap_compare):
    async def run_before(pilot):
        await still(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(build(), terminal_size=(80, 24), run_before=run_before)


def test_memory_what_if_120x40(build, estimator, snap_compare):
    async def run_before(pilot):
        await still(pilot)
        await pilot.press("2")
        await pilot.pause()

    assert snap_compare(build(estimator=estimator), terminal_size=(120, 40), run_before=run_before)


def test_details_120x40(build, snap_compare):
    async def run_before(pilot):
        await still(pilot)
        await pilot.press("d")
        await pilot.pause()

    assert snap_compare(build(), terminal_size=(120, 40), run_before=run_before)
