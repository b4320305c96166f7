"""The page: the seed comes back out exactly, GitHub reads every table, newest forms render."""

from __future__ import annotations

import pytest

from bot.config import Settings
from bot.render import Renderer
from bot.snapshot.checked import checked
from bot.snapshot.model import Snapshot
from bot.snapshot.store import load_snapshot
from tests.support.paths import FIXTURES, ROOT
from tests.support.plaintext import reduce

SEED_PAGE = ROOT / "tests" / "seed" / "current-constraints-2026-08-27.txt"


@pytest.fixture(scope="module")
def seed_page(settings: Settings, renderer: Renderer, seed: Snapshot) -> str:
    return renderer.page(seed, settings.config.page_text)


@pytest.fixture(scope="module")
def newest_page(settings: Settings, renderer: Renderer) -> str:
    loaded = checked(load_snapshot(FIXTURES / "snapshot-newest.yaml"))
    return renderer.page(loaded.model, settings.config.page_text)


def test_plain_text_reading_equals_the_seed_line_for_line(seed_page: str) -> None:
    text, _ = reduce(seed_page)
    expected = SEED_PAGE.read_text(encoding="utf-8")
    assert text.splitlines() == expected.splitlines()
    assert text == expected


def test_every_table_row_has_its_headers_cell_count(seed_page: str, newest_page: str) -> None:
    for page in (seed_page, newest_page):
        _, tables = reduce(page)
        assert len(tables) == 8
        for rows in tables:
            assert len(rows) > 1
            assert {len(row) for row in rows} == {len(rows[0])}


def test_committed_page_is_the_render(seed_page: str, settings: Settings) -> None:
    assert settings.page_path.read_text(encoding="utf-8") == seed_page


def test_render_is_deterministic(settings: Settings, seed: Snapshot, seed_page: str) -> None:
    again = Renderer.from_directory(settings.templates_path).page(seed, settings.config.page_text)
    assert again == seed_page


def test_page_layout_upstream_details(seed_page: str) -> None:
    assert seed_page.startswith('---\ntitle: "Current native-performance constraints"\n')
    assert "**As of:** 2026-08-27  \n**Authority:** generated from `internal/nativeperf" in seed_page
    assert seed_page.endswith("`fak native-performance --current-md`.\n")
    assert "\n\n\n" not in seed_page
    assert (
        "| 1 / `cuda.cache-weight-residency` — Model-lifetime immutable CUDA weight residency<br>#9420 |" in seed_page
    )
    assert "| `running`<br>Owner: anthony-chaudhary / live DOS lease<br>Lane: `model+compute` | — |" in seed_page
    assert "| Blocked now: `cuda.cache-weight-residency` |" in seed_page
    assert "|---:|---|---|---|" in seed_page
    assert "| `llm-d/llm-d@bc20f73bd344b5a0faad5afca93831088aeee957` | `mapped-needs-limiter` |" in seed_page
    assert "| native-serving-stack` / #9385, #9386 |" not in seed_page
    assert "`native-serving-stack` / #9385, #9386 |" in seed_page
    assert "`measurement-control-loop`, `cuda-cold-decode` / — |" in seed_page


@pytest.mark.parametrize(
    "fragment",
    [
        "<br>#8325/#9482 |",
        "`complete`<br>Owner: accepted receipt #9482",
        "**Result:** Exact campaign accepted",
        "<br>**Exit:** M1 earns KEEP 1/10. |",
        "| Satisfied: `mac.m1-streamed-q4k-no-copy` |",
        "| Blocked now: exclusive quiescent M3 Pro campaign window |",
        "<br>#9513/#2723/#9430 |",
        "mapped backlog is not performance-closed",
        "| Depends: `mac.m1-streamed-q4k-no-copy`, `mac.m2-whole-sequence-prefill`, `mac.m3-q8-gdn-handoff`",
    ],
)
def test_newest_upstream_forms(newest_page: str, fragment: str) -> None:
    assert fragment in newest_page


def test_newest_page_golden(newest_page: str) -> None:
    golden = ROOT / "tests" / "golden" / "page-newest.md"
    assert newest_page == golden.read_text(encoding="utf-8")


# --- `page_text.empty_tables`: upstream prints every table; a new team's page only those with rows

TABLE_HEADS = {
    "waves": "| Wave | Envelope |",
    "collisions": "| Collision | Kind |",
    "gates": "| # | Gate |",
    "queue": "### Current source queue projection",
    "arms": "## Graph-dependency-ready arms and collisions",
}


def without(seed: Snapshot, *fields: str) -> Snapshot:
    return seed.model_copy(update=dict.fromkeys(fields, ()))


def shown(page: str) -> set[str]:
    return {name for name, head in TABLE_HEADS.items() if head in page}


@pytest.mark.parametrize(
    ("emptied", "left_out"),
    [
        ((), set()),
        (("ready_waves",), {"waves"}),
        (("collisions",), {"collisions"}),
        (("ready_waves", "collisions"), {"waves", "collisions", "arms"}),
        (("oss_walk",), {"gates"}),
        (("oss_routes",), {"queue"}),
    ],
)
def test_without_empty_tables_a_table_with_no_rows_and_a_section_with_none_are_left_out(
    settings: Settings, renderer: Renderer, seed: Snapshot, emptied: tuple[str, ...], left_out: set[str]
) -> None:
    text = settings.config.page_text.model_copy(update={"empty_tables": False})
    page = renderer.page(without(seed, *emptied), text)
    assert shown(page) == set(TABLE_HEADS) - left_out
    assert "|---|\n\n" not in page
    assert "|---:|---|---|---|\n\n" not in page
    assert "\n\n\n" not in page
    upstream = renderer.page(without(seed, *emptied), settings.config.page_text)
    assert shown(upstream) == set(TABLE_HEADS)  # the default keeps upstream's layout, empty tables too


def test_with_every_table_full_both_settings_print_the_same_page(
    settings: Settings, renderer: Renderer, seed: Snapshot, seed_page: str
) -> None:
    text = settings.config.page_text.model_copy(update={"empty_tables": False})
    assert renderer.page(seed, text) == seed_page
