"""The web page in a real headless browser (the system's Chromium, driven by selenium)
against the service and the offline world: paste a reference list, watch the statuses
arrive, read them, download JSONL, CSV and corrected BibTeX, all with the keyboard, and no
request leaves the service's origin. The screenshot is kept as a test artefact."""

from __future__ import annotations

import csv
import io
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from service_helpers import demo_refs, running_service
from threaded import served_in_thread

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
STATUSES = {"verified", "unconfirmed", "no trace", "inconclusive", "input error"}

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="no browser: install Debian's chromium and chromium-driver "
                              "(apt-get install -y chromium chromium-driver)"),
    pytest.mark.slow,
]


@pytest.fixture
def service_url(tmp_path: Path) -> Iterator[str]:
    """The service, open on loopback, with the world, on a loop in its own thread (the
    browser is driven from this one, blocking)."""
    with served_in_thread(lambda: running_service(tmp_path, keys=(), open_access=True),
                          "service") as running:
        yield running.url


def _wait_for_file(folder: Path, name: str, within_s: float = 20.0) -> Path:
    path = folder / name
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        if path.exists() and not list(folder.glob("*.crdownload")):
            return path
        time.sleep(0.1)
    raise AssertionError(f"{name} not downloaded; folder holds {sorted(folder.iterdir())}")


@pytest.mark.blocking_allowed("selenium drives the browser with blocking calls")
def test_the_page_checks_a_pasted_list_live_and_offers_the_downloads(
        service_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    monkeypatch.setenv("SE_OFFLINE", "true")  # selenium must never fetch a browser or driver
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    options = webdriver.ChromeOptions()
    assert CHROMIUM is not None and CHROMEDRIVER is not None
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1280,1000"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {
        "download.default_directory": str(downloads), "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    refs = demo_refs()[:8]
    try:
        driver.execute_cdp_cmd("Page.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(downloads)})
        driver.get(service_url + "/")
        area = driver.find_element(By.ID, "refs")
        area.click()
        area.send_keys("\n".join(refs))
        # Keyboard only: the check button is reached and pressed with keys.
        button = driver.find_element(By.ID, "check")
        button.send_keys(Keys.ENTER)
        wait = WebDriverWait(driver, 45)
        wait.until(lambda d: d.find_element(By.ID, "progress").text.startswith("Done"))
        rows = driver.find_elements(By.CSS_SELECTOR, "#results tbody tr")
        statuses = [row.find_element(By.CSS_SELECTOR, "td.status").text for row in rows]
        assert len(rows) == len(refs)
        assert set(statuses) <= STATUSES and "verified" in statuses
        numbers = [row.find_element(By.TAG_NAME, "td").text for row in rows]
        assert numbers == [str(n) for n in range(1, len(refs) + 1)]  # in input order
        shot = tmp_path / "service-page.png"
        driver.save_screenshot(str(shot))
        print(f"screenshot: {shot}")
        for fmt in ("jsonl", "csv", "bibtex"):
            driver.find_element(By.CSS_SELECTOR, f'#downloads [data-format="{fmt}"]').send_keys(
                Keys.ENTER)
            time.sleep(0.3)
        jsonl = _wait_for_file(downloads, "citations.jsonl").read_bytes().splitlines()
        assert sorted(orjson.loads(line)["index"] for line in jsonl) == list(range(len(refs)))
        table = list(csv.DictReader(io.StringIO(
            _wait_for_file(downloads, "citations.csv").read_text())))
        assert [row["status"].replace("_", " ") for row in table] == statuses
        bib = _wait_for_file(downloads, "citations.bib").read_text()
        assert bib.count("@") >= statuses.count("verified")
        origins = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => new URL(e.name).origin)")
        assert set(origins) <= {service_url}  # no request leaves the service
        assert driver.find_element(By.ID, "error").text == ""

        # An uploaded .bib file: its entry checked under its key.
        bib_file = tmp_path / "mine.bib"
        bib_file.write_text("@article{mykey2017,\n title={Attention is all you need},\n"
                            " author={Vaswani, Ashish and Shazeer, Noam},\n year={2017}\n}\n")
        driver.find_element(By.ID, "file").send_keys(str(bib_file))
        driver.find_element(By.ID, "check").send_keys(Keys.ENTER)
        wait.until(lambda d: d.find_element(By.ID, "progress").text == (
                   "Done: 1 citations checked."))
        [row] = driver.find_elements(By.CSS_SELECTOR, "#results tbody tr")
        assert row.find_element(By.CSS_SELECTOR, "td.status").text in STATUSES
        assert "Vaswani" in row.text
    finally:
        driver.quit()
