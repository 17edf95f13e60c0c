"""Access and usability in a real Chromium: a server with API keys asks for one (kept in
session storage, sent as a header, never in a URL) and shows only that tenant's data; the
whole ask → cite → library flow by keyboard alone, with labelled controls and a live
region; at 360 px nothing scrolls sideways; dark mode follows the system; ``/docs`` and
``/redoc`` render with every request to another origin blocked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from _web import ask, make_app, ready, screenshot, serve_with
from citewise.server.auth import create_key
from citewise.server.testing import serve
from citewise.store.sqlite import SQLiteStore

pytestmark = pytest.mark.slow

DOC = ("# Opening hours\n\nThe shop opens at 9 am on weekdays and at 10 am on Saturdays.\n\n"
       "It is closed on Sundays and public holidays.\n")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_with(tmp_path_factory.mktemp("web-access"), {"hours.md": DOC})


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    data = tmp_path_factory.mktemp("web-keys")
    with SQLiteStore(data / "citewise.db") as store:
        keys = {t: create_key(store, t, t)[1] for t in ("tenant-a", "tenant-b")}
    with serve(make_app(data, auth="keys", key_cache_s=0)) as url:
        for tenant, key in keys.items():
            with httpx.Client(base_url=url, timeout=60,
                              headers={"Authorization": f"Bearer {key}"}) as http:
                up = http.post("/v1/documents", files={"file": (f"{tenant}.md", DOC.encode())})
                assert up.is_success
                assert http.post("/v1/runs", json={"question": f"hours for {tenant}?",
                                                   "stream": False}).is_success
        yield url, keys


def test_a_server_with_keys_asks_for_one_and_shows_only_its_tenant(
        keyed: tuple[str, dict[str, str]], page_of: Any) -> None:
    url, keys = keyed
    page, _ = page_of(url)
    requests: list[Any] = []
    page.on("request", lambda r: requests.append(r))
    page.goto("/")
    dialog = page.locator("#key-dialog")
    dialog.wait_for(state="visible")
    page.fill("#key-input", keys["tenant-a"])
    page.press("#key-input", "Enter")
    page.wait_for_selector("html[data-ready=true]")
    assert page.locator("#threads .thread-open").all_inner_texts() == ["hours for tenant-a?"]
    page.click("#nav-library")
    page.wait_for_selector("#doc-list li.doc-row")
    assert page.locator("#doc-list .doc-name").all_inner_texts() == ["tenant-a.md"]
    assert page.evaluate("sessionStorage.getItem('citewise.apiKey')") == keys["tenant-a"]
    assert page.evaluate("localStorage.length") == 0
    api = [r for r in requests if "/v1/" in r.url]
    assert api and all(r.headers.get("authorization") == f"Bearer {keys['tenant-a']}" for r in api)
    assert not any(keys["tenant-a"] in r.url for r in requests)
    # Forgetting the key asks again: another tenant's key shows the other tenant.
    page.click("#key-button")
    page.click("#key-forget")
    dialog.wait_for(state="visible")
    page.fill("#key-input", keys["tenant-b"])
    page.press("#key-input", "Enter")
    page.wait_for_selector("html[data-ready=true]")
    page.wait_for_function("() => document.querySelector('#threads .thread-open')?.textContent"
                           " === 'hours for tenant-b?'")


def _tab_to(page: Any, selector: str, limit: int = 40) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement?.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_keyboard_only_flow(base: str, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    _tab_to(page, "#question")
    page.keyboard.type("When does the shop open on Saturdays?")
    page.keyboard.press("Enter")
    page.wait_for_selector(".turn .answer[aria-busy=false] button.cite")
    # Screen readers: the answer region is live, and the page announced it.
    assert page.get_attribute(".turn .answer", "aria-live") == "polite"
    page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Answer ready')")
    _tab_to(page, "button.cite")
    assert page.locator("#cite-card").is_visible()  # focus shows the card
    page.keyboard.press("Enter")
    page.wait_for_selector("#viewer-text mark.cite-active")
    assert page.evaluate("document.activeElement.id") == "viewer-title"
    assert "10 am on Saturdays" in page.inner_text("mark.cite-active")
    page.keyboard.press("Escape")
    assert page.locator("#viewer").is_hidden()
    assert page.evaluate("document.activeElement.matches('button.cite')")  # focus came back
    _tab_to(page, "select[aria-label='Rate this answer']")
    page.keyboard.press("ArrowDown")  # 3: exactly right
    _tab_to(page, ".answer-rating button")
    page.keyboard.press("Enter")
    page.wait_for_selector(".answer-rating .rated:has-text('Recorded')")
    page.keyboard.press("Shift+Tab")
    _tab_to(page, "#nav-library")
    page.keyboard.press("Enter")
    page.wait_for_selector("#doc-list li.doc-row")
    assert page.evaluate("document.activeElement.id") == "doc-filter"
    # Every control has an accessible name.
    unnamed = page.evaluate("""() => [...document.querySelectorAll('button, input, select, textarea')]
        .filter(e => e.offsetParent !== null)
        .filter(e => !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim()
                       || e.getAttribute('aria-labelledby')))
        .map(e => e.outerHTML)""")
    assert unnamed == []


def test_360_px_wide_nothing_scrolls_sideways(base: str, page_of: Any) -> None:
    page, _ = page_of(base, viewport={"width": 360, "height": 740}, has_touch=True)
    ready(page)
    assert page.locator("#question").is_visible()
    ask(page, "When is the shop closed?")
    page.wait_for_selector(".turn .answer[aria-busy=false] button.cite")
    wide = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert page.evaluate(wide) <= 0
    page.locator(".turn button.cite").first.click()
    page.wait_for_selector("#viewer-text mark.cite-active")
    assert page.locator("mark.cite-active").is_visible()
    assert page.evaluate(wide) <= 0
    screenshot(page, "phone-360.png")
    page.click("#viewer-close")
    page.click("#menu")
    assert page.locator("#sidebar").is_visible()
    page.click("#new-thread")
    page.click("#nav-library")
    page.wait_for_selector("#doc-list li.doc-row")
    assert page.evaluate(wide) <= 0


def test_dark_mode_follows_the_system(base: str, page_of: Any) -> None:
    colors = []
    for scheme in ("light", "dark"):
        page, _ = page_of(base, color_scheme=scheme)
        ready(page)
        colors.append(page.evaluate("getComputedStyle(document.body).backgroundColor"))
    assert colors[0] != colors[1]
    assert colors[1] == "rgb(21, 23, 27)"


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_api_reference_works_offline(base: str, page_of: Any, path: str) -> None:
    page, _ = page_of(base)
    origin = base.rstrip("/")
    blocked: list[str] = []

    def only_loopback(route: Any) -> None:
        if route.request.url.startswith(origin):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", only_loopback)
    ready(page, path)
    assert blocked == []
    assert page.locator(".op").count() >= 20
    assert page.locator("#post-v1-runs").is_visible()
    assert "RunRequest" in page.inner_text("#post-v1-runs")
    assert page.locator("#schema-answer").count() == 1
